#include <immintrin.h>

#include "peak_probe.h"
#include "peak_probe_loop.h"

namespace quire::bench::probe {

// 24 of the 32 zmm registers: vpdpbusd's latency (4-5 cycles) times up to 2 per cycle.
int64_t vpdpbusd_zmm(int64_t iterations) {
  return run_chains<24>(iterations, _mm512_set1_epi8(3), _mm512_set1_epi8(-5),
                        [](__m512i acc, __m512i a, __m512i b) {
                          return _mm512_dpbusd_epi32(acc, a, b);
                        });
}

}  // namespace quire::bench::probe
