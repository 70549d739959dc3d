// AVX-512 transposes: 16 x 16 float tiles in zmm registers; 8 x 8 16-bit and 16 x 16
// byte tiles in xmm registers. Partial tiles at the edges load and store under masks
// (rows past the edge read as zero and are never stored).
#include "common/transpose.h"
#include "common/transpose_tiles.h"

namespace quire::detail {
namespace {

// r[k] = row k of a 16 x 16 float tile; afterwards column k. Within each 128-bit lane
// as in the 8 x 8 AVX2 tile, then the four lanes of rows 0-3, 4-7, 8-11, 12-15 are
// gathered by two rounds of shuffle_f32x4.
inline void transpose_16x16_ps(__m512 r[16]) {
  __m512 t[16], s[16];
  for (int p = 0; p < 8; ++p) {
    t[2 * p] = _mm512_unpacklo_ps(r[2 * p], r[2 * p + 1]);
    t[2 * p + 1] = _mm512_unpackhi_ps(r[2 * p], r[2 * p + 1]);
  }
  for (int q = 0; q < 4; ++q) {  // s[4q + c], lane L: column 4L + c of rows 4q..4q+3
    s[4 * q + 0] = _mm512_shuffle_ps(t[4 * q], t[4 * q + 2], 0x44);
    s[4 * q + 1] = _mm512_shuffle_ps(t[4 * q], t[4 * q + 2], 0xEE);
    s[4 * q + 2] = _mm512_shuffle_ps(t[4 * q + 1], t[4 * q + 3], 0x44);
    s[4 * q + 3] = _mm512_shuffle_ps(t[4 * q + 1], t[4 * q + 3], 0xEE);
  }
  for (int c = 0; c < 4; ++c) {
    const __m512 u_lo = _mm512_shuffle_f32x4(s[c], s[4 + c], 0x44);  // lanes 0, 1 of each
    const __m512 u_hi = _mm512_shuffle_f32x4(s[c], s[4 + c], 0xEE);  // lanes 2, 3
    const __m512 v_lo = _mm512_shuffle_f32x4(s[8 + c], s[12 + c], 0x44);
    const __m512 v_hi = _mm512_shuffle_f32x4(s[8 + c], s[12 + c], 0xEE);
    r[c] = _mm512_shuffle_f32x4(u_lo, v_lo, 0x88);       // lane 0 of the four quads
    r[4 + c] = _mm512_shuffle_f32x4(u_lo, v_lo, 0xDD);   // lane 1
    r[8 + c] = _mm512_shuffle_f32x4(u_hi, v_hi, 0x88);   // lane 2
    r[12 + c] = _mm512_shuffle_f32x4(u_hi, v_hi, 0xDD);  // lane 3
  }
}

}  // namespace

void transpose_avx512(int64_t M, int64_t N, const float* src, int64_t ld_src, float* dst,
                      int64_t ld_dst) {
  const auto tile = [&](const float* s, float* d, int rows, int cols) {
    const __mmask16 col_mask = static_cast<__mmask16>((1u << cols) - 1);
    const __mmask16 row_mask = static_cast<__mmask16>((1u << rows) - 1);
    __m512 r[16];
    for (int k = 0; k < 16; ++k)
      r[k] = k < rows ? _mm512_maskz_loadu_ps(col_mask, s + k * ld_src) : _mm512_setzero_ps();
    transpose_16x16_ps(r);
    for (int k = 0; k < cols; ++k) _mm512_mask_storeu_ps(d + k * ld_dst, row_mask, r[k]);
  };
  tiles::for_each_tile<16>(
      M, N, src, ld_src, dst, ld_dst,
      [&](const float* s, float* d) {
        __m512 r[16];
        for (int k = 0; k < 16; ++k) r[k] = _mm512_loadu_ps(s + k * ld_src);
        transpose_16x16_ps(r);
        for (int k = 0; k < 16; ++k) _mm512_storeu_ps(d + k * ld_dst, r[k]);
      },
      tile);
}

void transpose_avx512(int64_t M, int64_t N, const uint16_t* src, int64_t ld_src, uint16_t* dst,
                      int64_t ld_dst) {
  tiles::for_each_tile<8>(
      M, N, src, ld_src, dst, ld_dst,
      [&](const uint16_t* s, uint16_t* d) {
        __m128i r[8];
        for (int k = 0; k < 8; ++k)
          r[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + k * ld_src));
        tiles::transpose_8x8_epi16(r);
        for (int k = 0; k < 8; ++k) _mm_storeu_si128(reinterpret_cast<__m128i*>(d + k * ld_dst), r[k]);
      },
      [&](const uint16_t* s, uint16_t* d, int rows, int cols) {
        const __mmask8 col_mask = static_cast<__mmask8>((1u << cols) - 1);
        const __mmask8 row_mask = static_cast<__mmask8>((1u << rows) - 1);
        __m128i r[8];
        for (int k = 0; k < 8; ++k)
          r[k] = k < rows ? _mm_maskz_loadu_epi16(col_mask, s + k * ld_src) : _mm_setzero_si128();
        tiles::transpose_8x8_epi16(r);
        for (int k = 0; k < cols; ++k) _mm_mask_storeu_epi16(d + k * ld_dst, row_mask, r[k]);
      });
}

void transpose_avx512(int64_t M, int64_t N, const uint8_t* src, int64_t ld_src, uint8_t* dst,
                      int64_t ld_dst) {
  tiles::for_each_tile<16>(
      M, N, src, ld_src, dst, ld_dst,
      [&](const uint8_t* s, uint8_t* d) {
        __m128i r[16];
        for (int k = 0; k < 16; ++k)
          r[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + k * ld_src));
        tiles::transpose_16x16_epi8(r);
        for (int k = 0; k < 16; ++k)
          _mm_storeu_si128(reinterpret_cast<__m128i*>(d + k * ld_dst), r[k]);
      },
      [&](const uint8_t* s, uint8_t* d, int rows, int cols) {
        const __mmask16 col_mask = static_cast<__mmask16>((1u << cols) - 1);
        const __mmask16 row_mask = static_cast<__mmask16>((1u << rows) - 1);
        __m128i r[16];
        for (int k = 0; k < 16; ++k)
          r[k] = k < rows ? _mm_maskz_loadu_epi8(col_mask, s + k * ld_src) : _mm_setzero_si128();
        tiles::transpose_16x16_epi8(r);
        for (int k = 0; k < cols; ++k) _mm_mask_storeu_epi8(d + k * ld_dst, row_mask, r[k]);
      });
}

}  // namespace quire::detail
