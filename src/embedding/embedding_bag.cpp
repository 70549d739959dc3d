// The generators of quire/EmbeddingBag.h for float, fp16, bf16 and 8-bit tables: the
// element types become a plan (bag_plan.h) and the returned callable runs it.
#include <algorithm>
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

namespace {

template <class T>
constexpr bool is_16bit = std::is_same_v<T, uint16_t> || std::is_same_v<T, float16>;

template <class OutType>
OutFormat out_format(bool is_bf16_out) {
  if constexpr (std::is_same_v<OutType, float>) return OutFormat::kF32;
  return is_bf16_out ? OutFormat::kBF16 : OutFormat::kF16;
}

// 8-bit rows copied whole (no_bag, OutType uint8_t): min(input_stride, output_stride)
// bytes of each row, FBGEMM's reference's rule.
template <class Index>
bool copy_rows(int64_t output_size, int64_t data_size, const uint8_t* table, int64_t in_stride,
               const Index* indices, uint8_t* out, int64_t out_stride, int64_t width) {
  if (output_size < 0 || data_size < 0) return false;
  for (int64_t m = 0; m < output_size; ++m)
    if (indices[m] < 0 || indices[m] >= data_size) return false;
  for (int64_t m = 0; m < output_size; ++m)
    std::memcpy(out + m * out_stride, table + indices[m] * in_stride, static_cast<size_t>(width));
  return true;
}

}  // namespace

template <typename InType, typename IndexType, typename OffsetType, typename OutType,
          bool THREAD_LOCAL>
typename EmbeddingSpMDMKernelSignature<InType, IndexType, OffsetType, OutType>::Type
GenerateEmbeddingSpMDMWithStrides(int64_t block_size, bool has_weight, bool normalize_by_lengths,
                                  int prefetch, bool is_weight_positional, bool use_offsets,
                                  int64_t output_stride, int64_t input_stride,
                                  bool scale_bias_last, bool no_bag, bool is_bf16_out,
                                  bool is_bf16_in) {
  static_assert(std::is_same_v<InType, float> || is_16bit<InType> ||
                std::is_same_v<InType, uint8_t>);
  using Fn = typename EmbeddingSpMDMKernelSignature<InType, IndexType, OffsetType, OutType>::Type;
  if constexpr (std::is_same_v<OutType, uint8_t>) {
    if (!std::is_same_v<InType, uint8_t> || !no_bag)
      throw std::invalid_argument(
          "GenerateEmbeddingSpMDMWithStrides: OutType uint8_t copies 8-bit rows and needs "
          "InType uint8_t and no_bag = true");
    if (block_size < 0)
      throw std::invalid_argument("block_size must be >= 0, got " + std::to_string(block_size));
    // Bytes are copied, not dequantized: any stride >= 0 will do (FBGEMM's tests copy
    // rows of bytes with no scale and bias).
    if (input_stride == -1) input_stride = block_size + (scale_bias_last ? 8 : 4);
    if (output_stride == -1) output_stride = block_size;
    if (input_stride < 0)
      throw std::invalid_argument("input_stride must be -1 or >= 0, got " +
                                  std::to_string(input_stride));
    if (output_stride < 0)
      throw std::invalid_argument("output_stride must be -1 or >= 0, got " +
                                  std::to_string(output_stride));
    const int64_t width = std::min(input_stride, output_stride);
    return Fn([=](int64_t output_size, int64_t, int64_t data_size, const InType* input,
                  const IndexType* indices, const OffsetType*, const float*, OutType* out) {
      return copy_rows(output_size, data_size, reinterpret_cast<const uint8_t*>(input),
                       input_stride, indices, reinterpret_cast<uint8_t*>(out), output_stride,
                       width);
    });
  } else {
    RowFormat format = RowFormat::kF32;
    if constexpr (is_16bit<InType>) format = is_bf16_in ? RowFormat::kBF16 : RowFormat::kF16;
    if constexpr (std::is_same_v<InType, uint8_t>)
      format = scale_bias_last ? RowFormat::kU8 : RowFormat::kU8Half;
    const BagPlan plan = detail::make_bag_plan(
        format, block_size, scale_bias_last, input_stride, output_stride,
        out_format<OutType>(is_bf16_out), sizeof(OutType), has_weight, normalize_by_lengths,
        prefetch, is_weight_positional, use_offsets, no_bag);
    return Fn([plan](int64_t output_size, int64_t index_size, int64_t data_size,
                     const InType* input, const IndexType* indices, const OffsetType* ol,
                     const float* weights, OutType* out) {
      return detail::run_bags(plan, output_size, index_size, data_size,
                              reinterpret_cast<const uint8_t*>(input), indices, ol, weights, out);
    });
  }
}

