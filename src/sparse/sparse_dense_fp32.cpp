// SparseDenseMM and sparseDenseMMRef (SparseDenseMM.h): checks, then the active path's
// loops, or plain loops with the same fma order.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "quire/SparseDenseMM.h"
#include "quire/detail/Check.h"
#include "sparse/sparse_dense_kernels.h"

namespace quire {
namespace {

[[noreturn]] void fail(const char* where, const std::string& what) {
  throw std::invalid_argument(std::string(where) + ": " + what);
}

// The resolved arguments, or M = 0 when there is nothing to compute.
detail::Fp32MMArgs checked(const char* where, int M, int N, const int* row_ptr,
                           const int* col_idx, const float* values, const float* B, int ldb,
                           float* C, int ldc, bool accum) {
  detail::check_arg(M >= 0, where, "M", M, "must be >= 0");
  detail::check_arg(N >= 0, where, "N", N, "must be >= 0");
  detail::check_arg(ldb >= N, where, "ldb", ldb, "must be >= N");
  detail::check_arg(ldc >= N, where, "ldc", ldc, "must be >= N");
  if (int64_t{M} * N == 0) return {0, 0, row_ptr, col_idx, values, B, ldb, C, ldc, accum};
  detail::check_not_null(row_ptr, where, "row_ptr");
  detail::check_not_null(C, where, "C");
  if (row_ptr[0] != 0) fail(where, "row_ptr[0]=" + std::to_string(row_ptr[0]) + " must be 0");
  for (int i = 0; i < M; ++i)
    if (row_ptr[i + 1] < row_ptr[i])
      fail(where, "row_ptr[" + std::to_string(i + 1) + "]=" + std::to_string(row_ptr[i + 1]) +
                      " is less than row_ptr[" + std::to_string(i) + "]");
  if (row_ptr[M] > 0) {
    detail::check_not_null(col_idx, where, "col_idx");
    detail::check_not_null(values, where, "values");
    detail::check_not_null(B, where, "B");
  }
  for (int p = 0; p < row_ptr[M]; ++p)
    if (col_idx[p] < 0)
      fail(where, "col_idx[" + std::to_string(p) + "]=" + std::to_string(col_idx[p]) +
                      " must be >= 0");
  return {M, N, row_ptr, col_idx, values, B, ldb, C, ldc, accum};
}

}  // namespace

void SparseDenseMM(int M, int N, const int* row_ptr, const int* col_idx, const float* values,
                   const float* B, int ldb, float* C, int ldc, bool accum) {
  const detail::Fp32MMArgs a =
      checked("SparseDenseMM", M, N, row_ptr, col_idx, values, B, ldb, C, ldc, accum);
  if (a.M > 0) detail::sparse_dense_kernels().fp32_mm(a);
}

void sparseDenseMMRef(int M, int N, const int* row_ptr, const int* col_idx, const float* values,
                      const float* B, int ldb, float* C, int ldc, bool accum) {
  const detail::Fp32MMArgs a =
      checked("sparseDenseMMRef", M, N, row_ptr, col_idx, values, B, ldb, C, ldc, accum);
  for (int i = 0; i < a.M; ++i) {
    for (int j = 0; j < N; ++j) {
      float c = accum ? C[int64_t{i} * ldc + j] : 0.0f;
      for (int p = row_ptr[i]; p < row_ptr[i + 1]; ++p)
        c = std::fma(values[p], B[int64_t{col_idx[p]} * ldb + j], c);
      C[int64_t{i} * ldc + j] = c;
    }
  }
}

}  // namespace quire
