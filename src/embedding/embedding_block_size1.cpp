// internal::EmbeddingSpMDMBlockSize1_ (quire/EmbeddingBag.h): bags of one-element rows,
// called directly (FBGEMM's block-size-1 kernel). The bag loop's formula per element,
// acc = fma(w, x, acc), then acc * (1 / len); bags and indices checked first.
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "embedding/bag_plan.h"
#include "quire/EmbeddingBag.h"
#include "quire/FloatConversion.h"

namespace quire::internal {

namespace {

template <class InType>
float element(InType x, bool is_bf16) {
  if constexpr (std::is_same_v<InType, uint16_t>)
    return is_bf16 ? cpu_bf162float(bfloat16{x}) : cpu_half2float(float16{x});
  else if constexpr (std::is_same_v<InType, float16>)
    return cpu_half2float(x);
  else
    return static_cast<float>(x);
}

}  // namespace

template <typename InType, typename IndexType, typename OffsetType>
bool EmbeddingSpMDMBlockSize1_(int64_t output_size, int64_t index_size, int64_t data_size,
                               const InType* input, const IndexType* indices,
                               const OffsetType* ol, const float* weights,
                               bool normalize_by_lengths, float* out, bool is_weight_positional,
                               bool use_offsets, bool is_bf16) {
  if (output_size < 0 || index_size < 0 || data_size < 0) return false;
  if (!detail::bags_cover(ol, use_offsets, output_size, index_size)) return false;
  for (int64_t i = 0; i < index_size; ++i)
    if (indices[i] < 0 || indices[i] >= data_size) return false;
  int64_t current = 0;
  for (int64_t m = 0; m < output_size; ++m) {
    const int64_t len = use_offsets ? int64_t{ol[m + 1]} - int64_t{ol[m]} : int64_t{ol[m]};
    float acc = 0.0f;
    for (int64_t i = 0; i < len; ++i, ++current) {
      const float w = weights ? weights[is_weight_positional ? i : current] : 1.0f;
      acc = std::fma(w, element(input[indices[current]], is_bf16), acc);
    }
    if (normalize_by_lengths && len != 0) acc *= 1.0f / static_cast<float>(len);
    out[m] = acc;
  }
  return true;
}

#define QUIRE_BLOCK1(In, Index, Offset)                                                       \
  template bool EmbeddingSpMDMBlockSize1_<In, Index, Offset>(                                 \
      int64_t, int64_t, int64_t, const In*, const Index*, const Offset*, const float*, bool,  \
      float*, bool, bool, bool);
#define QUIRE_BLOCK1_INDEX(In)           \
  QUIRE_BLOCK1(In, int32_t, int32_t)     \
  QUIRE_BLOCK1(In, int32_t, int64_t)     \
  QUIRE_BLOCK1(In, int64_t, int32_t)     \
  QUIRE_BLOCK1(In, int64_t, int64_t)
QUIRE_BLOCK1_INDEX(float)
QUIRE_BLOCK1_INDEX(float16)
QUIRE_BLOCK1_INDEX(uint16_t)
QUIRE_BLOCK1_INDEX(uint8_t)
#undef QUIRE_BLOCK1_INDEX
#undef QUIRE_BLOCK1

}  // namespace quire::internal
