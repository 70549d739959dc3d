// kSparseDenseAvx2: the sparse x dense loops on AVX2 (8 lanes, strips of 32 columns).
// The dot step is the exact byte split of sparse_dense_avx512.cpp on ymm registers.
#include <cstring>

#include "simd/vec_avx2.h"
#include "sparse/sparse_dense_simd.h"

namespace quire::detail {
namespace {

struct Ymm : Avx2 {
  static I load_b(const uint8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const I*>(p)); }

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
    return {set1i(static_cast<int32_t>(even)), set1i(static_cast<int32_t>(odd))};
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
        r[k] = zeroi();
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
};

}  // namespace

constinit const SparseDenseKernels kSparseDenseAvx2 = {&int8_mm<Ymm>, &fp32_mm<Ymm>,
                                                       &requant_row<Ymm>};

}  // namespace quire::detail
