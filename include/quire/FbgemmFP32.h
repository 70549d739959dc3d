// fp32 weights: C = op(A) * (alpha * B) + beta * C with fp32 activations and the weights
// packed once into the blocked layout of the half-precision GEMM (FBGEMM's
// FbgemmFP32.h shape). The same loops, blocking, threading and kernels' tile shapes as
// fp16 (quire/FbgemmFP16.h), with 4-byte panel elements loaded as they are.
//
// What is computed, per output element (docs/half-precision.md has the error bound):
//   w[k][j] = alpha * B[k][j]                     once, when packing
//   acc = beta == 0 ? 0 : beta * C[i][j]; for k = 0..K-1: acc = fma(A[i][k], w, acc)
//   C[i][j] = acc
// The order is fixed, so a result never depends on the thread count, the blocking or the
// path: every path gives the same bits. With beta == 0, C is not read.
#pragma once

#include "quire/FbgemmFPCommon.h"
#include "quire/FbgemmPackMatrixB.h"
#include "quire/Types.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

// Packing fp32 weights stores alpha * B as it is.
template <>
struct TypeConverter<float> {
  float operator()(float src) const { return src; }
};

using GemmParamsFP32 = GemmParams<float>;
using PackedGemmMatrixFP32 = PackedGemmMatrixB<float>;

extern template void cblas_gemm_compute<float>(matrix_op_t, int, const float*,
                                               const PackedGemmMatrixB<float>&, float, float*,
                                               int, int);

}  // namespace quire
QUIRE_API_END
