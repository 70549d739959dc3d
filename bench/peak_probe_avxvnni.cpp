#include <immintrin.h>

#include "peak_probe.h"
#include "peak_probe_loop.h"

namespace quire::bench::probe {

// The VEX encoding ({vex} vpdpbusd) on ymm: the only VNNI on CPUs without AVX-512.
// 12 of the 16 ymm registers: latency 4-5 cycles times 2-3 per cycle.
int64_t vpdpbusd_vex_ymm(int64_t iterations) {
  return run_chains<12>(iterations, _mm256_set1_epi8(3), _mm256_set1_epi8(-5),
                        [](__m256i acc, __m256i a, __m256i b) {
                          return _mm256_dpbusd_avx_epi32(acc, a, b);
                        });
}

}  // namespace quire::bench::probe
