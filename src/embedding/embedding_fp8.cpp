// GenerateEmbeddingSpMDMFP8WithStrides (quire/EmbeddingBag.h): bags of 8-bit float rows,
// decoded as Float8ToFloat_ref does, summed by the bag loop of the other float formats.
#include <bit>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "embedding/bag_plan.h"
#include "quire/EmbeddingBag.h"
#include "quire/FloatConversion.h"

namespace quire {

template <typename IndexType, typename OffsetType, typename OutType>
typename EmbeddingSpMDMKernelSignature<uint8_t, IndexType, OffsetType, OutType>::Type
GenerateEmbeddingSpMDMFP8WithStrides(int64_t block_size, bool normalize_by_lengths,
                                     bool is_weight_positional, bool use_offsets,
                                     int64_t output_stride, int64_t input_stride,
                                     int exponent_bits, int exponent_bias, bool is_bf16_out) {
  using Fn = typename EmbeddingSpMDMKernelSignature<uint8_t, IndexType, OffsetType, OutType>::Type;
  // FloatToFloat8_ref's formats: the largest exponent 2^e - 2 - bias within a float's.
  if (exponent_bits < 1 || exponent_bits > 7)
    throw std::invalid_argument("exponent_bits must be in [1, 7], got " +
                                std::to_string(exponent_bits));
  const int top = (1 << exponent_bits) - 2 - exponent_bias;
  if (exponent_bias < 0 || top < 0 || top > 30)
    throw std::invalid_argument("exponent_bias must be >= 0 and within [2^exponent_bits - 32, "
                                "2^exponent_bits - 2], got " + std::to_string(exponent_bias));
  const detail::OutFormat out = std::is_same_v<OutType, float> ? detail::OutFormat::kF32
                                : is_bf16_out                  ? detail::OutFormat::kBF16
                                                               : detail::OutFormat::kF16;
  // FBGEMM's FP8 kernel has no has_weight or prefetch: weights count wherever given.
  detail::BagPlan plan = detail::make_bag_plan(
      detail::RowFormat::kF8, block_size, true, input_stride, output_stride, out,
      sizeof(OutType), true, normalize_by_lengths, 16, is_weight_positional, use_offsets, false);
  plan.fp8_shift = 16 + exponent_bits;
  plan.fp8_scale = std::bit_cast<float>(static_cast<uint32_t>(254 - exponent_bias) << 23);
  return Fn([plan](int64_t output_size, int64_t index_size, int64_t data_size,
                   const uint8_t* input, const IndexType* indices, const OffsetType* ol,
                   const float* weights, OutType* out_rows) {
    return detail::run_bags(plan, output_size, index_size, data_size, input, indices, ol,
                            weights, out_rows);
  });
}

#define QUIRE_FP8(Index, Offset, Out)                                                         \
  template EmbeddingSpMDMKernelSignature<uint8_t, Index, Offset, Out>::Type                   \
  GenerateEmbeddingSpMDMFP8WithStrides<Index, Offset, Out>(int64_t, bool, bool, bool,         \
                                                           int64_t, int64_t, int, int, bool);
#define QUIRE_FP8_OUT(Index, Offset) \
  QUIRE_FP8(Index, Offset, float)    \
  QUIRE_FP8(Index, Offset, uint16_t) \
  QUIRE_FP8(Index, Offset, float16)
QUIRE_FP8_OUT(int32_t, int32_t)
QUIRE_FP8_OUT(int32_t, int64_t)
QUIRE_FP8_OUT(int64_t, int32_t)
QUIRE_FP8_OUT(int64_t, int64_t)
#undef QUIRE_FP8_OUT
#undef QUIRE_FP8

}  // namespace quire
