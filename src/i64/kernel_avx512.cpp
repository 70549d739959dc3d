// AVX-512 int64 tile: MR = 8 rows x 16 columns in 16 zmm accumulators; per K step two B
// vectors, and per row one broadcast A value multiplied with vpmullq (AVX512DQ, the low
// 64 bits of the product: wraparound for free). Columns past nr are masked off in C.
#include "common/intrinsics.h"
#include "i64/gemm_i64.h"

namespace quire::detail::i64 {
namespace {

constexpr int kMr = 8;

template <int MR>
void tile_rows(const int64_t* a, int64_t lda, const int64_t* b, int kc, int64_t* c, int64_t ldc,
               int nr, bool accumulate) {
  __m512i acc[MR][2];
  for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_si512();
  for (int k = 0; k < kc; ++k) {
    const __m512i b0 = _mm512_loadu_si512(b + k * kNr);
    const __m512i b1 = _mm512_loadu_si512(b + k * kNr + 8);
    for (int i = 0; i < MR; ++i) {
      const __m512i ai = _mm512_set1_epi64(a[i * lda + k]);
      acc[i][0] = _mm512_add_epi64(acc[i][0], _mm512_mullo_epi64(ai, b0));
      acc[i][1] = _mm512_add_epi64(acc[i][1], _mm512_mullo_epi64(ai, b1));
    }
  }
  const __mmask8 m0 = static_cast<__mmask8>(nr >= 8 ? 0xFF : (1u << nr) - 1);
  const __mmask8 m1 = static_cast<__mmask8>(nr >= 16 ? 0xFF : nr > 8 ? (1u << (nr - 8)) - 1 : 0);
  for (int i = 0; i < MR; ++i) {
    int64_t* ci = c + i * ldc;
    __m512i r0 = acc[i][0], r1 = acc[i][1];
    if (accumulate) {
      r0 = _mm512_add_epi64(r0, _mm512_maskz_loadu_epi64(m0, ci));
      r1 = _mm512_add_epi64(r1, _mm512_maskz_loadu_epi64(m1, ci + 8));
    }
    _mm512_mask_storeu_epi64(ci, m0, r0);
    _mm512_mask_storeu_epi64(ci + 8, m1, r1);
  }
}

void tile(const int64_t* a, int64_t lda, const int64_t* b, int kc, int64_t* c, int64_t ldc,
          int mr, int nr, bool accumulate) {
  // One instantiation per row count, so the accumulators stay in registers.
  static constexpr void (*fns[])(const int64_t*, int64_t, const int64_t*, int, int64_t*,
                                 int64_t, int, bool) = {
      &tile_rows<1>, &tile_rows<2>, &tile_rows<3>, &tile_rows<4>,
      &tile_rows<5>, &tile_rows<6>, &tile_rows<7>, &tile_rows<8>};
  fns[mr - 1](a, lda, b, kc, c, ldc, nr, accumulate);
}

}  // namespace

const Kernel kI64Avx512{kMr, &tile};

}  // namespace quire::detail::i64
