// The unsafe-pair index that follows the pair-safe limits in detail::pair_safe_limits'
// blob (format: include/quire/detail/PackB.h; use: docs/kernel-contract.md, "Unsafe
// pairs as a sparse correction"). Private to the library: built in src/pack, read by
// the driver.
#pragma once

#include <cstdint>
#include <vector>

#include "quire/detail/PackB.h"

namespace quire::detail {

// One K pair of one column whose own limit (min(255, 32767 / P, 32768 / -N) for that
// pair alone) is under 255: with A = 255 somewhere it can saturate vpmaddubsw. Its two
// weights have one sign (a pair of both signs is always safe), so its sum leaves int16
// on one side only: above 32767 when b0 + b1 > 0 (its side is 0), below -32768 else (1).
struct PairEntry {
  uint16_t pair;  // t: A bytes k = 2t, 2t + 1 of the group (t < 32897, kMaxExactK / 2)
  uint16_t col;   // column in the panel
  int32_t b01;    // (b0, b1) as two int16 lanes, low b0: vpmaddwd's broadcast operand
};
static_assert(sizeof(PairEntry) == 8);

// Whether the correction of `entries` unsafe pairs, out of pairs x cols, costs less on a
// block of `rows` rows and `block_cols` columns (a thread's share of N) than the exact
// form's extra work (the break-even measured on avx2: docs/kernel-contract.md, "Unsafe
// pairs as a sparse correction"):
// - never under 6 rows: 1 and 2 rows run the exact form's 2 x 16 tile, bound like the
//   pair-safe kernels by B's read, so the correction is pure cost; a correction reading
//   A in place per entry (no pair-major pass, no tile) costs ~5 cycles per entry and row
//   on Zen 4 (a vpgatherdd per W entries, then an add per lane), over the 0.7-2.5 the
//   exact form spends on 1-6 rows at 1.6-3.5% unsafe pairs;
// - 6-9 rows: up to 1/50 of the pairs, on 4096 columns or more, where the pair-major
//   pass is shared by enough panels (6 x 4096 x 1024 1.04-1.06x, 6 x 4096 x 2048
//   1.16-1.3x; 6 x 2048 x 512 0.96-0.97x, 6 x 256 x 1024 0.91x, 6 x 256 x 2048 0.96x);
// - from 10 rows up to 1/20 (the per-column correction of Zen 5's session, with the
//   stage reading it from a compact tile: 10 x 4096 x 1024 1.06x and 102 x 1024 x 512
//   1.04x over 1/64 and 1/40; denser cutoffs, 1/12-1/15, moved nothing beyond the noise);
// - on K blocks of 256 pairs or more (K >= 512), and from two row vectors (16 rows on
//   avx2, 32 on avx512) of 128 or more (K >= 256; avx2: 102 x 2323 x 256 1.12x,
//   196 x 1024 x 256 and 256^3 1.10x, 20 x 2048 x 256 1.04x over the exact form;
//   10 x 2048 x 256 0.87x, 6 x 1024 x 256 0.77x; avx512, whose exact form is nearer its
//   pair-safe one: 20 x 2048 x 256 and 20 x 4096 x 256 0.92x, 64 x 1024 x 256 1.03x). Shorter K
//   blocks do not pay: the pass that makes A pair-major and the tile cost about as much
//   per output as the short dot products they save (156800 x {4, 8} x 36: 0.62x).
//   Packing keeps an index only for panels within the widest share.
inline constexpr int kCorrectedMinRows = 6;
inline constexpr int kCorrectedWideRows = 10;       // from here, any block_cols
inline constexpr int kCorrectedTallVectors = 2;     // row vectors from which 128 pairs pay
inline constexpr int64_t kCorrectedMinCols = 4096;  // under kCorrectedWideRows
inline constexpr int64_t kCorrectedMinPairs = 256;
inline constexpr int64_t kCorrectedTallMinPairs = 128;
// Whether a block of `rows` rows of a thread's `block_cols` columns can run corrected at
// all (else the driver skips the index look-ups and the pair-major pass).
inline bool block_may_correct(int rows, int64_t block_cols) {
  return rows >= kCorrectedWideRows || (rows >= kCorrectedMinRows && block_cols >= kCorrectedMinCols);
}
// Whether a slice of such a block runs corrected, on a path whose correction takes
// `lanes` rows per vector (packing asks for any rows).
inline bool correction_pays(int64_t entries, int64_t pairs, int64_t cols, int rows = 1 << 30,
                            int lanes = 8) {
  if (rows < kCorrectedMinRows) return false;
  const bool tall = rows >= kCorrectedTallVectors * lanes;
  if (pairs < (tall ? kCorrectedTallMinPairs : kCorrectedMinPairs)) return false;
  return entries * (rows < kCorrectedWideRows ? 50 : 20) <= pairs * cols;
}

// Where the index lives in the blob: after groups x panels limit bytes, 8-aligned, one
// byte per (group, panel) saying whether it is indexed, then (8-aligned) the offsets
// into the entries of one list per (group, panel, column of the panel, side), in that
// order, and one more (the end), then (8-aligned) the entries, each list sorted by pair.
// Per column and side, a correction sums one kind of term in registers (pair_correction.h).
struct PairIndexView {
  const uint8_t* indexed;
  const uint32_t* offsets;
  const PairEntry* entries;
  int width;  // columns per panel
  int pairs;  // K pairs of a group

  // The 2 * width + 1 offsets of panel gp's lists (gp = g * panels + p) from column col0
  // on: list (j, side) of the panel is [offsets[2 j + side], offsets[2 j + side + 1]).
  const uint32_t* lists(int gp, int col0 = 0) const {
    return offsets + (int64_t{gp} * width + col0) * 2;
  }
  // The entries of panel gp with pair in [pair0, pair1), or -1 if it has no index.
  int64_t count(int gp, int pair0, int pair1) const;
};

// [first, last), one list, cut to the entries with pair in [pair0, pair1).
void cut_to_pairs(const PairEntry*& first, const PairEntry*& last, int pair0, int pair1);

PairIndexView pair_index_view(const PackedBLayout& layout, const uint8_t* blob);

// Appends the index of the packed B to blob, which holds its limits (PackB.h).
void append_pair_index(const PackedBLayout& layout, const int8_t* packed,
                       std::vector<uint8_t>& blob);

// A pair's own limit: the certificate's bound for (b0, b1) alone.
inline int pair_limit(int b0, int b1) {
  const int positive = (b0 > 0 ? b0 : 0) + (b1 > 0 ? b1 : 0);
  const int negative = (b0 < 0 ? b0 : 0) + (b1 < 0 ? b1 : 0);
  int limit = 255;
  if (positive > 0 && 32767 / positive < limit) limit = 32767 / positive;
  if (negative < 0 && 32768 / -negative < limit) limit = 32768 / -negative;
  return limit;
}

}  // namespace quire::detail
