// The transposed convolution's int32 row arithmetic with AVX2: 8 lanes per step (two
// vectors per iteration), the tail masked with vpmaskmovd (no element outside [0, n) is
// read or written). vpaddd / vpmulld / vpsubd wrap modulo 2^32, as the portable form.
#include "common/intrinsics.h"
#include "conv/conv_kernels.h"

namespace quire::conv {
namespace {

__m256i tail_mask(int64_t left) {
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(left)), lanes);
}

}  // namespace

void add_i32_avx2(int32_t* dst, const int32_t* src, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i a0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(dst + i));
    const __m256i a1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(dst + i + 8));
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 8));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_add_epi32(a0, b0));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i + 8), _mm256_add_epi32(a1, b1));
  }
  for (; i < n; i += 8) {
    const __m256i m = tail_mask(n - i);
    const __m256i a = _mm256_maskload_epi32(dst + i, m);
    const __m256i b = _mm256_maskload_epi32(src + i, m);
    _mm256_maskstore_epi32(dst + i, m, _mm256_add_epi32(a, b));
  }
}

void sub_scaled_i32_avx2(int32_t* dst, const int32_t* src, int32_t s, int64_t n) {
  const __m256i sv = _mm256_set1_epi32(s);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(dst + i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i),
                        _mm256_sub_epi32(a, _mm256_mullo_epi32(sv, b)));
  }
  if (i < n) {
    const __m256i m = tail_mask(n - i);
    const __m256i a = _mm256_maskload_epi32(dst + i, m);
    const __m256i b = _mm256_maskload_epi32(src + i, m);
    _mm256_maskstore_epi32(dst + i, m, _mm256_sub_epi32(a, _mm256_mullo_epi32(sv, b)));
  }
}

}  // namespace quire::conv
