// The A block widened to 16 bits in its own byte order (detail::WidenAFn, linear form):
// the kernels that sign-extend B per step (KernelSpec::sx_b) broadcast a K step's four
// values a0 a1 a2 a3 as one qword. One zero extension per 16 bytes.
#include "common/intrinsics.h"

#include "pack/widen_a.h"

namespace quire::pack {

void widen_a_linear_avx2(const uint8_t* a, int64_t lda, int rows, int k4_steps, uint16_t* dst,
                         int64_t ld_dst) {
  const int bytes = 4 * k4_steps;
  for (int r = 0; r < rows; ++r) {
    const uint8_t* s = a + r * lda;
    uint16_t* d = dst + r * ld_dst;
    int c = 0;
    for (; c + 16 <= bytes; c += 16)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + c),
                          _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + c))));
    for (; c < bytes; ++c) d[c] = s[c];
  }
}

}  // namespace quire::pack
