// fbgemmSparseDenseInt8MM and sparseDenseInt8MMRef (SparseDenseMM.h): checks, the thread's
// rows, then the active path's loops (sparse_dense_simd.h) or FBGEMM's reference form.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "quire/SparseDenseMM.h"
#include "quire/Utils.h"
#include "quire/detail/Check.h"
#include "sparse/sparse_dense_kernels.h"

namespace quire::detail {
namespace {

[[noreturn]] void fail(const char* where, const std::string& what) {
  throw std::invalid_argument(std::string(where) + ": " + what);
}

// The arrays of a BCSRMatrix<> form the layout Bcsr.h describes.
void check_bcsr(const char* where, const BCSRMatrix<>& m) {
  const int64_t tiles = m.colTiles();
  const int64_t entries = std::max<int64_t>(tiles * m.R, 0) + 1;
  if (static_cast<int64_t>(m.rowBPtr.size()) != entries)
    fail(where, "bcsr->rowBPtr has " + std::to_string(m.rowBPtr.size()) + " entries, " +
                    std::to_string(entries) + " expected (is bcsr packed?)");
  if (m.rowBPtr[0] != 0) fail(where, "bcsr->rowBPtr[0]=" + std::to_string(m.rowBPtr[0]) + " must be 0");
  const size_t nnzb = m.colBIdx.size();
  if (static_cast<size_t>(m.rowBPtr.back()) != nnzb || m.values.size() != 4 * nnzb)
    fail(where, "bcsr->rowBPtr.back()=" + std::to_string(m.rowBPtr.back()) +
                    " must equal colBIdx's size " + std::to_string(nnzb) +
                    " and a quarter of values' size " + std::to_string(m.values.size()));
  if (static_cast<int>(m.row_offsets.size()) != m.R)
    fail(where, "bcsr->row_offsets has " + std::to_string(m.row_offsets.size()) +
                    " entries, R=" + std::to_string(m.R) + " expected");
  // Every call checks this, so the loops are OR reductions the compiler vectorizes (an
  // early-exit loop it would not); the entry at fault is looked for only after one is
  // known to exist. x lies outside [0, n) exactly when the sign bit of x | ~(x - n) is set
  // (for 0 <= n < 2^31, in uint32).
  const auto outside = [](int x, int64_t n) {
    const uint32_t u = static_cast<uint32_t>(x);
    return u | ~(u - static_cast<uint32_t>(n));
  };
  const int* ptr = m.rowBPtr.data();
  uint32_t bad = 0;
  for (int64_t e = 0; e < entries; ++e) bad |= outside(ptr[e], static_cast<int64_t>(nnzb) + 1);
  // With every entry in [0, nnzb], a decrease is a negative difference.
  for (int64_t e = 0; e + 1 < entries; ++e) bad |= static_cast<uint32_t>(ptr[e + 1] - ptr[e]);
  if (bad >> 31)
    for (int64_t e = 1; e < entries; ++e)
      if (ptr[e] < ptr[e - 1] || ptr[e] > static_cast<int64_t>(nnzb))
        fail(where, "bcsr->rowBPtr[" + std::to_string(e) + "]=" + std::to_string(ptr[e]) +
                        " is outside [rowBPtr[" + std::to_string(e - 1) + "], " +
                        std::to_string(nnzb) + "]");
  for (int64_t t = 0; t < tiles; ++t) {
    const int blocks = (std::min(m.C - static_cast<int>(t) * m.COLTILE, m.COLTILE) + 3) / 4;
    const int r0 = ptr[t * m.R], r1 = ptr[(t + 1) * m.R];
    uint32_t bad_index = 0;
    for (int r = r0; r < r1; ++r) bad_index |= outside(m.colBIdx[r], blocks);
    if ((bad_index >> 31) == 0) continue;
    for (int r = r0; r < r1; ++r)
      if (m.colBIdx[r] < 0 || m.colBIdx[r] >= blocks)
        fail(where, "bcsr->colBIdx[" + std::to_string(r) + "]=" + std::to_string(m.colBIdx[r]) +
                        " is outside [0, " + std::to_string(blocks) + ")");
  }
}

// FBGEMM's reference product: plain loops over the blocks, exact (wrapping) int32.
void int8_product_ref(int N, const BCSRMatrix<>& m, const uint8_t* B, int ldb, int32_t* C,
                      int ldc, bool accum) {
  for (int i = 0; i < m.R; ++i) {
    for (int j = 0; j < N; ++j) {
      uint32_t sum = accum ? static_cast<uint32_t>(C[int64_t{i} * ldc + j]) : 0u;
      for (int t = 0; t < m.colTiles(); ++t) {
        const int64_t e = int64_t{t} * m.R + i;
        for (int r = m.rowBPtr[e]; r < m.rowBPtr[e + 1]; ++r) {
          const int k0 = t * m.COLTILE + 4 * m.colBIdx[r];
          for (int k = k0; k < std::min(k0 + 4, m.C); ++k)
            sum += static_cast<uint32_t>(int32_t{m.values[4 * int64_t{r} + k - k0]} *
                                         int32_t{B[int64_t{k} * ldb + j]});
        }
      }
      C[int64_t{i} * ldc + j] = static_cast<int32_t>(sum);
    }
  }
}

}  // namespace

void sparse_dense_int8_mm(int N, const BCSRMatrix<>* bcsr, const uint8_t* B, int ldb,
                          int32_t* C_i32, uint8_t* C_u8, int ldc,
                          const trRequantizationParams_t& r, bool accum, int thread_id,
                          int num_threads, bool fuse_relu, bool per_channel, bool reference) {
  const char* where = reference ? "sparseDenseInt8MMRef" : "fbgemmSparseDenseInt8MM";
  check_not_null(bcsr, where, "bcsr");
  check_bcsr(where, *bcsr);
  check_arg(N >= 0, where, "N", N, "must be >= 0");
  check_arg(num_threads >= 1, where, "num_threads", num_threads, "must be >= 1");
  check_arg(thread_id >= 0 && thread_id < num_threads, where, "thread_id", thread_id,
            "must be in [0, num_threads)");
  const int M = bcsr->R, K = bcsr->C;
  if (int64_t{M} * N == 0) return;
  if (K > 0) check_not_null(B, where, "B");
  check_arg(ldb >= N, where, "ldb", ldb, "must be >= N");
  check_not_null(C_i32, where, "C_i32");
  check_not_null(C_u8, where, "C_u8");
  check_arg(ldc >= N, where, "ldc", ldc, "must be >= N");
  const TrRequantizeFlags flags{fuse_relu, r.act_zero_point == 0, true, r.bias != nullptr,
                                per_channel};
  if (reference) {
    check_tr_params(where, r, per_channel,
                    {r.act_zero_point != 0, r.act_col_offsets != nullptr, false}, 0, M);
    if (thread_id > 0) return;
    int8_product_ref(N, *bcsr, B, ldb, C_i32, ldc, accum);
    tr_requantize_ref(C_u8, C_i32, {0, M, 0, N}, ldc, ldc, r, fuse_relu, per_channel);
    return;
  }
  check_tr_params(where, r, per_channel, {!flags.act_symmetric, false, flags.has_bias}, 0, M);
  int64_t m0 = 0, m1 = 0;
  fbgemmPartition1D(thread_id, num_threads, M, m0, m1);
  if (m0 >= m1) return;
  const Int8MMArgs args{M,           N,     K,    static_cast<int>(m0), static_cast<int>(m1),
                        bcsr->rowBPtr.data(), bcsr->colBIdx.data(), bcsr->values.data(),
                        B,           ldb,   C_i32, C_u8, ldc,  accum, &r, flags};
  sparse_dense_kernels().int8_mm(args);
}

}  // namespace quire::detail
