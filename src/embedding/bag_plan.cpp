// Embedding-bag plans and the per-call loop: argument checks first (a kernel never sees a
// bad index), then per bag and column chunk one call of the path's routine.
#include "embedding/bag_plan.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cpu/isa_record.h"

namespace quire::detail {

namespace {

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument(what); }

}  // namespace

int64_t row_data_bytes(RowFormat format, int64_t block_size) {
  return (block_size * bits_per_element(format) + 7) / 8;
}

BagPlan make_bag_plan(RowFormat format, int64_t block_size, bool scale_bias_last,
                      int64_t input_stride, int64_t output_stride, OutFormat out_format,
                      int out_bytes, bool has_weight, bool normalize, int prefetch,
                      bool positional, bool use_offsets, bool no_bag) {
  if (block_size < 0) bad("block_size must be >= 0, got " + std::to_string(block_size));
  const bool quant = format == RowFormat::kU8 || format == RowFormat::kU8Half ||
                     format == RowFormat::kU4 || format == RowFormat::kU2;
  const int64_t elem_bytes = bits_per_element(format) >= 8 ? bits_per_element(format) / 8 : 1;
  const int64_t data = row_data_bytes(format, block_size);
  const int64_t sb = format == RowFormat::kU8 ? 8 : quant ? 4 : 0;
  BagPlan p{};
  p.kernels = active_isa().embedding;
  p.format = format;
  p.block_size = block_size;
  p.data_off = scale_bias_last ? 0 : sb;
  p.sb_off = scale_bias_last ? data : 0;
  p.row_bytes = data + sb;
  // Strides: elements for float / fp16 / bf16 rows, bytes for quantized ones.
  const int64_t row_units = quant ? data + sb : block_size;
  if (input_stride == -1) input_stride = row_units;
  if (input_stride < row_units)
    bad("input_stride must be -1 or >= " + std::to_string(row_units) + " (the row), got " +
        std::to_string(input_stride));
  p.stride = quant ? input_stride : input_stride * elem_bytes;
  if (output_stride == -1) output_stride = block_size;
  if (output_stride < block_size)
    bad("output_stride must be -1 or >= block_size " + std::to_string(block_size) + ", got " +
        std::to_string(output_stride));
  p.out_stride = output_stride;
  p.out_format = out_format;
  p.out_bytes = out_bytes;
  p.has_weight = has_weight;
  p.normalize = normalize && !no_bag;
  p.positional = positional && !no_bag;
  p.use_offsets = use_offsets;
  p.skip_minus_one = !scale_bias_last && !no_bag;
  p.no_bag = no_bag;
  p.prefetch = prefetch > 0 ? prefetch : 0;
  return p;
}

template <class Offset>
bool bags_cover(const Offset* ol, bool use_offsets, int64_t output_size, int64_t index_size) {
  int64_t covered = 0;
  for (int64_t m = 0; m < output_size; ++m) {
    const int64_t len = use_offsets ? int64_t{ol[m + 1]} - int64_t{ol[m]} : int64_t{ol[m]};
    if (len < 0 || len > index_size - covered) return false;
    covered += len;
  }
  return covered == index_size;
}

