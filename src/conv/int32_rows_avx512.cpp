// The transposed convolution's int32 row arithmetic with AVX-512: 16 lanes per vector,
// the tail under an opmask (no element outside [0, n) is read or written). vpaddd /
// vpmulld / vpsubd wrap modulo 2^32, as the portable form.
#include "common/intrinsics.h"
#include "conv/conv_kernels.h"

namespace quire::conv {
namespace {

__mmask16 tail_mask(int64_t left) {
  return static_cast<__mmask16>(left >= 16 ? 0xFFFF : (1u << left) - 1);
}

}  // namespace

void add_i32_avx512(int32_t* dst, const int32_t* src, int64_t n) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512i a0 = _mm512_loadu_si512(dst + i);
    const __m512i a1 = _mm512_loadu_si512(dst + i + 16);
    const __m512i b0 = _mm512_loadu_si512(src + i);
    const __m512i b1 = _mm512_loadu_si512(src + i + 16);
    _mm512_storeu_si512(dst + i, _mm512_add_epi32(a0, b0));
    _mm512_storeu_si512(dst + i + 16, _mm512_add_epi32(a1, b1));
  }
  for (; i < n; i += 16) {
    const __mmask16 m = tail_mask(n - i);
    const __m512i a = _mm512_maskz_loadu_epi32(m, dst + i);
    const __m512i b = _mm512_maskz_loadu_epi32(m, src + i);
    _mm512_mask_storeu_epi32(dst + i, m, _mm512_add_epi32(a, b));
  }
}

void sub_scaled_i32_avx512(int32_t* dst, const int32_t* src, int32_t s, int64_t n) {
  const __m512i sv = _mm512_set1_epi32(s);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = tail_mask(n - i);
    const __m512i a = _mm512_maskz_loadu_epi32(m, dst + i);
    const __m512i b = _mm512_maskz_loadu_epi32(m, src + i);
    _mm512_mask_storeu_epi32(dst + i, m, _mm512_sub_epi32(a, _mm512_mullo_epi32(sv, b)));
  }
}

}  // namespace quire::conv
