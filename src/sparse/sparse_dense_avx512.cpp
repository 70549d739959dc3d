// kSparseDenseAvx512: the sparse x dense loops on AVX-512 without VNNI. The dot step
// splits each word of B into its even and odd bytes as int16 and uses two vpmaddwd
// against the weights paired the same way: exact (|product pair| <= 2 * 255 * 128),
// where FBGEMM's vpmaddubsw saturates.
#include "sparse/sparse_dense_simd.h"
#include "sparse/sparse_dense_zmm.h"

namespace quire::detail {
namespace {

struct Zmm : DenseZmm {
  struct Weights {
    I even, odd;  // int16 pairs (w0, w2) and (w1, w3) in every int32 lane
  };
  static Weights weights(int32_t w) {
    const uint32_t u = static_cast<uint32_t>(w);
    const auto s16 = [](uint32_t byte) { return static_cast<uint32_t>(static_cast<uint16_t>(static_cast<int8_t>(byte))); };
    const uint32_t even = s16(u & 0xFF) | s16((u >> 16) & 0xFF) << 16;
    const uint32_t odd = s16((u >> 8) & 0xFF) | s16(u >> 24) << 16;
    return {_mm512_set1_epi32(static_cast<int>(even)), _mm512_set1_epi32(static_cast<int>(odd))};
  }
  static I dot(I acc, I b, const Weights& w) {
    const I even = _mm512_and_si512(b, _mm512_set1_epi16(0x00FF));
    const I odd = _mm512_srli_epi16(b, 8);
    return _mm512_add_epi32(acc, _mm512_add_epi32(_mm512_madd_epi16(even, w.even),
                                                  _mm512_madd_epi16(odd, w.odd)));
  }
};

}  // namespace

constinit const SparseDenseKernels kSparseDenseAvx512 = {&int8_mm<Zmm>, &fp32_mm<Zmm>,
                                                         &requant_row<Zmm>};

}  // namespace quire::detail
