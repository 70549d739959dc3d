// Sparse x dense products of FBGEMM's FbgemmSparse.h and spmmUtils.h. The sparse matrix
// is the left one (the weights, as in C^T = W * X^T), so that each nonzero of row i
// scales a contiguous row of the dense matrix.
//
// SparseDenseMM (fp32, CSR): for i < M, j < N, over row i's nonzeros p in order,
//   c = accum ? C[i * ldc + j] : +0.0f;   c = fma(values[p], B[col_idx[p] * ldb + j], c)
// one rounding per nonzero, in CSR order, on every path (FBGEMM's AVX2 / AVX-512
// order), so results are bit-identical across paths and thread counts.
//
// fbgemmSparseDenseInt8MM (uint8 activations x int8 BCSRMatrix<> weights): for
// i < M = bcsr->R, j < N,
//   C_i32[i * ldc + j] (+)= sum_k W[i][k] * B[k * ldb + j]           (exact, wrapping)
//   C_u8[i * ldc + j]  = the trRequantizeOpt formula (SparseRequantize.h) of C_i32, with
//                        ACT_SYMMETRIC = (act_zero_point == 0), HAS_BIAS = (bias != null)
//                        and WEIGHT_SYMMETRIC: act_col_offsets and weight_zero_points are
//                        not read (sparse weights are symmetric).
// Row i of the output is output channel i: per-channel (OUT_CHANNEL) arrays have M
// entries. C_i32 is M x ldc and holds the int32 product on return; accum adds to it.
// Threads split the rows: calls with every thread_id in [0, num_threads) together
// produce the whole output, bit-identical for any thread count.
#pragma once

#include <cstdint>
#include <memory>

#include "quire/Bcsr.h"
#include "quire/SparseRequantize.h"
#include "quire/Types.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

namespace detail {
void sparse_dense_int8_mm(int N, const BCSRMatrix<>* bcsr, const uint8_t* B, int ldb,
                          int32_t* C_i32, uint8_t* C_u8, int ldc,
                          const trRequantizationParams_t& rParams, bool accum, int thread_id,
                          int num_threads, bool fuse_relu, bool per_channel, bool reference);
}  // namespace detail

// Throws std::invalid_argument for negative M or N, null arrays (when M * N > 0),
// ldb or ldc < N, a row_ptr that does not start at 0 or decreases, or a negative column
// index. Column indices are not bounded above (there is no K): B must have their rows.
void SparseDenseMM(int M, int N, const int* row_ptr, const int* col_idx, const float* values,
                   const float* B, int ldb, float* C, int ldc, bool accum = false);

// The same product as plain loops (FBGEMM's reference, with the same fma order).
void sparseDenseMMRef(int M, int N, const int* row_ptr, const int* col_idx, const float* values,
                      const float* B, int ldb, float* C, int ldc, bool accum = false);

// B is K x N (rows ldb apart, K = bcsr->C). Throws std::invalid_argument for a null or
// inconsistent bcsr, N < 0, null arrays, ldb or ldc < N, a bad thread split, a non-finite
// or zero C_scale or non-finite act_times_w_scale, C_zero_point outside [0, 255], or a
// null weight_row_offsets with act_zero_point != 0.
template <bool FUSE_RELU, QuantizationGranularity Q_GRAN>
void fbgemmSparseDenseInt8MM(int N, const std::unique_ptr<BCSRMatrix<>>& bcsr, const uint8_t* B,
                             int ldb, int32_t* C_i32, uint8_t* C_u8, int ldc,
                             trRequantizationParams_t& rParams, bool accum = false,
                             int thread_id = 0, int num_threads = 1) {
  static_assert(Q_GRAN != QuantizationGranularity::GROUP, "GROUP granularity is not supported");
  detail::sparse_dense_int8_mm(N, bcsr.get(), B, ldb, C_i32, C_u8, ldc, rParams, accum,
                               thread_id, num_threads, FUSE_RELU,
                               Q_GRAN == QuantizationGranularity::OUT_CHANNEL, false);
}

// FBGEMM's reference form: plain loops, then trRequantizeRef (its float formula, and the
// column offsets subtracted when act_col_offsets is non-null). Same checks; thread 0
// computes everything, other threads return.
template <bool FUSE_RELU, QuantizationGranularity Q_GRAN>
void sparseDenseInt8MMRef(int N, const std::unique_ptr<BCSRMatrix<>>& bcsr, const uint8_t* B,
                          int ldb, int32_t* C_i32, uint8_t* C_u8, int ldc,
                          trRequantizationParams_t& rParams, bool accum = false,
                          int thread_id = 0, int num_threads = 1) {
  static_assert(Q_GRAN != QuantizationGranularity::GROUP, "GROUP granularity is not supported");
  detail::sparse_dense_int8_mm(N, bcsr.get(), B, ldb, C_i32, C_u8, ldc, rParams, accum,
                               thread_id, num_threads, FUSE_RELU,
                               Q_GRAN == QuantizationGranularity::OUT_CHANNEL, true);
}

}  // namespace quire
QUIRE_API_END
