// The array forms of Quantize, Dequantize, FusedQuantizeDequantize and FindMinMax.
#include <cmath>
#include <limits>

#include "quant/checks.h"
#include "quant/kernel_select.h"
#include "quire/QuantUtils.h"

namespace quire {

using detail::KernelsOf;
using detail::quant_kernels;

template <typename T, bool LEGACY>
void Quantize(const float* src, T* dst, int64_t len, const TensorQuantizationParams& qparams,
              int thread_id, int num_threads) {
  constexpr const char* kWhere = "Quantize";
  detail::check_len(kWhere, src, "src", dst, "dst", len);
  const detail::QuantizeArgs args = detail::quantize_args<T>(
      kWhere, qparams.scale, qparams.zero_point, qparams.precision, std::is_signed_v<T>, LEGACY);
  int64_t begin = 0, end = 0;
  detail::thread_share(kWhere, thread_id, num_threads, len, begin, end);
  (quant_kernels().*KernelsOf<T>::quantize)(src + begin, dst + begin, end - begin, args);
}

template <typename T>
void Dequantize(const T* src, float* dst, int64_t len, const TensorQuantizationParams& qparams,
                int thread_id, int num_threads) {
  constexpr const char* kWhere = "Dequantize";
  detail::check_len(kWhere, src, "src", dst, "dst", len);
  int64_t begin = 0, end = 0;
  detail::thread_share(kWhere, thread_id, num_threads, len, begin, end);
  (quant_kernels().*KernelsOf<T>::dequantize)(src + begin, dst + begin, end - begin,
                                               qparams.scale, qparams.zero_point);
}

template <typename T>
void FusedQuantizeDequantize(const float* src, float* dst, int64_t len,
                             const TensorQuantizationParams& qparams, int thread_id,
                             int num_threads, float noise_ratio) {
  constexpr const char* kWhere = "FusedQuantizeDequantize";
  detail::check_len(kWhere, src, "src", dst, "dst", len);
  const detail::QuantizeArgs args = detail::quantize_args<T>(
      kWhere, qparams.scale, qparams.zero_point, qparams.precision, std::is_signed_v<T>, false);
  if (!(noise_ratio >= 0.0f && noise_ratio <= 1.0f)) {
    detail::fail_float(kWhere, "noise_ratio", noise_ratio, "must be in [0, 1]");
  }
  int64_t begin = 0, end = 0;
  detail::thread_share(kWhere, thread_id, num_threads, len, begin, end);
  quant_kernels().fused_quantize_dequantize(src + begin, dst + begin, end - begin, args,
                                            qparams.scale, qparams.zero_point);
  if (noise_ratio > 0.0f) {
    const double threshold = static_cast<double>(noise_ratio) * 4294967296.0;  // * 2^32
    for (int64_t i = begin; i < end; ++i) {
      if (detail::noise_hash(static_cast<uint64_t>(i)) < threshold) dst[i] = src[i];
    }
  }
}

void FindMinMax(const float* m, float* min, float* max, int64_t len) {
  constexpr const char* kWhere = "FindMinMax";
  detail::check_arg(len >= 0, kWhere, "len", len, "must be >= 0");
  if (len > 0) detail::check_not_null(m, kWhere, "m");
  detail::check_not_null(min, kWhere, "min");
  detail::check_not_null(max, kWhere, "max");
  if (len == 0) {
    *min = *max = 0.0f;
    return;
  }
  quant_kernels().find_min_max(m, len, min, max);
  if (*min > *max) *min = *max = std::numeric_limits<float>::quiet_NaN();  // nothing but NaN
}

#define QUIRE_INSTANTIATE_QUANTIZE(T)                                                     \
  template void Quantize<T, true>(const float*, T*, int64_t, const TensorQuantizationParams&, \
                                  int, int);                                              \
  template void Quantize<T, false>(const float*, T*, int64_t,                             \
                                   const TensorQuantizationParams&, int, int);            \
  template void Dequantize<T>(const T*, float*, int64_t, const TensorQuantizationParams&, \
                              int, int);
QUIRE_INSTANTIATE_QUANTIZE(uint8_t)
QUIRE_INSTANTIATE_QUANTIZE(int8_t)
QUIRE_INSTANTIATE_QUANTIZE(uint16_t)
QUIRE_INSTANTIATE_QUANTIZE(int16_t)
QUIRE_INSTANTIATE_QUANTIZE(int32_t)
#undef QUIRE_INSTANTIATE_QUANTIZE

template void FusedQuantizeDequantize<uint8_t>(const float*, float*, int64_t,
                                               const TensorQuantizationParams&, int, int, float);
template void FusedQuantizeDequantize<int8_t>(const float*, float*, int64_t,
                                              const TensorQuantizationParams&, int, int, float);

}  // namespace quire
