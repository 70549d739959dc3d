// The array forms of Requantize (float multiplier) and RequantizeFixedPoint, and
// SaturatingRoundingMulWithShift.
#include "quant/checks.h"
#include "quant/kernel_select.h"
#include "quire/QuantUtils.h"

namespace quire {

using detail::KernelsOf;
using detail::quant_kernels;

namespace {

void check_right_shift(const char* where, int right_shift) {
  detail::check_arg(right_shift >= 0 && right_shift <= 63, where, "right_shift", right_shift,
                    "must be in [0, 63]");
}

}  // namespace

int64_t SaturatingRoundingMulWithShift(int32_t a, int32_t b, int right_shift) {
  check_right_shift("SaturatingRoundingMulWithShift", right_shift);
  return detail::rounding_mul_shift(a, b, right_shift);
}

template <typename T>
void Requantize(const int32_t* src, T* dst, int64_t len, const RequantizationParams& params,
                int thread_id, int num_threads) {
  constexpr const char* kWhere = "Requantize";
  detail::check_len(kWhere, src, "src", dst, "dst", len);
  detail::check_multiplier(kWhere, params.real_multiplier);
  const auto [lo, hi] = detail::quantized_range<T>(kWhere, params.target_qparams.precision,
                                                   std::is_signed_v<T>);
  const detail::RequantizeArgs args{params.real_multiplier, params.target_qparams.zero_point,
                                    static_cast<int32_t>(lo), static_cast<int32_t>(hi)};
  int64_t begin = 0, end = 0;
  detail::thread_share(kWhere, thread_id, num_threads, len, begin, end);
  (quant_kernels().*KernelsOf<T>::requantize)(src + begin, dst + begin, end - begin, args);
}

template <typename T>
void RequantizeFixedPoint(const int32_t* src, T* dst, int64_t len,
                          const RequantizationParams& params, int thread_id, int num_threads) {
  constexpr const char* kWhere = "RequantizeFixedPoint";
  detail::check_len(kWhere, src, "src", dst, "dst", len);
  check_right_shift(kWhere, params.right_shift);
  const auto [lo, hi] = detail::quantized_range<T>(kWhere, params.target_qparams.precision,
                                                   std::is_signed_v<T>);
  const detail::RequantizeFixedArgs args{params.multiplier, params.right_shift,
                                         params.target_qparams.zero_point,
                                         static_cast<int32_t>(lo), static_cast<int32_t>(hi)};
  int64_t begin = 0, end = 0;
  detail::thread_share(kWhere, thread_id, num_threads, len, begin, end);
  (quant_kernels().*KernelsOf<T>::requantize_fixed)(src + begin, dst + begin, end - begin, args);
}

#define QUIRE_INSTANTIATE_REQUANTIZE(T)                                                   \
  template void Requantize<T>(const int32_t*, T*, int64_t, const RequantizationParams&,   \
                              int, int);                                                  \
  template void RequantizeFixedPoint<T>(const int32_t*, T*, int64_t,                      \
                                        const RequantizationParams&, int, int);
QUIRE_INSTANTIATE_REQUANTIZE(uint8_t)
QUIRE_INSTANTIATE_REQUANTIZE(int8_t)
QUIRE_INSTANTIATE_REQUANTIZE(uint16_t)
QUIRE_INSTANTIATE_REQUANTIZE(int16_t)
QUIRE_INSTANTIATE_REQUANTIZE(int32_t)
#undef QUIRE_INSTANTIATE_REQUANTIZE

}  // namespace quire
