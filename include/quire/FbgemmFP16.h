// Half-precision weights: C = op(A) * (alpha * B) + beta * C with fp32 activations and the
// weights stored once as fp16 or bf16, accumulated in fp32 (FBGEMM's FbgemmFP16.h shape;
// the bf16 names are in quire/FbgemmBF16.h).
//
// What is computed, per output element (docs/half-precision.md has the error bounds):
//   w[k][j] = round_T(alpha * B[k][j])            once, when packing (finite values saturate)
//   fp16:  acc = beta == 0 ? 0 : beta * C[i][j]; for k = 0..K-1: acc = fma(A[i][k], w, acc)
//   bf16:  A[i][k] is rounded to bf16 too (every product is then exact in fp32), and each
//          pair of k is added odd first: acc = fma(a[2t+1], w[2t+1], acc), then 2t.
//   C[i][j] = acc
// The order is fixed, so a result never depends on the thread count or the blocking, and
// every path gives the same bits (vdpbf16ps, which does exactly the bf16 steps above,
// flushes denormal inputs and results to zero: values below 2^-126 may differ there).
// With beta == 0, C is not read (NaN in it does not propagate).
#pragma once

#include <cstdint>
#include <memory>
#include <type_traits>

#include "quire/FloatConversion.h"
#include "quire/Types.h"

namespace quire {

// Weights B (nrow = K rows x ncol = N columns) scaled by alpha, converted and packed once
// into the layout the kernels stream (quire/detail/HalfGemm.h). smat is K x N row-major,
// or N x K row-major when trans is Transpose. brow is the K block of the compute loops
// (FBGEMM's meaning); it changes speed only, never results. Throws std::invalid_argument
// for bad arguments. T is float16 or bfloat16.
template <class T>
class PackedGemmMatrixB {
  static_assert(std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>,
                "PackedGemmMatrixB holds float16 or bfloat16 weights");

 public:
  using value_type = T;
  using size_type = uint64_t;

  PackedGemmMatrixB(matrix_op_t trans, int nrow, int ncol, float alpha, const float* smat,
                    int brow = 512);
  PackedGemmMatrixB(PackedGemmMatrixB&&) noexcept = default;
  PackedGemmMatrixB& operator=(PackedGemmMatrixB&&) noexcept = default;

  int numRows() const { return nrow_; }
  int numCols() const { return ncol_; }
  int blockRowSize() const { return brow_; }
  int blockColSize() const { return 32; }  // panel width
  int matSize() const { return mat_size_; }  // packed elements, padding included
  T* pmat() const { return pmat_.get(); }
  const T* data() const { return pmat_.get(); }
  bool packed() const { return true; }

  // The K x N rounded weights into origin_buf, K x N row-major (N x K when transposed).
  void unpack(T* origin_buf, matrix_op_t trans) const;

 private:
  struct Free {
    void operator()(T* p) const;
  };
  int nrow_, ncol_, brow_, mat_size_;
  std::unique_ptr<T, Free> pmat_;
};

using PackedGemmMatrixFP16 = PackedGemmMatrixB<float16>;

// C (m x N, row-major, ld N) = A * Bp + beta * C, where A is m x K row-major (K x m when
// transa is Transpose) and Bp is K x N. Callers run it once per thread_id in
// [0, num_threads) (each computes its own rectangle of C); together the calls cover C.
// Throws std::invalid_argument for bad arguments.
template <class T>
void cblas_gemm_compute(matrix_op_t transa, int m, const float* A, const PackedGemmMatrixB<T>& Bp,
                        float beta, float* C, int thread_id = 0, int num_threads = 1);

extern template class PackedGemmMatrixB<float16>;
extern template class PackedGemmMatrixB<bfloat16>;
extern template void cblas_gemm_compute<float16>(matrix_op_t, int, const float*,
                                                 const PackedGemmMatrixB<float16>&, float,
                                                 float*, int, int);
extern template void cblas_gemm_compute<bfloat16>(matrix_op_t, int, const float*,
                                                  const PackedGemmMatrixB<bfloat16>&, float,
                                                  float*, int, int);

}  // namespace quire
