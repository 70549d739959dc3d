// What a generator decides once (the kernels, the row layout, the output form) and the
// per-call loop over bags and column chunks that runs on it (bag_plan.cpp).
#pragma once

#include <cstdint>

#include "embedding/embedding_kernels.h"

namespace quire::detail {

struct BagPlan {
  const EmbeddingKernels* kernels;
  RowFormat format;
  int64_t block_size;
  int64_t stride;       // bytes between table rows
  int64_t data_off;     // bytes from a row's start to its first element
  int64_t sb_off;       // bytes from a row's start to its scale and bias
  int64_t row_bytes;    // bytes of a row without stride padding
  int64_t out_stride;   // elements between output rows
  OutFormat out_format;
  int out_bytes;        // bytes per output element
  bool has_weight, normalize, positional, use_offsets, skip_minus_one, no_bag;
  int prefetch;
  int fp8_shift;    // kF8 rows only (BagJob)
  float fp8_scale;
};

// The plan of a table of `format` rows, block_size elements each; input_stride and
// output_stride as the generators take them (-1: packed). Throws std::invalid_argument
// naming the bad parameter.
BagPlan make_bag_plan(RowFormat format, int64_t block_size, bool scale_bias_last,
                      int64_t input_stride, int64_t output_stride, OutFormat out_format,
                      int out_bytes, bool has_weight, bool normalize, int prefetch,
                      bool positional, bool use_offsets, bool no_bag);

// Bytes a row's elements occupy (rounded up to whole bytes).
int64_t row_data_bytes(RowFormat format, int64_t block_size);

// One call of a generated kernel; false (nothing written) for bad indices or bag lengths,
// as docs/embedding.md lists. Offset is int32_t or int64_t.
template <class Index, class Offset>
bool run_bags(const BagPlan& plan, int64_t output_size, int64_t index_size, int64_t data_size,
              const uint8_t* table, const Index* indices, const Offset* offsets_or_lengths,
              const float* weights, void* out);

// The same over indices already checked to lie in [-1, data_size) (-1 only where
// plan.skip_minus_one), the largest max_row (-1: none), with bag lengths already checked:
// the row-wise sparse kernels.
template <class Index, class Offset>
void run_checked_bags(const BagPlan& plan, int64_t output_size, int64_t index_size,
                      int64_t data_size, int64_t max_row, const uint8_t* table,
                      const Index* indices,
                      const Offset* offsets_or_lengths, const float* weights, void* out);

// The bag lengths cover exactly index_size indices, none negative.
template <class Offset>
bool bags_cover(const Offset* offsets_or_lengths, bool use_offsets, int64_t output_size,
                int64_t index_size);

}  // namespace quire::detail
