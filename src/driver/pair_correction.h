// The sparse correction of pair-safe kernels run on panels with unsafe pairs
// (docs/kernel-contract.md, "Unsafe pairs as a sparse correction"): the pair-safe
// kernel on the original B sums sat16(s) per pair, s = a0 * b0 + a1 * b1, exactly (its
// vpmaddwd and vpaddd add exactly), so adding s - sat16(s) for the panel's unsafe pairs
// (pack/pair_index.h) makes the sum exact for any A. Written once over the vector
// vocabulary (pair_correction_simd.h), one table per path (IsaRecord::pair_correction).
#pragma once

#include <cstdint>

namespace quire::detail {

struct PairEntry;  // pack/pair_index.h

// Rows x pairs of an A block (rows lda bytes apart, pair t at bytes 2t, 2t + 1; a byte
// at or past `cols` is read as 0) pair-major: pair t of row r at dst[t * ld_dst + r] as
// int32 a0 | a1 << 16, vpmaddwd's operand. Rows from `rows` up to ld_dst are zero;
// ld_dst is a multiple of the path's vector lanes.
using PairMajorFn = void (*)(const uint8_t* a, int64_t lda, int rows, int cols, int32_t* dst,
                             int64_t ld_dst);

// Adds, or stores where !accumulate, into C columns [0, cols) (rows ldc apart, `rows`
// rows) the correction of the slice's unsafe pairs with pair in [pair0, pair1): for
// each, s - clamp(s, -32768, 32767) with s the pair's sum for every row, pairs taken
// from the pair-major block at pair index entry.pair - pair0. The entries are in the
// lists of column j and side s at [entries + lists[2 j + s], entries + lists[2 j + s + 1])
// (pack/pair_index.h), to be cut to the pair range unless whole_k says each is inside
// it. tile: scratch of cols x ld_a int32, 64-byte aligned.
using PairCorrectFn = void (*)(const int32_t* a_pairs, int64_t ld_a, int rows, int pair0,
                               int pair1, bool whole_k, const uint32_t* lists,
                               const PairEntry* entries, int cols, int32_t* c, int64_t ldc,
                               bool accumulate, int32_t* tile);

struct PairCorrectionKernels {
  int lanes;  // ld_a is a multiple of it
  PairMajorFn pair_major;
  PairCorrectFn correct;
};
extern const PairCorrectionKernels kPairCorrectionAvx2;
extern const PairCorrectionKernels kPairCorrectionAvx512;

}  // namespace quire::detail
