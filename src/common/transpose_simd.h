// The transposes of transpose.h, written once over the vector vocabulary V (Avx2 in
// simd/vec_avx2.h, Avx512 in simd/vec_avx512.h): float tiles of V::W x V::W in V's
// registers (V::transpose), 16-bit tiles of 8 x 8 and byte tiles of 16 x 16 in xmm
// registers. Partial tiles at the edges: float ones load their rows' first columns
// (rows past the edge read as zero) and store the first rows of each column, by opmasks
// where V has them (V::kOpmasks), else by maskload and exact-size stores; 8- and 16-bit
// ones likewise by byte opmasks, else element by element. Nothing outside the matrices
// is touched. Internal linkage (see simd/vec_avx2.h).
#pragma once

#include <cstdint>

#include "common/transpose_tiles.h"

namespace quire::detail {
namespace {

template <class V>
struct Transposes {
  using F = typename V::F;
  static constexpr int W = V::W;

  static void run(int64_t M, int64_t N, const float* src, int64_t ld_src, float* dst,
                  int64_t ld_dst) {
    const auto tile = [&](const float* s, float* d, int rows, int cols) {
      const typename V::Lanes col_lanes(cols), row_lanes(rows);
      F r[W];
      for (int k = 0; k < W; ++k) r[k] = k < rows ? V::load(s + k * ld_src, col_lanes) : V::zerof();
      V::transpose(r);
      for (int k = 0; k < cols; ++k) {
        if constexpr (V::kOpmasks)
          V::store_masked(d + k * ld_dst, row_lanes, r[k]);
        else
          V::store(d + k * ld_dst, row_lanes, r[k]);
      }
    };
    tiles::for_each_tile<W>(
        M, N, src, ld_src, dst, ld_dst,
        [&](const float* s, float* d) {
          F r[W];
          for (int k = 0; k < W; ++k) r[k] = V::loadf(s + k * ld_src);
          V::transpose(r);
          for (int k = 0; k < W; ++k) V::storef(d + k * ld_dst, r[k]);
        },
        tile);
  }

  // E is uint16_t (8 x 8 tiles, tiles::transpose_8x8_epi16) or uint8_t (16 x 16 tiles,
  // tiles::transpose_16x16_epi8): T rows of 16 bytes each.
  template <class E>
  static void run(int64_t M, int64_t N, const E* src, int64_t ld_src, E* dst, int64_t ld_dst) {
    constexpr int T = 16 / sizeof(E);
    const auto transpose = [](__m128i r[T]) {
      if constexpr (T == 8)
        tiles::transpose_8x8_epi16(r);
      else
        tiles::transpose_16x16_epi8(r);
    };
    tiles::for_each_tile<T>(
        M, N, src, ld_src, dst, ld_dst,
        [&](const E* s, E* d) {
          __m128i r[T];
          for (int k = 0; k < T; ++k)
            r[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + k * ld_src));
          transpose(r);
          for (int k = 0; k < T; ++k) _mm_storeu_si128(reinterpret_cast<__m128i*>(d + k * ld_dst), r[k]);
        },
        [&](const E* s, E* d, int rows, int cols) {
          if constexpr (V::kOpmasks) {
            const auto col_mask = V::byte_mask(cols * static_cast<int>(sizeof(E)));
            const auto row_mask = V::byte_mask(rows * static_cast<int>(sizeof(E)));
            __m128i r[T];
            for (int k = 0; k < T; ++k)
              r[k] = k < rows ? V::load_bytes(s + k * ld_src, col_mask) : _mm_setzero_si128();
            transpose(r);
            for (int k = 0; k < cols; ++k) V::store_bytes(d + k * ld_dst, row_mask, r[k]);
          } else {
            tiles::scalar_tile(s, ld_src, d, ld_dst, rows, cols);
          }
        });
  }
};

}  // namespace
}  // namespace quire::detail
