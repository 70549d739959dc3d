// DenseZmm: the AVX-512 (F/BW/VL/DQ) vocabulary of sparse_dense_simd.h (Avx512 and the
// interleave), without its dot step, which sparse_dense_avx512.cpp (exact byte split)
// and sparse_dense_avx512vnni.cpp (vpdpbusd) add. Internal linkage.
#pragma once

#include <cstdint>

#include "simd/vec_avx512.h"
#include "sparse/sparse_dense_kernels.h"

namespace quire::detail {
namespace {

struct DenseZmm : Avx512 {
  // out = the 4 x cols bytes at B (rows ldb apart; rows past `rows` and columns past
  // cols as 0) as 64 words (B[0][j], B[1][j], B[2][j], B[3][j]), j ascending over four
  // vectors. Byte and word unpacks give, in 128-bit lane L of v[u], the words of columns
  // 16L + 4u .. 16L + 4u + 3; a 4 x 4 transpose of 128-bit lanes puts them in order.
  static void interleave(const uint8_t* B, int64_t ldb, int rows, int cols, uint8_t* out) {
    const __mmask64 m = cols == 64 ? ~__mmask64{0} : (__mmask64{1} << cols) - 1;
    I r[4];
    for (int k = 0; k < 4; ++k) r[k] = k < rows ? _mm512_maskz_loadu_epi8(m, B + k * ldb) : zeroi();
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
};

}  // namespace
}  // namespace quire::detail