template <typename InType, typename IndexType, typename OffsetType, typename OutType,
          bool THREAD_LOCAL>
typename EmbeddingSpMDMKernelSignature<InType, IndexType, OffsetType, OutType>::Type
GenerateEmbeddingSpMDM(int64_t block_size, bool has_weight, bool normalize_by_lengths,
                       int prefetch, bool is_weight_positional, bool use_offsets,
                       bool is_bf16_out, bool is_bf16_in) {
  return GenerateEmbeddingSpMDMWithStrides<InType, IndexType, OffsetType, OutType, THREAD_LOCAL>(
      block_size, has_weight, normalize_by_lengths, prefetch, is_weight_positional, use_offsets,
      -1, -1, true, false, is_bf16_out, is_bf16_in);
}

#define QUIRE_EMBEDDING_STRIDES(In, Index, Offset, Out, TL)                                   \
  template EmbeddingSpMDMKernelSignature<In, Index, Offset, Out>::Type                        \
  GenerateEmbeddingSpMDMWithStrides<In, Index, Offset, Out, TL>(                              \
      int64_t, bool, bool, int, bool, bool, int64_t, int64_t, bool, bool, bool, bool);
#define QUIRE_EMBEDDING_PLAIN(In, Index, Offset, Out, TL)                                     \
  template EmbeddingSpMDMKernelSignature<In, Index, Offset, Out>::Type                        \
  GenerateEmbeddingSpMDM<In, Index, Offset, Out, TL>(int64_t, bool, bool, int, bool, bool,    \
                                                     bool, bool);
#define QUIRE_EMBEDDING_TL(In, Index, Offset, Out)                                            \
  QUIRE_EMBEDDING_STRIDES(In, Index, Offset, Out, false)                                      \
  QUIRE_EMBEDDING_STRIDES(In, Index, Offset, Out, true)
#define QUIRE_EMBEDDING_OUT(In, Index, Offset)                                                \
  QUIRE_EMBEDDING_TL(In, Index, Offset, float)                                                \
  QUIRE_EMBEDDING_TL(In, Index, Offset, uint16_t)                                             \
  QUIRE_EMBEDDING_TL(In, Index, Offset, float16)                                              \
  QUIRE_EMBEDDING_TL(In, Index, Offset, uint8_t)                                              \
  QUIRE_EMBEDDING_PLAIN(In, Index, Offset, float, false)                                      \
  QUIRE_EMBEDDING_PLAIN(In, Index, Offset, float, true)                                       \
  QUIRE_EMBEDDING_PLAIN(In, Index, Offset, uint16_t, false)                                   \
  QUIRE_EMBEDDING_PLAIN(In, Index, Offset, uint16_t, true)                                    \
  QUIRE_EMBEDDING_PLAIN(In, Index, Offset, float16, false)                                    \
  QUIRE_EMBEDDING_PLAIN(In, Index, Offset, float16, true)
#define QUIRE_EMBEDDING_INDEX(In)                                                             \
  QUIRE_EMBEDDING_OUT(In, int32_t, int32_t)                                                   \
  QUIRE_EMBEDDING_OUT(In, int32_t, int64_t)                                                   \
  QUIRE_EMBEDDING_OUT(In, int64_t, int32_t)                                                   \
  QUIRE_EMBEDDING_OUT(In, int64_t, int64_t)
QUIRE_EMBEDDING_INDEX(float)
QUIRE_EMBEDDING_INDEX(uint16_t)
QUIRE_EMBEDDING_INDEX(float16)
QUIRE_EMBEDDING_INDEX(uint8_t)
#undef QUIRE_EMBEDDING_INDEX
#undef QUIRE_EMBEDDING_OUT
#undef QUIRE_EMBEDDING_TL
#undef QUIRE_EMBEDDING_PLAIN
#undef QUIRE_EMBEDDING_STRIDES

}  // namespace quire
