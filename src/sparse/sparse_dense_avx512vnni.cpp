// kSparseDenseAvx512Vnni: the sparse x dense loops on AVX512-VNNI. A 1 x 4 weight block
// is exactly vpdpbusd's signed operand: one broadcast word against the interleaved B
// (the unsigned operand) adds the block's four products to each column, exactly.
#include "sparse/sparse_dense_simd.h"
#include "sparse/sparse_dense_zmm.h"

namespace quire::detail {
namespace {

struct ZmmVnni : DenseZmm {
  using Weights = I;
  static Weights weights(int32_t w) { return _mm512_set1_epi32(w); }
  static I dot(I acc, I b, const Weights& w) { return _mm512_dpbusd_epi32(acc, b, w); }
};

}  // namespace

constinit const SparseDenseKernels kSparseDenseAvx512Vnni = {
    &int8_mm<ZmmVnni>, &fp32_mm<ZmmVnni>, &requant_row<ZmmVnni>};

}  // namespace quire::detail
