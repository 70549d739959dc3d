#include "driver/portable_kernel.h"

#include <cstring>

namespace quire::driver {

void portable_micro_kernel(const detail::MicroKernelArgs* args) {
  const int mr = args->mr, nr = args->nr;
  for (int64_t p = 0; p < args->m_panels; ++p) {
    const uint8_t* a_panel = args->a + p * args->a_panel_stride;
    auto* c_panel = reinterpret_cast<char*>(args->c) + p * mr * args->ldc_bytes;
    // Only the tile's mr x nr sums are cleared: the whole 16 KiB array per panel was most
    // of the portable path's time under AddressSanitizer.
    int32_t acc[64][64];
    for (int r = 0; r < mr; ++r)
      for (int j = 0; j < nr; ++j) acc[r][j] = 0;
    for (int64_t t = 0; t < args->k4_steps; ++t) {
      const int8_t* b = args->b + t * args->b_step;
      for (int r = 0; r < mr; ++r) {
        const uint8_t* a = a_panel + r * args->lda + 4 * t;
        const int32_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
        for (int j = 0; j < nr; ++j) {
          const int8_t* bj = b + 4 * j;
          acc[r][j] += a0 * bj[0] + a1 * bj[1] + a2 * bj[2] + a3 * bj[3];
        }
      }
    }
    for (int r = 0; r < mr; ++r) {
      auto* c = reinterpret_cast<int32_t*>(c_panel + r * args->ldc_bytes);
      for (int j = 0; j < nr; ++j) c[j] = args->accumulate ? c[j] + acc[r][j] : acc[r][j];
    }
  }
}

}  // namespace quire::driver
