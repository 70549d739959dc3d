// AVX2 int64 tile: MR = 2 rows x 16 columns in 8 ymm accumulators (the multiply needs
// the other 8 registers for B, its high halves and the broadcast A). AVX2 has no 64-bit multiply; the low
// 64 bits of a * b are a_lo * b_lo + ((a_hi * b_lo + a_lo * b_hi) << 32), built from
// three vpmuludq (32 x 32 -> 64 unsigned), which wraps exactly like the full product.
#include "common/intrinsics.h"
#include "i64/gemm_i64.h"

namespace quire::detail::i64 {
namespace {

constexpr int kMr = 2;

// Low 64 bits of a * b per lane, given a and a >> 32 broadcast and b, b >> 32 loaded.
inline __m256i mullo_epi64(__m256i a, __m256i a_hi, __m256i b, __m256i b_hi) {
  const __m256i lo = _mm256_mul_epu32(a, b);
  const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(a_hi, b), _mm256_mul_epu32(a, b_hi));
  return _mm256_add_epi64(lo, _mm256_slli_epi64(cross, 32));
}

// Lanes of a 4-lane group g that hold columns < nr (maskload / maskstore masks).
inline __m256i lane_mask(int nr, int g) {
  const __m256i lanes = _mm256_setr_epi64x(0, 1, 2, 3);
  return _mm256_cmpgt_epi64(_mm256_set1_epi64x(nr - 4 * g), lanes);
}

template <int MR>
void tile_rows(const int64_t* a, int64_t lda, const int64_t* b, int kc, int64_t* c, int64_t ldc,
               int nr, bool accumulate) {
  __m256i acc[MR][4];
  for (int i = 0; i < MR; ++i)
    for (int g = 0; g < 4; ++g) acc[i][g] = _mm256_setzero_si256();
  for (int k = 0; k < kc; ++k) {
    __m256i bv[4], bh[4];
    for (int g = 0; g < 4; ++g) {
      bv[g] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + k * kNr + 4 * g));
      bh[g] = _mm256_srli_epi64(bv[g], 32);
    }
    for (int i = 0; i < MR; ++i) {
      const __m256i ai = _mm256_set1_epi64x(a[i * lda + k]);
      const __m256i ah = _mm256_srli_epi64(ai, 32);
      for (int g = 0; g < 4; ++g)
        acc[i][g] = _mm256_add_epi64(acc[i][g], mullo_epi64(ai, ah, bv[g], bh[g]));
    }
  }
  for (int i = 0; i < MR; ++i) {
    for (int g = 0; g < 4 && 4 * g < nr; ++g) {
      long long* cg = reinterpret_cast<long long*>(c + i * ldc + 4 * g);
      const __m256i m = lane_mask(nr, g);
      __m256i r = acc[i][g];
      if (accumulate) r = _mm256_add_epi64(r, _mm256_maskload_epi64(cg, m));
      _mm256_maskstore_epi64(cg, m, r);
    }
  }
}

void tile(const int64_t* a, int64_t lda, const int64_t* b, int kc, int64_t* c, int64_t ldc,
          int mr, int nr, bool accumulate) {
  if (mr == 2) tile_rows<2>(a, lda, b, kc, c, ldc, nr, accumulate);
  else tile_rows<1>(a, lda, b, kc, c, ldc, nr, accumulate);
}

}  // namespace

const Kernel kI64Avx2{kMr, &tile};

}  // namespace quire::detail::i64
