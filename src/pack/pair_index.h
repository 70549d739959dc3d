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
// pair alone) is under 255: with A = 255 somewhere it can saturate vpmaddubsw.
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
// - 10-15 rows up to 1/64, from 16 rows up to 1/40;
// - never on a K block of fewer than 256 pairs (K < 512): there the pass that makes A
//   pair-major and the tile's add into C cost about as much per output as the short dot
//   products they save (156800 x {4, 8} x 36: 0.62x of the exact form; K = 256 at 3.5%
//   unsafe pairs, 20-102 rows: 0.97-1.05x). Packing keeps an index only for panels
//   within the widest share.
inline constexpr int kCorrectedMinRows = 6;
inline constexpr int kCorrectedWideRows = 10;      // from here, any block_cols
inline constexpr int64_t kCorrectedMinCols = 4096;  // under kCorrectedWideRows
inline constexpr int64_t kCorrectedMinPairs = 256;
// Whether a block of `rows` rows of a thread's `block_cols` columns can run corrected at
// all (else the driver skips the index look-ups and the pair-major pass).
inline bool block_may_correct(int rows, int64_t block_cols) {
  return rows >= kCorrectedWideRows || (rows >= kCorrectedMinRows && block_cols >= kCorrectedMinCols);
}
// Whether a slice of such a block runs corrected.
inline bool correction_pays(int64_t entries, int64_t pairs, int64_t cols, int rows = 1 << 30) {
  if (rows < kCorrectedMinRows || pairs < kCorrectedMinPairs) return false;
  return entries * (rows < kCorrectedWideRows ? 50 : rows < 16 ? 64 : 40) <= pairs * cols;
}

// Where the index lives in the blob: after groups x panels limit bytes, 8-aligned, one
// byte per (group, panel) saying whether it is indexed, then (8-aligned) groups x
// panels + 1 uint32 offsets into the entries, then (8-aligned) the entries, per panel
// sorted by pair then column.
struct PairIndexView {
  const uint8_t* indexed;
  const uint32_t* begin;
  const PairEntry* entries;

  // The entries of panel gp (g * panels + p) with pair in [pair0, pair1), or null if the
  // panel has no index.
  bool range(int gp, int pair0, int pair1, const PairEntry*& first, const PairEntry*& last) const;
};

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
