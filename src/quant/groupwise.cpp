// QuantizeGroupwise: per-group scale and zero point over the channels of a KCX or KXC
// weight tensor.
#include <string>
#include <vector>

#include "quant/checks.h"
#include "quant/kernel_select.h"
#include "quire/QuantUtils.h"

namespace quire {
namespace {

// Pattern length of the KXC parameter rows: long enough that each kernel call covers
// many vectors even when C is small.
constexpr int64_t kMinChannelRun = 256;

}  // namespace

template <typename T, layout_t LAYOUT>
void QuantizeGroupwise(const float* src, int K, int C, int X, int G, const float* scales,
                       const int32_t* zero_points, T* dst) {
  constexpr const char* kWhere = "QuantizeGroupwise";
  detail::check_arg(K >= 0, kWhere, "K", K, "must be >= 0");
  detail::check_arg(C >= 0, kWhere, "C", C, "must be >= 0");
  detail::check_arg(X >= 0, kWhere, "X", X, "must be >= 0");
  detail::check_arg(G >= 1 && C % G == 0, kWhere, "G", G, "must be >= 1 and divide C");
  detail::check_not_null(scales, kWhere, "scales");
  detail::check_not_null(zero_points, kWhere, "zero_points");
  const int64_t total = int64_t{K} * C * X;
  detail::check_len(kWhere, src, "src", dst, "dst", total);

  // One set of arguments per group, validated before anything is written.
  constexpr int kBits = 8 * sizeof(T);
  std::vector<detail::QuantizeArgs> args(static_cast<size_t>(G));
  for (int g = 0; g < G; ++g) {
    if (!detail::valid_scale(scales[g])) {
      const std::string name = "scales[" + std::to_string(g) + "]";
      detail::fail_float(kWhere, name.c_str(), scales[g], detail::kScaleRequirement);
    }
    args[g] = detail::quantize_args<T>(kWhere, scales[g], zero_points[g], kBits,
                                       std::is_signed_v<T>, false);
  }
  if (total == 0) return;
  const detail::QuantKernels& kernels = detail::quant_kernels();
  const int64_t cpg = C / G;  // channels per group

  if constexpr (LAYOUT == layout_t::KCX) {
    // Each (k, g) is a contiguous run of cpg * X elements with one scale.
    const int64_t run = cpg * X;
    for (int64_t k = 0; k < K; ++k) {
      for (int g = 0; g < G; ++g) {
        const int64_t offset = (k * C + g * cpg) * X;
        (kernels.*detail::KernelsOf<T>::quantize)(src + offset, dst + offset, run, args[g]);
      }
    }
  } else {
    // Channels are innermost: the parameters repeat with period C. Spell them out per
    // element over a whole number of periods and convert the tensor in chunks of that.
    const int64_t periods = (kMinChannelRun + C - 1) / C;
    const int64_t chunk = periods * C;
    std::vector<float> inv_scale(static_cast<size_t>(chunk)), zero_point(inv_scale.size());
    for (int64_t i = 0; i < chunk; ++i) {
      const detail::QuantizeArgs& a = args[static_cast<size_t>((i % C) / cpg)];
      inv_scale[i] = a.inv_scale;
      zero_point[i] = a.zero_point;
    }
    for (int64_t offset = 0; offset < total; offset += chunk) {
      const int64_t n = total - offset < chunk ? total - offset : chunk;
      (kernels.*detail::ChannelKernelOf<T>::quantize)(src + offset, dst + offset, n,
                                                      inv_scale.data(), zero_point.data(),
                                                      args[0]);
    }
  }
}

#define QUIRE_INSTANTIATE_GROUPWISE(T)                                                   \
  template void QuantizeGroupwise<T, layout_t::KCX>(const float*, int, int, int, int,    \
                                                    const float*, const int32_t*, T*);   \
  template void QuantizeGroupwise<T, layout_t::KXC>(const float*, int, int, int, int,    \
                                                    const float*, const int32_t*, T*);
QUIRE_INSTANTIATE_GROUPWISE(uint8_t)
QUIRE_INSTANTIATE_GROUPWISE(int8_t)
QUIRE_INSTANTIATE_GROUPWISE(int32_t)
#undef QUIRE_INSTANTIATE_GROUPWISE

}  // namespace quire
