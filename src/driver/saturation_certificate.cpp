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
  // anything (they meet zero weights), so they are no part of the bound. Checked per row:
  // full-range activations stop after the first row, so the pass costs nothing where it
  // cannot pay.
  uint8_t highest = 0;
  for (int r = 0; r < rows && highest <= stop_above; ++r) {
    const uint8_t* row = a + r * lda;
    uint8_t m = 0;
    for (int c = 0; c < cols; ++c) m = std::max(m, row[c]);  // vectorized (pmaxub)
    highest = std::max(highest, m);
  }
  return highest;
}

}  // namespace quire::detail
