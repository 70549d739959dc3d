// bf16 weights (quire/FbgemmFP16.h describes the computation), and quire's bf16 x bf16
// entry point. FBGEMM has no bf16 GEMM of this shape, so these names are quire's.
//
// On CPUs with AVX512-BF16 the kernels run vdpbf16ps: 32 multiply-adds per instruction,
// twice the fp32 FMA rate. For fp32 activations that requires rounding A to bf16; every
// path rounds it the same way, so the results do not depend on the CPU.
#pragma once

#include "quire/FbgemmFP16.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

using PackedGemmMatrixBF16 = PackedGemmMatrixB<bfloat16>;

// bf16 activations x bf16 weights -> fp32; the same contract as cblas_gemm_compute with
// fp32 A (whose rounding to bf16 is then the identity).
void cblas_gemm_compute(matrix_op_t transa, int m, const bfloat16* A,
                        const PackedGemmMatrixBF16& Bp, float beta, float* C, int thread_id = 0,
                        int num_threads = 1);

}  // namespace quire
QUIRE_API_END
