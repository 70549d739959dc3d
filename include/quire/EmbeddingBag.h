// Embedding bags (FBGEMM's fbgemm/FbgemmEmbedding.h, under the same names): each output
// row is the sum of a bag of table rows, optionally weighted and divided by the bag's
// length. Tables hold float, fp16 or bf16 rows, 8-bit rows with a float scale and bias
// per row (or fp16, at the row's start), or 2- / 4-bit rows with an fp16 scale and bias.
// The exact numbers, the bad-input returns and the row layouts: docs/embedding.md.
//
// A generator checks its arguments (std::invalid_argument naming the parameter), picks
// the kernels of the active instruction-set path once and returns a callable. A call
//   kernel(output_size, index_size, data_size, table, indices, offsets_or_lengths,
//          weights, out)
// returns false, having written nothing, for an index outside [0, data_size) (-1 is a
// skipped row where scale_bias_last is false), a negative bag length, or bags that do
// not cover exactly index_size indices. It never reads outside the table's data_size
// rows. The callable holds no mutable state: one may be called from many threads at once.
#pragma once

#include <cstdint>
#include <functional>

#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

// Element types: InType float, uint16_t (fp16, or bf16 where is_bf16_in), float16 or
// uint8_t (8-bit rows); OutType float, uint16_t (fp16, or bf16 where is_bf16_out),
// float16, or uint8_t (only to copy 8-bit rows with no_bag).
template <typename InType, typename IndexType, typename OffsetType = std::int32_t,
          typename OutType = float>
class EmbeddingSpMDMKernelSignature {
 public:
  // Bag i covers indices [offsets[i], offsets[i+1]) (use_offsets; offsets has
  // output_size + 1 entries) or the next lengths[i] indices. Per bag and column k:
  //   out[i][k] = sum_j w_j * row(indices[j])[k], then / len if normalize_by_lengths.
  using Type = std::function<bool(std::int64_t output_size, std::int64_t index_size,
                                  std::int64_t data_size, const InType* input,
                                  const IndexType* indices, const OffsetType* offsets_or_lengths,
                                  const float* weights, OutType* out)>;
};

// prefetch: how many indices ahead rows are prefetched (0: none). is_weight_positional:
// the weight of a bag's j-th row is weights[j] instead of weights[its index position].
template <typename InType, typename IndexType, typename OffsetType = std::int32_t,
          typename OutType = float, bool THREAD_LOCAL = false>
typename EmbeddingSpMDMKernelSignature<InType, IndexType, OffsetType, OutType>::Type
GenerateEmbeddingSpMDM(std::int64_t block_size, bool has_weight, bool normalize_by_lengths,
                       int prefetch = 16, bool is_weight_positional = false,
                       bool use_offsets = true, bool is_bf16_out = false,
                       bool is_bf16_in = false);

// output_stride: elements between output rows (-1: block_size). input_stride: elements
// (bytes for 8-bit rows) between table rows (-1: the row's size). scale_bias_last = false:
// 8-bit rows start with an fp16 scale and bias, and index -1 is a skipped (pruned) row.
// no_bag: output row i is row indices[i] times weights[i] (offsets unused).
// THREAD_LOCAL changes nothing in quire (FBGEMM: a per-thread JIT cache).
template <typename InType, typename IndexType, typename OffsetType = std::int32_t,
          typename OutType = float, bool THREAD_LOCAL = false>
typename EmbeddingSpMDMKernelSignature<InType, IndexType, OffsetType, OutType>::Type
GenerateEmbeddingSpMDMWithStrides(std::int64_t block_size, bool has_weight,
                                  bool normalize_by_lengths, int prefetch = 16,
                                  bool is_weight_positional = false, bool use_offsets = true,
                                  std::int64_t output_stride = -1, std::int64_t input_stride = -1,
                                  bool scale_bias_last = true, bool no_bag = false,
                                  bool is_bf16_out = false, bool is_bf16_in = false);

// 2- or 4-bit rows (bit_rate): element j in byte j / (8 / bit_rate) at bit
// (j % (8 / bit_rate)) * bit_rate, then an fp16 scale and bias (or first, see above).
template <typename IndexType, typename OffsetType = std::int32_t, typename OutType = float>
typename EmbeddingSpMDMKernelSignature<std::uint8_t, IndexType, OffsetType, OutType>::Type
GenerateEmbeddingSpMDMNBit(int bit_rate, std::int64_t block_size, bool has_weight,
                           bool normalize_by_lengths, int prefetch = 16,
                           bool is_weight_positional = false, bool use_offsets = true);

