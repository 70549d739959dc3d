// Tile transposes shared by the per-ISA transpose files (each compiles them with its own
// flags): the tile walk, and the byte / 16-bit tiles on 128-bit vectors.
#pragma once

#include <algorithm>
#include <cstdint>

#include "common/intrinsics.h"

namespace quire::detail::tiles {

// Visits the src in T x T tiles; full(s, d) transposes a whole tile, edge(s, d, rows, cols)
// a partial one (rows of src, cols of src).
template <int T, typename E, typename Full, typename Edge>
inline void for_each_tile(int64_t M, int64_t N, const E* src, int64_t ld_src, E* dst,
                          int64_t ld_dst, Full full, Edge edge) {
  for (int64_t i = 0; i < M; i += T) {
    const int rows = static_cast<int>(std::min<int64_t>(T, M - i));
    for (int64_t j = 0; j < N; j += T) {
      const int cols = static_cast<int>(std::min<int64_t>(T, N - j));
      const E* s = src + i * ld_src + j;
      E* d = dst + j * ld_dst + i;
      if (rows == T && cols == T) full(s, d);
      else edge(s, d, rows, cols);
    }
  }
}

template <typename E>
inline void scalar_tile(const E* s, int64_t ld_src, E* d, int64_t ld_dst, int rows, int cols) {
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < rows; ++r) d[c * ld_dst + r] = s[r * ld_src + c];
}

// 8 x 8 tile of 16-bit elements: r[k] holds row k; afterwards r[k] holds column k.
// Each unpack stage doubles the run of consecutive rows per column: 2, 4, then 8.
inline void transpose_8x8_epi16(__m128i r[8]) {
  __m128i a[8], b[8];
  for (int p = 0; p < 4; ++p) {  // a[2p]: columns 0-3 of rows 2p, 2p+1; a[2p+1]: columns 4-7
    a[2 * p] = _mm_unpacklo_epi16(r[2 * p], r[2 * p + 1]);
    a[2 * p + 1] = _mm_unpackhi_epi16(r[2 * p], r[2 * p + 1]);
  }
  for (int q = 0; q < 2; ++q) {  // b[4q + c/2]: columns c, c+1 of rows 4q..4q+3
    b[4 * q + 0] = _mm_unpacklo_epi32(a[4 * q], a[4 * q + 2]);
    b[4 * q + 1] = _mm_unpackhi_epi32(a[4 * q], a[4 * q + 2]);
    b[4 * q + 2] = _mm_unpacklo_epi32(a[4 * q + 1], a[4 * q + 3]);
    b[4 * q + 3] = _mm_unpackhi_epi32(a[4 * q + 1], a[4 * q + 3]);
  }
  for (int h = 0; h < 4; ++h) {  // columns 2h, 2h+1 of rows 0-7
    r[2 * h] = _mm_unpacklo_epi64(b[h], b[4 + h]);
    r[2 * h + 1] = _mm_unpackhi_epi64(b[h], b[4 + h]);
  }
}

// 16 x 16 tile of bytes, likewise in four stages (runs of 2, 4, 8, 16 rows).
inline void transpose_16x16_epi8(__m128i r[16]) {
  __m128i x[8], y[8], z[4][4], w[8][2];
  for (int p = 0; p < 8; ++p) {  // row pair p: columns 0-7 (x) and 8-15 (y)
    x[p] = _mm_unpacklo_epi8(r[2 * p], r[2 * p + 1]);
    y[p] = _mm_unpackhi_epi8(r[2 * p], r[2 * p + 1]);
  }
  for (int q = 0; q < 4; ++q) {  // z[g][q]: columns 4g..4g+3 of rows 4q..4q+3
    z[0][q] = _mm_unpacklo_epi16(x[2 * q], x[2 * q + 1]);
    z[1][q] = _mm_unpackhi_epi16(x[2 * q], x[2 * q + 1]);
    z[2][q] = _mm_unpacklo_epi16(y[2 * q], y[2 * q + 1]);
    z[3][q] = _mm_unpackhi_epi16(y[2 * q], y[2 * q + 1]);
  }
  for (int g = 0; g < 4; ++g) {  // w[h][o]: columns 2h, 2h+1 of rows 8o..8o+7
    for (int o = 0; o < 2; ++o) {
      w[2 * g][o] = _mm_unpacklo_epi32(z[g][2 * o], z[g][2 * o + 1]);
      w[2 * g + 1][o] = _mm_unpackhi_epi32(z[g][2 * o], z[g][2 * o + 1]);
    }
  }
  for (int h = 0; h < 8; ++h) {  // columns 2h, 2h+1 of rows 0-15
    r[2 * h] = _mm_unpacklo_epi64(w[h][0], w[h][1]);
    r[2 * h + 1] = _mm_unpackhi_epi64(w[h][0], w[h][1]);
  }
}

}  // namespace quire::detail::tiles
