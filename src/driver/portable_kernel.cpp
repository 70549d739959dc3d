#include "driver/portable_kernel.h"

#include <cstring>

namespace quire::driver {

void portable_micro_kernel(const detail::MicroKernelArgs* args) {
  const int mr = args->mr, nr = args->nr;
  for (int64_t p = 0; p < args->m_panels; ++p) {
    const uint8_t* a_panel = args->a + p * args->a_panel_stride;
    auto* c_panel = reinterpret_cast<char*>(args->c) + p * mr * args->ldc_bytes;
    int32_t acc[64][64] = {};
    for (int64_t t = 0; t < args->k4_steps; ++t) {
      const int8_t* b = args->b + t * args->b_step;
      for (int r = 0; r < mr; ++r) {
        const uint8_t* a = a_panel + r * args->lda + 4 * t;
        for (int j = 0; j < nr; ++j)
          for (int q = 0; q < 4; ++q) acc[r][j] += int32_t{a[q]} * int32_t{b[4 * j + q]};
      }
    }
    for (int r = 0; r < mr; ++r) {
      auto* c = reinterpret_cast<int32_t*>(c_panel + r * args->ldc_bytes);
      for (int j = 0; j < nr; ++j) c[j] = args->accumulate ? c[j] + acc[r][j] : acc[r][j];
    }
  }
}

}  // namespace quire::driver
