// kSparseDenseAvx512: the sparse x dense loops on AVX-512 without VNNI, with the exact
// byte-split dot step (SplitDot in sparse_dense_simd.h).
#include "sparse/sparse_dense_simd.h"
#include "sparse/sparse_dense_zmm.h"

namespace quire::detail {
namespace {

struct Zmm : DenseZmm, SplitDot<Avx512> {
  using I = Avx512::I;
};

}  // namespace

constinit const SparseDenseKernels kSparseDenseAvx512 = {&int8_mm<Zmm>, &fp32_mm<Zmm>,
                                                         &requant_row<Zmm>};

}  // namespace quire::detail
