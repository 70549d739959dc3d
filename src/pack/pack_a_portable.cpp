// A-block packing in plain C++ (the portable path).
#include <cstring>

#include "pack/pack_a.h"

namespace quire::pack {

void pack_a_portable(const uint8_t* src, int64_t ld, bool transposed, int rows, int cols,
                     uint8_t* dst, int64_t ld_dst, int32_t* row_sums, bool accumulate_sums) {
  const int padded = (cols + 3) & ~3;
  if (row_sums != nullptr && !accumulate_sums) std::memset(row_sums, 0, sizeof(int32_t) * rows);
  if (!transposed) {
    for (int r = 0; r < rows; ++r) {
      const uint8_t* s = src + r * ld;
      int32_t sum = 0;
      for (int c = 0; c < cols; ++c) sum += s[c];
      if (row_sums != nullptr) row_sums[r] += sum;
      if (dst == nullptr) continue;  // in-place block: sums only
      uint8_t* d = dst + r * ld_dst;
      for (int c = 0; c < cols; ++c) d[c] = s[c];
      for (int c = cols; c < padded; ++c) d[c] = 0;
    }
    return;
  }
  // Source row c holds column c of the block: walk it contiguously, scatter into rows.
  for (int c = 0; c < cols; ++c) {
    const uint8_t* s = src + c * ld;
    for (int r = 0; r < rows; ++r) dst[r * ld_dst + c] = s[r];
    if (row_sums != nullptr)
      for (int r = 0; r < rows; ++r) row_sums[r] += s[r];
  }
  for (int r = 0; r < rows; ++r)
    for (int c = cols; c < padded; ++c) dst[r * ld_dst + c] = 0;
}

}  // namespace quire::pack
