// AVX2 transposes: 8 x 8 float tiles in ymm registers, 8 x 8 16-bit and 16 x 16 byte
// tiles in xmm registers; partial tiles at the edges element by element.
#include "common/transpose.h"
#include "common/transpose_tiles.h"

namespace quire::detail {
namespace {

// r[k] = row k of an 8 x 8 float tile; afterwards column k. Pairs of rows interleave
// (unpack), then quads (shuffle), then the two 128-bit halves swap (permute2f128).
inline void transpose_8x8_ps(__m256 r[8]) {
  __m256 t[8], s[8];
  for (int p = 0; p < 4; ++p) {
    t[2 * p] = _mm256_unpacklo_ps(r[2 * p], r[2 * p + 1]);
    t[2 * p + 1] = _mm256_unpackhi_ps(r[2 * p], r[2 * p + 1]);
  }
  for (int q = 0; q < 2; ++q) {  // s[4q + c]: column c (and c + 4) of rows 4q..4q+3
    s[4 * q + 0] = _mm256_shuffle_ps(t[4 * q], t[4 * q + 2], 0x44);
    s[4 * q + 1] = _mm256_shuffle_ps(t[4 * q], t[4 * q + 2], 0xEE);
    s[4 * q + 2] = _mm256_shuffle_ps(t[4 * q + 1], t[4 * q + 3], 0x44);
    s[4 * q + 3] = _mm256_shuffle_ps(t[4 * q + 1], t[4 * q + 3], 0xEE);
  }
  for (int c = 0; c < 4; ++c) {
    r[c] = _mm256_permute2f128_ps(s[c], s[4 + c], 0x20);
    r[c + 4] = _mm256_permute2f128_ps(s[c], s[4 + c], 0x31);
  }
}

}  // namespace

void transpose_avx2(int64_t M, int64_t N, const float* src, int64_t ld_src, float* dst,
                    int64_t ld_dst) {
  tiles::for_each_tile<8>(
      M, N, src, ld_src, dst, ld_dst,
      [&](const float* s, float* d) {
        __m256 r[8];
        for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(s + k * ld_src);
        transpose_8x8_ps(r);
        for (int k = 0; k < 8; ++k) _mm256_storeu_ps(d + k * ld_dst, r[k]);
      },
      [&](const float* s, float* d, int rows, int cols) {
        tiles::scalar_tile(s, ld_src, d, ld_dst, rows, cols);
      });
}

void transpose_avx2(int64_t M, int64_t N, const uint16_t* src, int64_t ld_src, uint16_t* dst,
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
        tiles::scalar_tile(s, ld_src, d, ld_dst, rows, cols);
      });
}

void transpose_avx2(int64_t M, int64_t N, const uint8_t* src, int64_t ld_src, uint8_t* dst,
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
        tiles::scalar_tile(s, ld_src, d, ld_dst, rows, cols);
      });
}

}  // namespace quire::detail