template <class Index, class Offset>
void run_checked_bags(const BagPlan& p, int64_t output_size, int64_t index_size,
                      int64_t data_size, int64_t max_row, const uint8_t* table,
                      const Index* indices, const Offset* ol, const float* weights, void* out) {
  const EmbeddingKernels& k = *p.kernels;
  const int it = sizeof(Index) == 8 ? 1 : 0;
  const int64_t row_vectors = (p.block_size + k.lanes - 1) / k.lanes;
  const int64_t bits = bits_per_element(p.format);
  // A partial last vector is read whole (the bytes past the row's end ignored) unless
  // that could end past the table: rows from max_row on are then copied out (safe).
  const int64_t read_end = p.data_off + (p.block_size + k.lanes - 1) / k.lanes * k.lanes * bits / 8;
  const bool safe = max_row >= 0 && max_row * p.stride + read_end >
                                        (data_size - 1) * p.stride + p.row_bytes;
  const auto& fns = k.bag[static_cast<int>(p.format)][it];
  const auto& wide = k.wide[static_cast<int>(p.format)][it];
  // The row's chunks, left to right: of kWideChunkVectors vectors while more than two
  // chunks of kMaxChunkVectors remain (or exactly a wide one), on paths that have them;
  // then of kMaxChunkVectors, then the rest. 16 vectors stay 8 + 8 (12 + 4 measured
  // 1-9% slower). Only the last chunk holds a partial vector, and takes the safe routine
  // where that vector could end past the table.
  auto chunk_vectors = [&](int64_t left) -> int {
    if (wide[0] && (left > 2 * kMaxChunkVectors || left == kWideChunkVectors))
      return kWideChunkVectors;
    return static_cast<int>(std::min<int64_t>(left, kMaxChunkVectors));
  };
  auto chunk_fn = [&](int nv, bool last) {
    const int s = last && safe ? 1 : 0;
    return nv == kWideChunkVectors ? wide[s] : fns[s][nv - 1];
  };

  BagJob j{};
  j.table = table;
  j.stride = p.stride;
  j.data_off = p.data_off;
  j.sb_off = p.sb_off;
  j.indices = indices;
  j.index_size = p.no_bag ? output_size : index_size;
  j.data_size = data_size;
  j.weights = p.has_weight ? weights : nullptr;
  j.positional = p.positional;
  j.skip_minus_one = p.skip_minus_one;
  j.normalize = p.normalize;
  j.prefetch = p.prefetch;
  j.out_format = p.out_format;
  j.fp8_shift = p.fp8_shift;
  j.fp8_scale = p.fp8_scale;
  const bool quant = p.format == RowFormat::kU8 || p.format == RowFormat::kU8Half ||
                     p.format == RowFormat::kU4 || p.format == RowFormat::kU2;
  // Quantized rows of one short chunk: bags two at a time (their accumulator chains
  // overlap). Float rows keep their two rows of one bag at a time, which measured 13-19%
  // faster than pairs of bags at 32 columns (bench, AVX2, 2,000 rows).
  const BagFn pair_fn =
      quant && !p.skip_minus_one && row_vectors >= 1 && row_vectors <= kMaxPairVectors
          ? k.pair[static_cast<int>(p.format)][it][safe ? 1 : 0][row_vectors - 1]
          : nullptr;
  auto set_chunk = [&](int64_t col0, int64_t cols) {
    j.col0 = col0;
    j.tail = static_cast<int>(cols - (cols - 1) / k.lanes * k.lanes);
    int64_t lo = p.data_off + col0 * bits / 8;
    int64_t hi = p.data_off + ((col0 + cols) * bits + 7) / 8;
    if (quant && col0 == 0) {  // the first chunk brings the scale and bias in too
      lo = std::min(lo, p.sb_off);
      hi = std::max(hi, p.sb_off + (p.format == RowFormat::kU8 ? 8 : 4));
    }
    j.pf_off = lo;
    j.pf_len = hi - lo;
  };

  auto* out_bytes = static_cast<uint8_t*>(out);
  auto bag_len = [&](int64_t m) -> int64_t {
    if (p.no_bag) return 1;
    return p.use_offsets ? int64_t{ol[m + 1]} - int64_t{ol[m]} : int64_t{ol[m]};
  };
  auto row_out = [&](int64_t m) { return out_bytes + m * p.out_stride * p.out_bytes; };
  int64_t current = 0;
  int64_t m = 0;
  if (pair_fn) {
    set_chunk(0, p.block_size);
    for (; m + 2 <= output_size; m += 2) {
      j.begin = current;
      j.len = bag_len(m);
      j.out = row_out(m);
      j.begin2 = current + j.len;
      j.len2 = bag_len(m + 1);
      j.out2 = row_out(m + 1);
      j.pf_jump = j.len2 + (m + 2 < output_size ? bag_len(m + 2) : 0);
      pair_fn(j);
      current = j.begin2 + j.len2;
    }
  }
  for (; m < output_size; ++m) {
    const int64_t len = bag_len(m);
    j.begin = current;
    j.len = len;
    uint8_t* bag_out = row_out(m);
    for (int64_t left = row_vectors, col0 = 0; left > 0;) {
      const int nv = chunk_vectors(left);
      left -= nv;
      const int64_t cols = left == 0 ? p.block_size - col0 : int64_t{nv} * k.lanes;
      set_chunk(col0, cols);
      j.out = bag_out + j.col0 * p.out_bytes;
      chunk_fn(nv, left == 0)(j);
      col0 += cols;
    }
    current += len;
  }
}

template <class Index, class Offset>
bool run_bags(const BagPlan& p, int64_t output_size, int64_t index_size, int64_t data_size,
              const uint8_t* table, const Index* indices, const Offset* ol,
              const float* weights, void* out) {
  if (output_size < 0 || index_size < 0 || data_size < 0) return false;
  if (!p.no_bag && !bags_cover(ol, p.use_offsets, output_size, index_size)) return false;
  const MaxIndexFn max_index = p.kernels->max_index[sizeof(Index) == 8 ? 1 : 0];
  const int64_t max_row = p.no_bag ? max_index(indices, output_size, data_size, 0)
                                   : max_index(indices, index_size, data_size,
                                               p.skip_minus_one ? -1 : 0);
  if (max_row == -2) return false;
  run_checked_bags(p, output_size, index_size, data_size, max_row, table, indices, ol, weights,
                   out);
  return true;
}

#define QUIRE_EMBEDDING_RUN(Index, Offset)                                                    \
  template bool run_bags<Index, Offset>(const BagPlan&, int64_t, int64_t, int64_t,            \
                                        const uint8_t*, const Index*, const Offset*,          \
                                        const float*, void*);                                 \
  template void run_checked_bags<Index, Offset>(const BagPlan&, int64_t, int64_t, int64_t,    \
                                                int64_t, const uint8_t*, const Index*,        \
                                                const Offset*, const float*, void*);
QUIRE_EMBEDDING_RUN(int32_t, int32_t)
QUIRE_EMBEDDING_RUN(int32_t, int64_t)
QUIRE_EMBEDDING_RUN(int64_t, int32_t)
QUIRE_EMBEDDING_RUN(int64_t, int64_t)
#undef QUIRE_EMBEDDING_RUN
template bool bags_cover<int32_t>(const int32_t*, bool, int64_t, int64_t);
template bool bags_cover<int64_t>(const int64_t*, bool, int64_t, int64_t);

}  // namespace quire::detail
