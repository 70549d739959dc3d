// One im2col row in plain C++ (the anyarch path).
#include <cstring>

#include "conv/conv_kernels.h"

namespace quire::conv {

int32_t im2col_row_portable(const Im2ColRun* runs, int nruns, uint8_t fill, uint8_t* dst,
                            int padded, bool want_sum) {
  int32_t sum = 0;
  int pos = 0;
  for (int r = 0; r < nruns; ++r) {
    const Im2ColRun& run = runs[r];
    if (run.src == nullptr) {
      std::memset(dst + pos, fill, static_cast<size_t>(run.len));
      sum += run.len * int32_t{fill};
    } else {
      std::memcpy(dst + pos, run.src, static_cast<size_t>(run.len));
      if (want_sum)
        for (int c = 0; c < run.len; ++c) sum += run.src[c];
    }
    pos += run.len;
  }
  std::memset(dst + pos, 0, static_cast<size_t>(padded - pos));
  return want_sum ? sum : 0;
}

}  // namespace quire::conv
