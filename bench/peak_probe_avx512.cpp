#include <immintrin.h>

#include "peak_probe.h"
#include "peak_probe_loop.h"

namespace quire::bench::probe {

// The pre-VNNI u8*s8 step: vpmaddubsw (pairs to saturating int16), vpmaddwd by ones
// (pairs to int32), vpaddd. Only the vpaddd chains through the accumulator.
int64_t maddubs_madd_add_zmm(int64_t iterations) {
  const __m512i ones = _mm512_set1_epi16(1);
  return run_chains<16>(iterations, _mm512_set1_epi8(3), _mm512_set1_epi8(-5),
                        [ones](__m512i acc, __m512i a, __m512i b) {
                          const __m512i pairs = _mm512_maddubs_epi16(a, b);
                          return _mm512_add_epi32(acc, _mm512_madd_epi16(pairs, ones));
                        });
}

}  // namespace quire::bench::probe
