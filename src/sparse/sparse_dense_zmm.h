// DenseZmm: the AVX-512 (F/BW/VL/DQ) vocabulary of sparse_dense_simd.h, without its dot
// step, which sparse_dense_avx512.cpp (exact byte split) and sparse_dense_avx512vnni.cpp
// (vpdpbusd) add. Internal linkage.
#pragma once

#include <cstdint>

#include "common/intrinsics.h"
#include "sparse/sparse_dense_kernels.h"

namespace quire::detail {
namespace {

struct DenseZmm {
  using I = __m512i;
  using F = __m512;
  static constexpr int kLanes = 16;

  static __mmask16 mask16(int n) { return static_cast<__mmask16>((1u << n) - 1); }
  static I zero() { return _mm512_setzero_si512(); }
  static I add(I a, I b) { return _mm512_add_epi32(a, b); }
  static I load_b(const uint8_t* p) { return _mm512_loadu_si512(p); }
  static I load_i32(const int32_t* p, int n) {
    return n == 16 ? _mm512_loadu_si512(p) : _mm512_maskz_loadu_epi32(mask16(n), p);
  }
  static void store_i32(int32_t* p, I v, int n) {
    if (n == 16)
      _mm512_storeu_si512(p, v);
    else
      _mm512_mask_storeu_epi32(p, mask16(n), v);
  }
  static F set1(float x) { return _mm512_set1_ps(x); }
  static F fmadd(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }
  static F load_f32(const float* p, int n) {
    return n == 16 ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(mask16(n), p);
  }
  static void store_f32(float* p, F v, int n) {
    if (n == 16)
      _mm512_storeu_ps(p, v);
    else
      _mm512_mask_storeu_ps(p, mask16(n), v);
  }

  // out = the 4 x cols bytes at B (rows ldb apart; rows past `rows` and columns past
  // cols as 0) as 64 words (B[0][j], B[1][j], B[2][j], B[3][j]), j ascending over four
  // vectors. Byte and word unpacks give, in 128-bit lane L of v[u], the words of columns
  // 16L + 4u .. 16L + 4u + 3; a 4 x 4 transpose of 128-bit lanes puts them in order.
  static void interleave(const uint8_t* B, int64_t ldb, int rows, int cols, uint8_t* out) {
    const __mmask64 m = cols == 64 ? ~__mmask64{0} : (__mmask64{1} << cols) - 1;
    I r[4];
    for (int k = 0; k < 4; ++k) r[k] = k < rows ? _mm512_maskz_loadu_epi8(m, B + k * ldb) : zero();
    const I lo01 = _mm512_unpacklo_epi8(r[0], r[1]), hi01 = _mm512_unpackhi_epi8(r[0], r[1]);
    const I lo23 = _mm512_unpacklo_epi8(r[2], r[3]), hi23 = _mm512_unpackhi_epi8(r[2], r[3]);
    const I v0 = _mm512_unpacklo_epi16(lo01, lo23), v1 = _mm512_unpackhi_epi16(lo01, lo23);
    const I v2 = _mm512_unpacklo_epi16(hi01, hi23), v3 = _mm512_unpackhi_epi16(hi01, hi23);
    const I t0 = _mm512_shuffle_i32x4(v0, v1, 0x44), t1 = _mm512_shuffle_i32x4(v2, v3, 0x44);
    const I t2 = _mm512_shuffle_i32x4(v0, v1, 0xEE), t3 = _mm512_shuffle_i32x4(v2, v3, 0xEE);
    _mm512_storeu_si512(out, _mm512_shuffle_i32x4(t0, t1, 0x88));
    _mm512_storeu_si512(out + 64, _mm512_shuffle_i32x4(t0, t1, 0xDD));
    _mm512_storeu_si512(out + 128, _mm512_shuffle_i32x4(t2, t3, 0x88));
    _mm512_storeu_si512(out + 192, _mm512_shuffle_i32x4(t2, t3, 0xDD));
  }

  // RowQ's formula, 16 columns at a time (requant_one in sparse_dense_kernels.h).
  static void requant_row(const int32_t* in, uint8_t* out, int n, const RowQ& q) {
    const I row_off = _mm512_set1_epi32(q.row_off), wzp = _mm512_set1_epi32(q.wzp);
    const F bias = _mm512_set1_ps(q.bias), mult = _mm512_set1_ps(q.mult);
    const I lo_pre = _mm512_set1_epi32(-256), hi_pre = _mm512_set1_epi32(511);
    const I zp = _mm512_set1_epi32(q.zp), lo = _mm512_set1_epi32(q.lo);
    const I hi = _mm512_set1_epi32(255);
    for (int j = 0; j < n; j += 16) {
      const int w = n - j < 16 ? n - j : 16;
      I x = _mm512_sub_epi32(load_i32(in + j, w), row_off);
      if (q.col_off != nullptr)
        x = _mm512_sub_epi32(x, _mm512_mullo_epi32(load_i32(q.col_off + j, w), wzp));
      const F y = _mm512_mul_ps(_mm512_add_ps(_mm512_cvtepi32_ps(x), bias), mult);
      I v = _mm512_min_epi32(_mm512_max_epi32(_mm512_cvtps_epi32(y), lo_pre), hi_pre);
      v = _mm512_max_epi32(_mm512_min_epi32(_mm512_add_epi32(v, zp), hi), lo);
      _mm_mask_storeu_epi8(out + j, mask16(w), _mm512_cvtepi32_epi8(v));
    }
  }
};

}  // namespace
}  // namespace quire::detail
