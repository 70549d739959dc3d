// The embedding-bag kernels of one instruction-set path (IsaRecord::embedding): one
// routine per row format, index type and number of vectors per column chunk. A routine
// sums one bag over one chunk of columns; embedding_bag.cpp checks the call's arguments
// first (so a kernel never sees a bad index) and loops over bags and chunks.
#pragma once

#include <cstdint>

namespace quire::detail {

// How a table row is stored. Quantized rows: data bytes plus a scale and bias (float for
// kU8, fp16 for the others) at the row's end or start (BagJob::data_off / sb_off). kF8:
// 8-bit floats (BagJob::fp8_shift / fp8_scale), no scale and bias.
enum class RowFormat : uint8_t { kF32, kF16, kBF16, kU8, kU8Half, kU4, kU2, kF8 };
inline constexpr int kRowFormatCount = 8;

// Bits of one stored element of a row (its codes; scale and bias not counted).
constexpr int64_t bits_per_element(RowFormat r) {
  switch (r) {
    case RowFormat::kF32: return 32;
    case RowFormat::kF16:
    case RowFormat::kBF16: return 16;
    case RowFormat::kU8:
    case RowFormat::kU8Half:
    case RowFormat::kF8: return 8;
    case RowFormat::kU4: return 4;
    case RowFormat::kU2: return 2;
  }
  return 0;
}

enum class OutFormat : uint8_t { kF32, kF16, kBF16 };

// One bag, one column chunk [col0, col0 + cols). Set once per call except where marked.
struct BagJob {
  const uint8_t* table;
  int64_t stride;     // bytes between rows
  int64_t data_off;   // bytes from a row's start to its first element
  int64_t sb_off;     // bytes from a row's start to its scale and bias (quantized rows)
  const void* indices;  // int32_t or int64_t, by the routine
  int64_t index_size;
  int64_t data_size;
  const float* weights;  // null: every weight 1
  bool positional;       // weights[j - begin] instead of weights[j]
  bool skip_minus_one;   // index -1 is a pruned row: skipped (still counted in len)
  bool normalize;
  int prefetch;            // indices ahead; 0: none
  int64_t pf_off, pf_len;  // bytes of a row the chunk reads (from the row start), prefetched
  OutFormat out_format;
  // kF8 rows: code c is bits((c & 0x7f) << fp8_shift) * fp8_scale, with c's sign bit
  // (Float8ToFloat_ref's formula).
  int fp8_shift;
  float fp8_scale;
  int64_t col0;  // per chunk
  int tail;      // per chunk: lanes of the chunk's last vector, in [1, W]
  int64_t begin, len;  // per bag: indices [begin, begin + len)
  void* out;           // per bag and chunk: the output row at col0
  // The pair routines' second bag (EmbeddingKernels::pair): indices [begin2, begin2 +
  // len2) (begin2 = begin + len), its output row at col0; pf_jump: the next pair's first
  // bag's length plus len2 (where the first bag's prefetches go past its end).
  int64_t begin2, len2, pf_jump;
  void* out2;
};

using BagFn = void (*)(const BagJob& job);

// The largest of the n indices at idx (int32_t or int64_t, by the routine) if all lie in
// [low, data_size), else -2; -1 for n = 0.
using MaxIndexFn = int64_t (*)(const void* idx, int64_t n, int64_t data_size, int64_t low);

// Routines by [row format][index type: 0 int32, 1 int64][safe][vectors per chunk - 1].
// A chunk whose last vector is partial reads that vector whole (past the row's end)
// unless safe, which copies the row's last bytes out first: for calls that touch the
// table's last rows, where the whole vector could end past the table.
// pair (quantized formats; null for the others): the same for rows of one chunk of up to
// kMaxPairVectors vectors, two bags at once (BagJob::begin2), no pruned rows: two accumulator chains in flight where one chunk
// is too short to hide its chain's latency (embedding_simd.h, bag_pair_rows).
// wide (vector paths, float and 8-bit rows; null elsewhere): the same for chunks of kWideChunkVectors
// vectors, which long rows are cut into first (run_checked_bags): a row's step then has
// 12 independent accumulator chains instead of 8, and each row's per-chunk work (index,
// address, prefetch, scale and bias) is shared by more columns. FBGEMM's AVX2 JIT keeps
// 13. Float and 8-bit rows only (docs/embedding.md has the measurements).
inline constexpr int kMaxChunkVectors = 8;
inline constexpr int kWideChunkVectors = 12;
inline constexpr int kMaxPairVectors = 4;
struct EmbeddingKernels {
  int lanes;  // floats per vector
  BagFn bag[kRowFormatCount][2][2][kMaxChunkVectors];
  BagFn wide[kRowFormatCount][2][2];
  BagFn pair[kRowFormatCount][2][2][kMaxPairVectors];
  // By index type (0 int32, 1 int64): compiled per path, where the min / max reduction
  // vectorizes with the path's instructions (baseline x86-64 lacks a 32-bit min / max).
  MaxIndexFn max_index[2];
};

extern const EmbeddingKernels kEmbeddingPortable;
extern const EmbeddingKernels kEmbeddingAvx2;
extern const EmbeddingKernels kEmbeddingAvx512;

}  // namespace quire::detail
