#include <immintrin.h>

#include "peak_probe.h"
#include "peak_probe_loop.h"

namespace quire::bench::probe {

// As maddubs_madd_add_zmm on ymm; 8 chains leave registers for a, b, the ones and the
// two products in flight (16 ymm registers in all).
int64_t maddubs_madd_add_ymm(int64_t iterations) {
  const __m256i ones = _mm256_set1_epi16(1);
  return run_chains<8>(iterations, _mm256_set1_epi8(3), _mm256_set1_epi8(-5),
                       [ones](__m256i acc, __m256i a, __m256i b) {
                         const __m256i pairs = _mm256_maddubs_epi16(a, b);
                         return _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, ones));
                       });
}

}  // namespace quire::bench::probe
