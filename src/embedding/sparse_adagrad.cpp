// The generators of quire/SparseAdagrad.h: argument checks, the path's loops picked once
// (adagrad_simd.h), and for the fused form the call's bags and indices checked before
// anything is written.
#include "quire/SparseAdagrad.h"

#include <stdexcept>
#include <string>
#include <type_traits>

#include "cpu/isa_record.h"
#include "embedding/adagrad_kernels.h"
#include "embedding/adagrad_rng.h"
#include "embedding/bag_plan.h"
#include "quire/FloatConversion.h"
#include "quire/Utils.h"

namespace quire {

namespace {

void check_block_size(int block_size) {
  if (block_size < 1)
    throw std::invalid_argument("block_size must be >= 1, got " + std::to_string(block_size));
}

}  // namespace

template <typename IndexType>
typename SparseAdaGradSignature<IndexType>::Type GenerateSparseAdaGrad(int block_size,
                                                                       bool rowwise,
                                                                       int prefetch,
                                                                       bool use_weight_decay) {
  static_assert(std::is_same_v<IndexType, int32_t> || std::is_same_v<IndexType, int64_t>);
  check_block_size(block_size);
  const detail::SparseAdagradFn fn =
      detail::active_isa().adagrad->sparse[rowwise ? 1 : 0][sizeof(IndexType) == 8 ? 1 : 0];
  const int ahead = prefetch > 0 ? prefetch : 0;
  return [=](int num_rows, uint64_t param_size, float* w, const float* g, float* h,
             const IndexType* indices, float epsilon, float lr, float weight_decay,
             const double* counter, int64_t counter_halflife) {
    if (num_rows <= 0) return num_rows;
    detail::SparseAdagradJob j{};
    j.num_rows = num_rows;
    j.block_size = block_size;
    j.table_rows = param_size / static_cast<uint64_t>(block_size);
    j.w = w;
    j.g = g;
    j.h = h;
    j.indices = indices;
    j.epsilon = epsilon;
    j.lr = lr;
    j.weight_decay = weight_decay;
    j.counter = counter;
    j.counter_halflife = counter_halflife;
    j.use_weight_decay = use_weight_decay;
    j.prefetch = ahead;
    return fn(j);
  };
}

template <typename IndexType, typename OffsetType, typename DataType>
typename RowWiseSparseAdaGradFusedSignature<IndexType, OffsetType, DataType>::Type
GenerateRowWiseSparseAdaGradFused(int block_size, int prefetch, bool use_offsets,
                                  bool use_stochastic_rounding, int grad_stride) {
  static_assert(std::is_same_v<IndexType, int32_t> || std::is_same_v<IndexType, int64_t>);
  static_assert(std::is_same_v<OffsetType, int32_t> || std::is_same_v<OffsetType, int64_t>);
  constexpr bool kHalf = std::is_same_v<DataType, float16>;
  static_assert(kHalf || std::is_same_v<DataType, float>);
  check_block_size(block_size);
  if (grad_stride == -1) grad_stride = block_size;
  if (grad_stride < block_size)
    throw std::invalid_argument("grad_stride must be -1 or >= block_size " +
                                std::to_string(block_size) + ", got " +
                                std::to_string(grad_stride));
  const detail::FusedAdagradFn fn =
      detail::active_isa()
          .adagrad->fused[kHalf][sizeof(IndexType) == 8 ? 1 : 0][sizeof(OffsetType) == 8 ? 1 : 0];
  // The random stream is as wide as FBGEMM's kernel's vectors on this CPU (16 lanes with
  // AVX-512, else 8), whichever path quire runs: the same bits on every path.
  const int rng_lanes = fbgemmHasAvx512Support() ? 16 : 8;
  const bool rounding = kHalf && use_stochastic_rounding;
  const int ahead = prefetch > 0 ? prefetch : 0;
  return [=](int64_t output_size, int64_t index_size, int64_t data_size, DataType* w,
             const float* g, float* h, const IndexType* indices, const OffsetType* ol,
             float epsilon, float lr) {
    if (output_size < 0 || index_size < 0 || data_size < 0) return false;
    if (!detail::bags_cover(ol, use_offsets, output_size, index_size)) return false;
    for (int64_t i = 0; i < index_size; ++i)
      if (indices[i] < 0 || indices[i] >= data_size) return false;
    detail::FusedAdagradJob j{};
    j.block_size = block_size;
    j.grad_stride = grad_stride;
    j.output_size = output_size;
    j.index_size = index_size;
    j.w = w;
    j.g = g;
    j.h = h;
    j.indices = indices;
    j.offsets_or_lengths = ol;
    j.use_offsets = use_offsets;
    j.epsilon = epsilon;
    j.lr = lr;
    j.prefetch = ahead;
    j.rng = rounding ? detail::stochastic_rounding_state() : nullptr;
    j.rng_lanes = rng_lanes;
    fn(j);
    return true;
  };
}

template SparseAdaGradSignature<int32_t>::Type GenerateSparseAdaGrad<int32_t>(int, bool, int,
                                                                              bool);
template SparseAdaGradSignature<int64_t>::Type GenerateSparseAdaGrad<int64_t>(int, bool, int,
                                                                              bool);

#define QUIRE_ADAGRAD_FUSED(Index, Offset, Data)                                              \
  template RowWiseSparseAdaGradFusedSignature<Index, Offset, Data>::Type                      \
  GenerateRowWiseSparseAdaGradFused<Index, Offset, Data>(int, int, bool, bool, int);
#define QUIRE_ADAGRAD_FUSED_DATA(Index, Offset) \
  QUIRE_ADAGRAD_FUSED(Index, Offset, float)     \
  QUIRE_ADAGRAD_FUSED(Index, Offset, float16)
QUIRE_ADAGRAD_FUSED_DATA(int32_t, int32_t)
QUIRE_ADAGRAD_FUSED_DATA(int32_t, int64_t)
QUIRE_ADAGRAD_FUSED_DATA(int64_t, int32_t)
QUIRE_ADAGRAD_FUSED_DATA(int64_t, int64_t)
#undef QUIRE_ADAGRAD_FUSED_DATA
#undef QUIRE_ADAGRAD_FUSED

}  // namespace quire
