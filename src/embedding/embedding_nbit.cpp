// The generators of quire/EmbeddingBag.h for 2- and 4-bit tables (fp16 scale and bias
// per row): GenerateEmbeddingSpMDMNBit and ...NBitWithStrides.
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "embedding/bag_plan.h"
#include "quire/EmbeddingBag.h"
#include "quire/FloatConversion.h"

namespace quire {

using detail::BagPlan;
using detail::OutFormat;
using detail::RowFormat;

template <typename IndexType, typename OffsetType, typename OutType, bool THREAD_LOCAL>
typename EmbeddingSpMDMKernelSignature<uint8_t, IndexType, OffsetType, OutType>::Type
GenerateEmbeddingSpMDMNBitWithStrides(int input_bit_rate, int64_t block_size, bool has_weight,
                                      bool normalize_by_lengths, int prefetch,
                                      bool is_weight_positional, bool use_offsets,
                                      int64_t output_stride, int64_t input_stride,
                                      bool scale_bias_last, bool is_bf16_out, bool no_bag,
                                      int output_bit_rate) {
  using Fn = typename EmbeddingSpMDMKernelSignature<uint8_t, IndexType, OffsetType, OutType>::Type;
  if (input_bit_rate != 2 && input_bit_rate != 4)
    throw std::invalid_argument("input_bit_rate must be 2 or 4, got " +
                                std::to_string(input_bit_rate));
  if (block_size < 0)
    throw std::invalid_argument("block_size must be >= 0, got " + std::to_string(block_size));
  constexpr int kOutBits = 8 * sizeof(OutType);
  if (output_bit_rate == -1) output_bit_rate = kOutBits;
  const RowFormat format = input_bit_rate == 4 ? RowFormat::kU4 : RowFormat::kU2;

  if constexpr (std::is_same_v<OutType, uint8_t>) {
    // FBGEMM's only 8-bit output: 4-bit rows copied whole (sequential TBE).
    if (!no_bag || input_bit_rate != 4 || output_bit_rate != 4)
      throw std::invalid_argument(
          "output_bit_rate: OutType uint8_t needs no_bag with input_bit_rate = "
          "output_bit_rate = 4, got input_bit_rate " + std::to_string(input_bit_rate) +
          ", output_bit_rate " + std::to_string(output_bit_rate));
    const int64_t row = detail::row_data_bytes(format, block_size) + 4;
    if (input_stride == -1) input_stride = row;
    if (input_stride < row)
      throw std::invalid_argument("input_stride must be -1 or >= " + std::to_string(row) +
                                  ", got " + std::to_string(input_stride));
    return Fn([input_stride](int64_t output_size, int64_t, int64_t data_size,
                             const uint8_t* input, const IndexType* indices, const OffsetType*,
                             const float*, uint8_t* out) {
      if (output_size < 0 || data_size < 0) return false;
      for (int64_t m = 0; m < output_size; ++m)
        if (indices[m] < 0 || indices[m] >= data_size) return false;
      for (int64_t m = 0; m < output_size; ++m)
        std::memcpy(out + m * input_stride, input + indices[m] * input_stride,
                    static_cast<size_t>(input_stride));
      return true;
    });
  } else {
    if (output_bit_rate != kOutBits)
      throw std::invalid_argument("output_bit_rate must be -1 or " + std::to_string(kOutBits) +
                                  " for this OutType, got " + std::to_string(output_bit_rate));
    if (no_bag) {
      // FBGEMM's reference dequantizes no bag-less 2- / 4-bit rows: it returns false.
      return Fn([](int64_t, int64_t, int64_t, const uint8_t*, const IndexType*,
                   const OffsetType*, const float*, OutType*) { return false; });
    }
    const OutFormat out = std::is_same_v<OutType, float> ? OutFormat::kF32
                          : is_bf16_out                  ? OutFormat::kBF16
                                                         : OutFormat::kF16;
    const BagPlan plan = detail::make_bag_plan(
        format, block_size, scale_bias_last, input_stride, output_stride, out, sizeof(OutType),
        has_weight, normalize_by_lengths, prefetch, is_weight_positional, use_offsets, false);
    return Fn([plan](int64_t output_size, int64_t index_size, int64_t data_size,
                     const uint8_t* input, const IndexType* indices, const OffsetType* ol,
                     const float* weights, OutType* out) {
      return detail::run_bags(plan, output_size, index_size, data_size, input, indices, ol,
                              weights, out);
    });
  }
}

template <typename IndexType, typename OffsetType, typename OutType>
typename EmbeddingSpMDMKernelSignature<uint8_t, IndexType, OffsetType, OutType>::Type
GenerateEmbeddingSpMDMNBit(int bit_rate, int64_t block_size, bool has_weight,
                           bool normalize_by_lengths, int prefetch, bool is_weight_positional,
                           bool use_offsets) {
  return GenerateEmbeddingSpMDMNBitWithStrides<IndexType, OffsetType, OutType, false>(
      bit_rate, block_size, has_weight, normalize_by_lengths, prefetch, is_weight_positional,
      use_offsets);
}

#define QUIRE_NBIT_STRIDES(Index, Offset, Out, TL)                                            \
  template EmbeddingSpMDMKernelSignature<uint8_t, Index, Offset, Out>::Type                   \
  GenerateEmbeddingSpMDMNBitWithStrides<Index, Offset, Out, TL>(                              \
      int, int64_t, bool, bool, int, bool, bool, int64_t, int64_t, bool, bool, bool, int);
#define QUIRE_NBIT_OUT(Index, Offset, Out)                                                    \
  QUIRE_NBIT_STRIDES(Index, Offset, Out, false)                                               \
  QUIRE_NBIT_STRIDES(Index, Offset, Out, true)                                                \
  template EmbeddingSpMDMKernelSignature<uint8_t, Index, Offset, Out>::Type                   \
  GenerateEmbeddingSpMDMNBit<Index, Offset, Out>(int, int64_t, bool, bool, int, bool, bool);
#define QUIRE_NBIT_INDEX(Index, Offset)                                                       \
  QUIRE_NBIT_OUT(Index, Offset, float)                                                        \
  QUIRE_NBIT_OUT(Index, Offset, uint16_t)                                                     \
  QUIRE_NBIT_OUT(Index, Offset, float16)                                                      \
  QUIRE_NBIT_STRIDES(Index, Offset, uint8_t, false)                                           \
  QUIRE_NBIT_STRIDES(Index, Offset, uint8_t, true)
QUIRE_NBIT_INDEX(int32_t, int32_t)
QUIRE_NBIT_INDEX(int32_t, int64_t)
QUIRE_NBIT_INDEX(int64_t, int32_t)
QUIRE_NBIT_INDEX(int64_t, int64_t)
#undef QUIRE_NBIT_INDEX
#undef QUIRE_NBIT_OUT
#undef QUIRE_NBIT_STRIDES

}  // namespace quire
