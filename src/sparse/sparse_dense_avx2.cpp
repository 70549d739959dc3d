// kSparseDenseAvx2: the sparse x dense loops on AVX2 (8 lanes, strips of 32 columns),
// with the exact byte-split dot step (SplitDot).
#include <cstring>

#include "simd/vec_avx2.h"
#include "sparse/sparse_dense_simd.h"

namespace quire::detail {
namespace {

struct Ymm : Avx2, SplitDot<Avx2> {
  using I = Avx2::I;
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
