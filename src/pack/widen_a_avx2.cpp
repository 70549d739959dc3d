// The A block widened to 16 bits, in the order the exact kernels broadcast it: per K
// step the even pair (a0, a2), then the odd pair (a1, a3). A byte shuffle within each
// dword, then a zero extension, 32 bytes of A (8 steps) at a time.
#include "common/intrinsics.h"

#include "pack/widen_a.h"

namespace quire::pack {

void widen_a_avx2(const uint8_t* a, int64_t lda, int rows, int k4_steps, uint16_t* dst,
                  int64_t ld_dst) {
  // Bytes 0 2 1 3 of every dword; _mm256_shuffle_epi8 works per 128-bit lane, which
  // holds whole dwords.
  const __m256i order = _mm256_setr_epi8(0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15,
                                         0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15);
  for (int r = 0; r < rows; ++r) {
    const uint8_t* s = a + r * lda;
    uint16_t* d = dst + r * ld_dst;
    int t = 0;
    for (; t + 8 <= k4_steps; t += 8) {
      const __m256i v = _mm256_shuffle_epi8(
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 4 * t)), order);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 4 * t),
                          _mm256_cvtepu8_epi16(_mm256_castsi256_si128(v)));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + 4 * t + 16),
                          _mm256_cvtepu8_epi16(_mm256_extracti128_si256(v, 1)));
    }
    for (; t < k4_steps; ++t) {
      const uint8_t* q = s + 4 * t;
      d[4 * t] = q[0];
      d[4 * t + 1] = q[2];
      d[4 * t + 2] = q[1];
      d[4 * t + 3] = q[3];
    }
  }
}

}  // namespace quire::pack
