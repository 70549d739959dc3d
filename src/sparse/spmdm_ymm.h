// SpmdmYmm: the vector vocabulary of spmdm_simd.h on AVX2, 16 int16 rows per ymm.
// spmdm_avx2.cpp runs it alone; spmdm_avx512.cpp for chunks of at most 16 rows. Included
// only by those files; internal linkage.
#pragma once

#include <cstdint>

#include "common/intrinsics.h"
#include "sparse/spmdm_simd.h"

namespace quire::detail {
namespace {

struct SpmdmYmm {
  using I = __m256i;
  static constexpr int kLanes16 = 16;
  // Chunks of up to 64 rows: 8 accumulators + 4 operands + the weight pair, 13 of 16 ymm.
  static constexpr int kMaxNv = 4;

  static I zero() { return _mm256_setzero_si256(); }
  static I load(const int16_t* p) {
    return _mm256_load_si256(reinterpret_cast<const __m256i*>(p));
  }
  static void store(int32_t* p, I v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }
  // (v1, v2) as int16 in every 32-bit lane, v1 low.
  static I weight_pair(int8_t v1, int8_t v2) { return _mm256_set1_epi32(pack_pair(v1, v2)); }
  static I unpacklo(I a, I b) { return _mm256_unpacklo_epi16(a, b); }
  static I unpackhi(I a, I b) { return _mm256_unpackhi_epi16(a, b); }
  static I madd(I a, I w) { return _mm256_madd_epi16(a, w); }
  static I add(I a, I b) { return _mm256_add_epi32(a, b); }

  // C[r * ldc + j] (+)= s[j * ld + r] for r < rows <= 8, j < cols <= 16: two 8 x 8 int32
  // transposes, then every load of C before the first store. Columns of s at or past
  // cols are not read; s and ld keep 32-byte alignment.
  static void add_sums(const int32_t* s, int64_t ld, int rows, int cols, int32_t* C,
                       int64_t ldc, bool accumulation) {
    I row[2][8];
    const int halves = cols > 8 ? 2 : 1;
    for (int h = 0; h < halves; ++h) transpose_8x8(s + 8 * h * ld, ld, cols - 8 * h, row[h]);
    const I iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const I mask[2] = {_mm256_cmpgt_epi32(_mm256_set1_epi32(cols), iota),
                       _mm256_cmpgt_epi32(_mm256_set1_epi32(cols - 8), iota)};
    if (accumulation) {
      for (int r = 0; r < rows; ++r) {
        for (int h = 0; h < halves; ++h) {
          const I c = load_c(C + r * ldc + 8 * h, mask[h], cols - 8 * h);
          row[h][r] = _mm256_add_epi32(row[h][r], c);
        }
      }
    }
    for (int r = 0; r < rows; ++r) {
      for (int h = 0; h < halves; ++h)
        store_c(C + r * ldc + 8 * h, mask[h], cols - 8 * h, row[h][r]);
    }
  }

 private:
  // row[r] = (s[0 * ld + r], s[1 * ld + r], ..., s[7 * ld + r]); columns >= cols read
  // as 0.
  static void transpose_8x8(const int32_t* s, int64_t ld, int cols, I row[8]) {
    I t[8], x[8], u[8];
    for (int j = 0; j < 8; ++j)
      t[j] = j < cols ? _mm256_load_si256(reinterpret_cast<const __m256i*>(s + ld * j)) : zero();
    // x[2h]: columns 2h, 2h+1 at rows 0, 1 | 4, 5; x[2h+1]: rows 2, 3 | 6, 7.
    for (int h = 0; h < 4; ++h) {
      x[2 * h] = _mm256_unpacklo_epi32(t[2 * h], t[2 * h + 1]);
      x[2 * h + 1] = _mm256_unpackhi_epi32(t[2 * h], t[2 * h + 1]);
    }
    for (int h = 0; h < 2; ++h) {  // u[4h + r]: columns 4h .. 4h+3 at rows r | r + 4
      const I* y = x + 4 * h;
      u[4 * h + 0] = _mm256_unpacklo_epi64(y[0], y[2]);
      u[4 * h + 1] = _mm256_unpackhi_epi64(y[0], y[2]);
      u[4 * h + 2] = _mm256_unpacklo_epi64(y[1], y[3]);
      u[4 * h + 3] = _mm256_unpackhi_epi64(y[1], y[3]);
    }
    for (int r = 0; r < 4; ++r) {
      row[r] = _mm256_permute2x128_si256(u[r], u[4 + r], 0x20);
      row[r + 4] = _mm256_permute2x128_si256(u[r], u[4 + r], 0x31);
    }
  }
  static I load_c(const int32_t* c, I mask, int n) {
    return n >= 8 ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(c))
                  : _mm256_maskload_epi32(c, mask);
  }
  static void store_c(int32_t* c, I mask, int n, I v) {
    if (n >= 8)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(c), v);
    else
      _mm256_maskstore_epi32(c, mask, v);
  }
};

}  // namespace
}  // namespace quire::detail
