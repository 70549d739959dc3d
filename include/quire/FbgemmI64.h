// int64 GEMM with int64 accumulation (FBGEMM's cblas_gemm_i64_i64acc):
//   C[i][j] = (accumulate ? C[i][j] : 0) + sum_k op(A)[i][k] * op(B)[k][j]   (mod 2^64)
// op(A) is M x K: A[i * lda + k], or A[i + k * lda] when transa is Transpose; op(B) is
// K x N: B[k * ldb + j], or B[k + j * ldb] when transb is Transpose. Products and sums
// wrap around (two's complement), exactly as unsigned 64-bit arithmetic. Vectorized
// (AVX-512 vpmullq; AVX2 builds the low 64 bits of each product from 32-bit multiplies)
// and cache-blocked; runs on the calling thread.
#pragma once

#include <cstdint>

#include "quire/Types.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

// Throws std::invalid_argument on negative sizes, leading dimensions shorter than a
// row, or null pointers with a non-empty product. K = 0 sets C to 0 (or leaves it, with
// accumulate); M = 0 or N = 0 does nothing.
void cblas_gemm_i64_i64acc(matrix_op_t transa, matrix_op_t transb, int M, int N, int K,
                           const int64_t* A, int lda, const int64_t* B, int ldb, bool accumulate,
                           int64_t* C, int ldc);

}  // namespace quire
QUIRE_API_END
