// im2col rows in plain C++ (the anyarch path).
#include <cstring>

#include "conv/conv_kernels.h"

namespace quire::conv {

void im2col_rows_portable(const Im2ColRun* runs, int nruns, int nrows, uint8_t* dst,
                          int64_t ld_dst, int32_t* row_sums, bool accumulate) {
  for (int j = 0; j < nrows; ++j) {
    uint8_t* d = dst + j * ld_dst;
    int32_t sum = 0;
    int pos = 0;
    for (int r = 0; r < nruns; ++r) {
      const uint8_t* src = runs[r].src + j * runs[r].step;
      std::memcpy(d + pos, src, static_cast<size_t>(runs[r].len));
      for (int c = 0; c < runs[r].len; ++c) sum += src[c];
      pos += runs[r].len;
    }
    for (; pos % 4 != 0; ++pos) d[pos] = 0;
    if (row_sums != nullptr) row_sums[j] = accumulate ? row_sums[j] + sum : sum;
  }
}

}  // namespace quire::conv
