// Row-wise sparse (pruned) tables: GenerateEmbeddingSpMDMRowWiseSparse,
// GenerateEmbeddingSpMDMNBitRowWiseSparse and compressed_indices_remap. A call maps its
// indices through the compressed index table into a per-thread buffer (grown, never
// shrunk: no allocation once warm) and runs the dense bag loop on the result, where -1
// is a pruned row that is skipped.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "embedding/bag_plan.h"
#include "quire/EmbeddingBag.h"
#include "quire/FloatConversion.h"

namespace quire {

using detail::BagPlan;
using detail::OutFormat;
using detail::RowFormat;

namespace {

template <class Index, class Offset>
bool run_pruned(const BagPlan& plan, int64_t output_size, int64_t index_size,
                int64_t uncompressed_size, const uint8_t* input, const Index* indices,
                const Offset* ol, const float* weights, float* out, const int32_t* mapping) {
  if (output_size < 0 || index_size < 0 || uncompressed_size < 0) return false;
  if (!detail::bags_cover(ol, plan.use_offsets, output_size, index_size)) return false;
  thread_local std::vector<int32_t> compressed;
  if (compressed.size() < static_cast<size_t>(index_size))
    compressed.resize(static_cast<size_t>(index_size));
  // The compressed table's size is not passed: the rows read are the ones mapped to.
  int64_t rows = 0;
  for (int64_t i = 0; i < index_size; ++i) {
    const int64_t u = indices[i];
    if (u < 0 || u >= uncompressed_size) return false;
    const int32_t c = mapping[u];
    if (c < -1) return false;
    compressed[static_cast<size_t>(i)] = c;
    rows = std::max<int64_t>(rows, int64_t{c} + 1);
  }
  detail::run_checked_bags(plan, output_size, index_size, rows, rows - 1, input,
                           compressed.data(), ol, weights, out);
  return true;
}

template <class InType, class Index, class Offset>
auto pruned_kernel(const BagPlan& plan) {
  using Fn = typename EmbeddingSpMDMRowWiseSparseKernelSignature<InType, Index, Offset>::Type;
  return Fn([plan](int64_t output_size, int64_t index_size, int64_t uncompressed_size,
                   const InType* input, const Index* indices, const Offset* ol,
                   const float* weights, float* out, const int32_t* mapping) {
    return run_pruned(plan, output_size, index_size, uncompressed_size,
                      reinterpret_cast<const uint8_t*>(input), indices, ol, weights, out,
                      mapping);
  });
}

}  // namespace

template <typename InType, typename IndexType, typename OffsetType>
typename EmbeddingSpMDMRowWiseSparseKernelSignature<InType, IndexType, OffsetType>::Type
GenerateEmbeddingSpMDMRowWiseSparse(int64_t block_size, bool has_weight,
                                    bool normalize_by_lengths, int prefetch,
                                    bool is_weight_positional, bool use_offsets) {
  RowFormat format = RowFormat::kF32;
  if constexpr (std::is_same_v<InType, uint8_t>) format = RowFormat::kU8;
  if constexpr (std::is_same_v<InType, uint16_t> || std::is_same_v<InType, float16>)
    format = RowFormat::kF16;
  BagPlan plan = detail::make_bag_plan(format, block_size, true, -1, -1, OutFormat::kF32,
                                       sizeof(float), has_weight, normalize_by_lengths, prefetch,
                                       is_weight_positional, use_offsets, false);
  plan.skip_minus_one = true;
  return pruned_kernel<InType, IndexType, OffsetType>(plan);
}

template <typename IndexType, typename OffsetType>
typename EmbeddingSpMDMRowWiseSparseKernelSignature<uint8_t, IndexType, OffsetType>::Type
GenerateEmbeddingSpMDMNBitRowWiseSparse(int bit_rate, int64_t block_size, bool has_weight,
                                        bool normalize_by_lengths, int prefetch,
                                        bool is_weight_positional, bool use_offsets) {
  if (bit_rate != 2 && bit_rate != 4)
    throw std::invalid_argument("bit_rate must be 2 or 4, got " + std::to_string(bit_rate));
  BagPlan plan = detail::make_bag_plan(bit_rate == 4 ? RowFormat::kU4 : RowFormat::kU2,
                                       block_size, true, -1, -1, OutFormat::kF32, sizeof(float),
                                       has_weight, normalize_by_lengths, prefetch,
                                       is_weight_positional, use_offsets, false);
  plan.skip_minus_one = true;
  return pruned_kernel<uint8_t, IndexType, OffsetType>(plan);
}

template <typename IndexType>
void compressed_indices_remap(int32_t offsets_numel, const IndexType* indices,
                              const int32_t* compressed_indices_mapping,
                              const IndexType* offsets, const float* weights,
                              IndexType* out_indices, IndexType* out_offsets,
                              float* out_weights) {
  if (offsets_numel < 1)
    throw std::invalid_argument("offsets_numel must be >= 1, got " +
                                std::to_string(offsets_numel));
  out_offsets[0] = offsets[0];
  IndexType kept = 0;
  for (int32_t b = 1; b < offsets_numel; ++b) {
    for (IndexType k = offsets[b - 1]; k < offsets[b]; ++k) {
      const int32_t c = compressed_indices_mapping[indices[k]];
      if (c == -1) continue;
      out_indices[kept] = c;
      if (weights) out_weights[kept] = weights[k];
      ++kept;
    }
    out_offsets[b] = kept;
  }
}

#define QUIRE_PRUNED(In, Index, Offset)                                                       \
  template EmbeddingSpMDMRowWiseSparseKernelSignature<In, Index, Offset>::Type                \
  GenerateEmbeddingSpMDMRowWiseSparse<In, Index, Offset>(int64_t, bool, bool, int, bool,      \
                                                         bool);
#define QUIRE_PRUNED_INDEX(Index, Offset)                                                     \
  QUIRE_PRUNED(float, Index, Offset)                                                          \
  QUIRE_PRUNED(uint16_t, Index, Offset)                                                       \
  QUIRE_PRUNED(float16, Index, Offset)                                                        \
  QUIRE_PRUNED(uint8_t, Index, Offset)                                                        \
  template EmbeddingSpMDMRowWiseSparseKernelSignature<uint8_t, Index, Offset>::Type           \
  GenerateEmbeddingSpMDMNBitRowWiseSparse<Index, Offset>(int, int64_t, bool, bool, int, bool, \
                                                         bool);
QUIRE_PRUNED_INDEX(int32_t, int32_t)
QUIRE_PRUNED_INDEX(int32_t, int64_t)
QUIRE_PRUNED_INDEX(int64_t, int32_t)
QUIRE_PRUNED_INDEX(int64_t, int64_t)
#undef QUIRE_PRUNED_INDEX
#undef QUIRE_PRUNED

template void compressed_indices_remap<int32_t>(int32_t, const int32_t*, const int32_t*,
                                                const int32_t*, const float*, int32_t*, int32_t*,
                                                float*);
template void compressed_indices_remap<int64_t>(int32_t, const int64_t*, const int32_t*,
                                                const int64_t*, const float*, int64_t*, int64_t*,
                                                float*);

}  // namespace quire