// input_stride in bytes. output_bit_rate: -1 or 8 * sizeof(OutType); 4 with OutType
// uint8_t and no_bag copies 4-bit rows whole (input_stride bytes each). no_bag with any
// other output is refused per call (returns false), as FBGEMM's reference does.
template <typename IndexType, typename OffsetType = std::int32_t, typename OutType = float,
          bool THREAD_LOCAL = false>
typename EmbeddingSpMDMKernelSignature<std::uint8_t, IndexType, OffsetType, OutType>::Type
GenerateEmbeddingSpMDMNBitWithStrides(int input_bit_rate, std::int64_t block_size,
                                      bool has_weight, bool normalize_by_lengths,
                                      int prefetch = 16, bool is_weight_positional = false,
                                      bool use_offsets = true, std::int64_t output_stride = -1,
                                      std::int64_t input_stride = -1, bool scale_bias_last = true,
                                      bool is_bf16_out = false, bool no_bag = false,
                                      int output_bit_rate = -1);

// 8-bit float rows (FloatToFloat8_ref's format: exponent_bits, 7 - exponent_bits mantissa
// bits, exponent_bias; no scale or bias), input_stride bytes apart (-1: block_size).
// weights are used wherever not null (no has_weight flag). OutType float, or uint16_t /
// float16 (fp16, or bf16 with is_bf16_out).
template <typename IndexType, typename OffsetType = std::int32_t, typename OutType = float>
typename EmbeddingSpMDMKernelSignature<std::uint8_t, IndexType, OffsetType, OutType>::Type
GenerateEmbeddingSpMDMFP8WithStrides(std::int64_t block_size, bool normalize_by_lengths,
                                     bool is_weight_positional = false, bool use_offsets = true,
                                     std::int64_t output_stride = -1,
                                     std::int64_t input_stride = -1, int exponent_bits = 4,
                                     int exponent_bias = 7, bool is_bf16_out = false);

// Row-wise sparse (pruned) tables: index i of the uncompressed table is row
// compressed_indices_table[i] of input, or no row at all where that is -1.
template <typename InType, typename IndexType, typename OffsetType = std::int32_t>
class EmbeddingSpMDMRowWiseSparseKernelSignature {
 public:
  using Type = std::function<bool(
      std::int64_t output_size, std::int64_t index_size, std::int64_t uncompressed_data_size,
      const InType* input, const IndexType* indices, const OffsetType* offsets_or_lengths,
      const float* weights, float* out, const std::int32_t* compressed_indices_table)>;
};

// InType float, uint16_t or float16 (fp16 rows), uint8_t (8-bit rows, scale and bias last).
template <typename InType, typename IndexType, typename OffsetType = std::int32_t>
typename EmbeddingSpMDMRowWiseSparseKernelSignature<InType, IndexType, OffsetType>::Type
GenerateEmbeddingSpMDMRowWiseSparse(std::int64_t block_size, bool has_weight,
                                    bool normalize_by_lengths, int prefetch = 16,
                                    bool is_weight_positional = false, bool use_offsets = true);

template <typename IndexType, typename OffsetType = std::int32_t>
typename EmbeddingSpMDMRowWiseSparseKernelSignature<std::uint8_t, IndexType, OffsetType>::Type
GenerateEmbeddingSpMDMNBitRowWiseSparse(int bit_rate, std::int64_t block_size, bool has_weight,
                                        bool normalize_by_lengths, int prefetch = 16,
                                        bool is_weight_positional = false,
                                        bool use_offsets = true);

namespace internal {
// Bags of one-element rows into float out[output_size], called directly: InType float,
// uint16_t (fp16, or bf16 with is_bf16), float16, or uint8_t (the byte's value, no scale).
// weights are used wherever not null. The same numbers and bad-input returns as the
// generators (nothing written on false).
template <typename InType, typename IndexType, typename OffsetType>
bool EmbeddingSpMDMBlockSize1_(std::int64_t output_size, std::int64_t index_size,
                               std::int64_t data_size, const InType* input,
                               const IndexType* indices, const OffsetType* offsets_or_lengths,
                               const float* weights, bool normalize_by_lengths, float* out,
                               bool is_weight_positional = false, bool use_offsets = true,
                               bool is_bf16 = false);
}  // namespace internal

// Rewrites offsets-form bags of an uncompressed table for its compressed (pruned) form:
// indices whose mapping is -1 are dropped (with their weights, when weights is not null),
// the others replaced by their mapping. offsets_numel = number of bags + 1; out_indices
// and out_weights need room for offsets[offsets_numel - 1] entries.
template <typename IndexType>
void compressed_indices_remap(std::int32_t offsets_numel, const IndexType* indices,
                              const std::int32_t* compressed_indices_mapping,
                              const IndexType* offsets, const float* weights,
                              IndexType* out_indices, IndexType* out_offsets, float* out_weights);

}  // namespace quire
QUIRE_API_END
