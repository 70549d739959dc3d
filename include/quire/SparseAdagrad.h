// Sparse AdaGrad updates of embedding tables (FBGEMM's optimizers of
// fbgemm/FbgemmEmbedding.h, under the same names): each gradient row updates the table
// row its index names, in index order (an index met twice is updated twice). The exact
// formulas, the stochastic rounding of fp16 weights and the bad-input returns:
// docs/embedding.md, "Optimizers".
//
// A generator checks its arguments (std::invalid_argument naming the parameter) and picks
// the active instruction-set path's loops once. The callables hold no mutable state
// (stochastic rounding draws from a per-thread generator), so threads may share one.
#pragma once

#include <cstdint>
#include <functional>

namespace quire {

// Returns the number of rows updated: num_rows, or the position of the first row whose
// index is outside the table (rows before it are updated, it and those after are not).
template <typename IndexType>
class SparseAdaGradSignature {
 public:
  // w, h: param_size floats (row-wise: h has one float per table row); g: num_rows rows
  // of block_size. counter (may be null): per-row counts for the frequency-adjusted
  // decay weight_decay * counter_halflife / counter[idx]; used only where the kernel was
  // generated with use_weight_decay.
  using Type = std::function<int(int num_rows, std::uint64_t param_size, float* w,
                                 const float* g, float* h, const IndexType* indices,
                                 float epsilon, float lr, float weight_decay,
                                 const double* counter, std::int64_t counter_halflife)>;
};

// block_size >= 1 floats per row; rowwise: one momentum per row (the mean of the squared
// gradient row) instead of one per element. prefetch: rows prefetched this many indices
// ahead (<= 0: none).
template <typename IndexType>
typename SparseAdaGradSignature<IndexType>::Type GenerateSparseAdaGrad(
    int block_size, bool rowwise = false, int prefetch = 16, bool use_weight_decay = false);

// Row-wise sparse AdaGrad fused with the gradient of a bag sum: bag i's gradient row
// g[i * grad_stride ..] updates every row of bag i. DataType float or float16 weights.
// Returns false for bad bags or indices, having written nothing.
template <typename IndexType, typename OffsetType = std::int32_t, typename DataType = float>
class RowWiseSparseAdaGradFusedSignature {
 public:
  using Type = std::function<bool(std::int64_t output_size, std::int64_t index_size,
                                  std::int64_t data_size, DataType* w, const float* g, float* h,
                                  const IndexType* indices, const OffsetType* offsets_or_lengths,
                                  float epsilon, float lr)>;
};

// grad_stride: floats between gradient rows (-1: block_size). use_stochastic_rounding:
// fp16 weights get random bits added below their last place before truncation.
template <typename IndexType, typename OffsetType = std::int32_t, typename DataType = float>
typename RowWiseSparseAdaGradFusedSignature<IndexType, OffsetType, DataType>::Type
GenerateRowWiseSparseAdaGradFused(int block_size, int prefetch = 16, bool use_offsets = true,
                                  bool use_stochastic_rounding = true, int grad_stride = -1);

}  // namespace quire
