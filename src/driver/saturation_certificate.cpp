// The saturation certificate (docs/kernel-contract.md, "The saturation certificate"):
// which A blocks x B panels may run the pair-safe (vpmaddubsw) kernels, exactly.
#include <algorithm>

#include "driver/driver.h"

namespace quire::detail {

uint8_t largest_limit_below_255(const uint8_t* limits, int first_panel, int end_panel) {
  uint8_t highest = 0;  // the largest limit under 255: an A max above it certifies nothing new
  for (int p = first_panel; p < end_panel; ++p)
    if (limits[p] < 255) highest = std::max(highest, limits[p]);
  return highest;
}

uint8_t block_a_max(const uint8_t* a, int64_t lda, int rows, int cols, uint8_t stop_above) {
  // Only the block's cols bytes per row: the bytes up to the next multiple of 4 may hold
  // anything (they meet zero weights), so they are no part of the bound. Rows with no
  // gap between them (A read in place, lda = K) are one run of bytes, so that short rows
  // (K = 36) are not a loop each. The run is read in chunks, checked between them:
  // full-range activations stop after the first, so the pass costs nothing where it
  // cannot pay.
  constexpr int64_t kChunk = 1024;
  const bool contiguous = lda == cols;
  const int runs = contiguous ? (rows > 0 ? 1 : 0) : rows;
  const int64_t run_bytes = contiguous ? int64_t{rows} * cols : cols;
  uint8_t highest = 0;
  for (int r = 0; r < runs && highest <= stop_above; ++r) {
    const uint8_t* run = a + r * lda;
    for (int64_t c0 = 0; c0 < run_bytes && highest <= stop_above; c0 += kChunk) {
      const int64_t end = std::min(run_bytes, c0 + kChunk);
      uint8_t m = 0;
      for (int64_t c = c0; c < end; ++c) m = std::max(m, run[c]);  // vectorized (pmaxub)
      highest = std::max(highest, m);
    }
  }
  return highest;
}

}  // namespace quire::detail
