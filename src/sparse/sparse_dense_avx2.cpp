// kSparseDenseAvx2: the sparse x dense loops on AVX2 (8 lanes, strips of 32 columns).
// The dot step is the exact byte split of sparse_dense_avx512.cpp on ymm registers.
#include <cstring>

#include "common/intrinsics.h"
#include "sparse/sparse_dense_simd.h"

namespace quire::detail {
namespace {

struct Ymm {
  using I = __m256i;
  using F = __m256;
  static constexpr int kLanes = 8;

  static I mask(int n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static I zero() { return _mm256_setzero_si256(); }
  static I add(I a, I b) { return _mm256_add_epi32(a, b); }
  static I load_b(const uint8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const I*>(p)); }
  static I load_i32(const int32_t* p, int n) {
    return n == 8 ? _mm256_loadu_si256(reinterpret_cast<const I*>(p))
                  : _mm256_maskload_epi32(p, mask(n));
  }
  static void store_i32(int32_t* p, I v, int n) {
    if (n == 8)
      _mm256_storeu_si256(reinterpret_cast<I*>(p), v);
    else
      _mm256_maskstore_epi32(p, mask(n), v);
  }
  static F set1(float x) { return _mm256_set1_ps(x); }
  static F fmadd(F a, F b, F c) { return _mm256_fmadd_ps(a, b, c); }
  static F load_f32(const float* p, int n) {
    return n == 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, mask(n));
  }
  static void store_f32(float* p, F v, int n) {
    if (n == 8)
      _mm256_storeu_ps(p, v);
    else
      _mm256_maskstore_ps(p, mask(n), v);
  }

  struct Weights {
    I even, odd;  // int16 pairs (w0, w2) and (w1, w3) in every int32 lane
  };
  static Weights weights(int32_t w) {
    const uint32_t u = static_cast<uint32_t>(w);
    const auto s16 = [](uint32_t byte) {
      return static_cast<uint32_t>(static_cast<uint16_t>(static_cast<int8_t>(byte)));
    };
    const uint32_t even = s16(u & 0xFF) | s16((u >> 16) & 0xFF) << 16;
    const uint32_t odd = s16((u >> 8) & 0xFF) | s16(u >> 24) << 16;
    return {_mm256_set1_epi32(static_cast<int>(even)), _mm256_set1_epi32(static_cast<int>(odd))};
  }
  // Exact: even and odd bytes of each word as int16, two vpmaddwd (see
  // sparse_dense_avx512.cpp).
  static I dot(I acc, I b, const Weights& w) {
    const I even = _mm256_and_si256(b, _mm256_set1_epi16(0x00FF));
    const I odd = _mm256_srli_epi16(b, 8);
    return _mm256_add_epi32(acc, _mm256_add_epi32(_mm256_madd_epi16(even, w.even),
                                                  _mm256_madd_epi16(odd, w.odd)));
  }

  // As DenseZmm::interleave for 32 columns: in 128-bit lane L of v[u], the words of
  // columns 16L + 4u .. 16L + 4u + 3; lane permutes put them in order. A partial strip's
  // rows go through a zeroed copy (AVX2 has no byte-masked load).
  static void interleave(const uint8_t* B, int64_t ldb, int rows, int cols, uint8_t* out) {
    I r[4];
    for (int k = 0; k < 4; ++k) {
      if (k >= rows) {
        r[k] = zero();
      } else if (cols == 32) {
        r[k] = _mm256_loadu_si256(reinterpret_cast<const I*>(B + k * ldb));
      } else {
        alignas(32) uint8_t row[32] = {};
        std::memcpy(row, B + k * ldb, static_cast<size_t>(cols));
        r[k] = _mm256_load_si256(reinterpret_cast<const I*>(row));
      }
    }
    const I lo01 = _mm256_unpacklo_epi8(r[0], r[1]), hi01 = _mm256_unpackhi_epi8(r[0], r[1]);
    const I lo23 = _mm256_unpacklo_epi8(r[2], r[3]), hi23 = _mm256_unpackhi_epi8(r[2], r[3]);
    const I v0 = _mm256_unpacklo_epi16(lo01, lo23), v1 = _mm256_unpackhi_epi16(lo01, lo23);
    const I v2 = _mm256_unpacklo_epi16(hi01, hi23), v3 = _mm256_unpackhi_epi16(hi01, hi23);
    I* o = reinterpret_cast<I*>(out);
    _mm256_storeu_si256(o + 0, _mm256_permute2x128_si256(v0, v1, 0x20));
    _mm256_storeu_si256(o + 1, _mm256_permute2x128_si256(v2, v3, 0x20));
    _mm256_storeu_si256(o + 2, _mm256_permute2x128_si256(v0, v1, 0x31));
    _mm256_storeu_si256(o + 3, _mm256_permute2x128_si256(v2, v3, 0x31));
  }

  // RowQ's formula, 8 columns at a time; two unsigned packs and a dword permute bring
  // the 8 bytes together.
  static void requant_row(const int32_t* in, uint8_t* out, int n, const RowQ& q) {
    const I row_off = _mm256_set1_epi32(q.row_off), wzp = _mm256_set1_epi32(q.wzp);
    const F bias = _mm256_set1_ps(q.bias), mult = _mm256_set1_ps(q.mult);
    const I lo_pre = _mm256_set1_epi32(-256), hi_pre = _mm256_set1_epi32(511);
    const I zp = _mm256_set1_epi32(q.zp), lo = _mm256_set1_epi32(q.lo);
    const I hi = _mm256_set1_epi32(255);
    const I gather = _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0);
    for (int j = 0; j < n; j += 8) {
      const int w = n - j < 8 ? n - j : 8;
      I x = _mm256_sub_epi32(load_i32(in + j, w), row_off);
      if (q.col_off != nullptr)
        x = _mm256_sub_epi32(x, _mm256_mullo_epi32(load_i32(q.col_off + j, w), wzp));
      const F y = _mm256_mul_ps(_mm256_add_ps(_mm256_cvtepi32_ps(x), bias), mult);
      I v = _mm256_min_epi32(_mm256_max_epi32(_mm256_cvtps_epi32(y), lo_pre), hi_pre);
      v = _mm256_max_epi32(_mm256_min_epi32(_mm256_add_epi32(v, zp), hi), lo);
      v = _mm256_packus_epi32(v, v);
      v = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(v, v), gather);
      if (w == 8) {
        _mm_storel_epi64(reinterpret_cast<__m128i*>(out + j), _mm256_castsi256_si128(v));
      } else {
        alignas(16) uint8_t bytes[16];
        _mm_store_si128(reinterpret_cast<__m128i*>(bytes), _mm256_castsi256_si128(v));
        std::memcpy(out + j, bytes, static_cast<size_t>(w));
      }
    }
  }
};

}  // namespace

constinit const SparseDenseKernels kSparseDenseAvx2 = {&int8_mm<Ymm>, &fp32_mm<Ymm>,
                                                       &Ymm::requant_row};

}  // namespace quire::detail
