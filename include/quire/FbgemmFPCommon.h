// The compute entry of the half-precision-weight GEMM and FBGEMM's other public names of
// fbgemm/FbgemmFPCommon.h.
//
// cblas_gemm_compute: C (m x N, row-major, ld N) = op(A) * Bp + beta * C, A m x K
// row-major (K x m when transa is Transpose; FBGEMM accepts only NoTranspose). Callers
// run it once per thread_id in [0, num_threads); together the calls cover C. What is
// computed, bit for bit on every path, is in quire/FbgemmFP16.h. Throws
// std::invalid_argument for bad arguments, including a Bp whose fields do not describe
// one layout. As in FBGEMM, packed() is not consulted (a matrix that unpackFromSrc left
// in plain order computes with whatever pmat() holds).
//
// GemmParams, funcptr_t, kernel_array_t, isa_descriptor and partition_array_t are FBGEMM's
// kernel-table types, provided so that code naming them compiles; quire's kernels have
// their own contract (src/fp16/half_kernels.h) and no such tables are exported.
#pragma once

#include <array>
#include <cstdint>
#include <tuple>

#include "quire/FbgemmPackMatrixB.h"
#include "quire/Types.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

constexpr int PARTITION_SIZE = 121;
using partition_array_t = std::array<std::array<std::array<int, 2>, 2>, PARTITION_SIZE>;

template <typename T>
struct GemmParams {
  uint64_t k;
  float* A;
  const T* B;
  float beta;
  float* C;
  uint64_t ldc;
  uint64_t b_block_cols;
  uint64_t b_block_size;
};

template <typename T>
using funcptr_t = void (*)(GemmParams<T>*);

constexpr int MAX_KERNEL_NROWS = 14;

template <typename T>
using kernel_array_t = std::array<funcptr_t<T>, MAX_KERNEL_NROWS + 1>;
template <typename T>
using isa_descriptor = std::tuple<kernel_array_t<T>, partition_array_t>;

template <typename T>
void cblas_gemm_compute(matrix_op_t transa, int m, const float* A, const PackedGemmMatrixB<T>& Bp,
                        float beta, float* C, int thread_id = 0, int num_threads = 1);

extern template void cblas_gemm_compute<float16>(matrix_op_t, int, const float*,
                                                 const PackedGemmMatrixB<float16>&, float,
                                                 float*, int, int);
extern template void cblas_gemm_compute<bfloat16>(matrix_op_t, int, const float*,
                                                  const PackedGemmMatrixB<bfloat16>&, float,
                                                  float*, int, int);

}  // namespace quire
QUIRE_API_END
