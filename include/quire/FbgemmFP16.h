// Half-precision weights: C = op(A) * (alpha * B) + beta * C with fp32 activations and the
// weights stored once as fp16 or bf16, accumulated in fp32 (FBGEMM's FbgemmFP16.h shape;
// the bf16 names are in quire/FbgemmBF16.h).
//
// What is computed, per output element (docs/half-precision.md has the error bounds):
//   w[k][j] = C()(alpha * B[k][j])                once, when packing (TypeConverter<T>,
//                                                 quire/FbgemmPackMatrixB.h)
//   fp16:  acc = beta == 0 ? 0 : beta * C[i][j]; for k = 0..K-1: acc = fma(A[i][k], w, acc)
//   bf16:  A[i][k] is rounded to bf16 too (every product is then exact in fp32), and each
//          pair of k is added odd first: acc = fma(a[2t+1], w[2t+1], acc), then 2t.
//   C[i][j] = acc
// The order is fixed, so a result never depends on the thread count or the blocking, and
// every path gives the same bits (vdpbf16ps, which does exactly the bf16 steps above,
// flushes denormal inputs and results to zero: values below 2^-126 may differ there).
// With beta == 0, C is not read (NaN in it does not propagate).
#pragma once

#include "quire/FbgemmFPCommon.h"
#include "quire/FbgemmPackMatrixB.h"
#include "quire/FloatConversion.h"
#include "quire/Types.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

// The fp16-weight matrix (FBGEMM's name); layout and accessors in
// quire/FbgemmPackMatrixB.h, cblas_gemm_compute in quire/FbgemmFPCommon.h.
using PackedGemmMatrixFP16 = PackedGemmMatrixB<float16>;

}  // namespace quire
QUIRE_API_END
