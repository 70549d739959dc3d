// cblas_gemm_i64_i64acc: checks, then BLIS-style blocking: for each NCB x KCB block of
// op(B) packed into kNr-wide panels, each MCB x KCB block of op(A) is packed row-major
// and the active path's micro-kernel computes MR x kNr tiles; the first K block
// stores (or adds to C, with accumulate), later ones add.
#include <algorithm>
#include <vector>

#include "cpu/isa_record.h"
#include "i64/gemm_i64.h"
#include "quire/FbgemmI64.h"
#include "quire/PackingTraits.h"
#include "quire/Utils.h"
#include "quire/detail/Check.h"

namespace quire {
namespace detail::i64 {
namespace {

// PackingTraits<int64_t, int64_t, avx512> publishes this blocking.
using Traits = PackingTraits<int64_t, int64_t, inst_set_t::avx512>;
static_assert(Traits::NR == kNr && Traits::KCB == kKcb && Traits::MCB == kMcb &&
              Traits::NCB == kNcb);

}  // namespace
}  // namespace detail::i64

void cblas_gemm_i64_i64acc(matrix_op_t transa, matrix_op_t transb, int M, int N, int K,
                           const int64_t* A, int lda, const int64_t* B, int ldb, bool accumulate,
                           int64_t* C, int ldc) {
  using namespace detail::i64;
  const char* where = "cblas_gemm_i64_i64acc";
  const bool ta = transa == matrix_op_t::Transpose, tb = transb == matrix_op_t::Transpose;
  detail::check_arg(ta || transa == matrix_op_t::NoTranspose, where, "transa",
                    static_cast<int>(transa), "is not a matrix_op_t");
  detail::check_arg(tb || transb == matrix_op_t::NoTranspose, where, "transb",
                    static_cast<int>(transb), "is not a matrix_op_t");
  detail::check_arg(M >= 0, where, "M", M, "must be >= 0");
  detail::check_arg(N >= 0, where, "N", N, "must be >= 0");
  detail::check_arg(K >= 0, where, "K", K, "must be >= 0");
  if (M == 0 || N == 0) return;
  detail::check_not_null(C, where, "C");
  detail::check_arg(ldc >= N, where, "ldc", ldc, "must be >= N");
  if (K > 0) {
    detail::check_not_null(A, where, "A");
    detail::check_not_null(B, where, "B");
    detail::check_arg(lda >= (ta ? M : K), where, "lda", lda,
                      ta ? "must be >= M for a transposed A" : "must be >= K");
    detail::check_arg(ldb >= (tb ? K : N), where, "ldb", ldb,
                      tb ? "must be >= K for a transposed B" : "must be >= N");
  }
  if (K == 0) {  // the empty sum
    if (!accumulate)
      for (int i = 0; i < M; ++i) std::fill_n(C + int64_t{i} * ldc, N, int64_t{0});
    return;
  }

  const Kernel kernel = *detail::active_isa().i64;
  const auto a_at = [&](int64_t i, int64_t k) { return ta ? A[i + k * lda] : A[i * lda + k]; };
  const auto b_at = [&](int64_t k, int64_t j) { return tb ? B[k + j * ldb] : B[k * ldb + j]; };
  std::vector<int64_t> b_pack(static_cast<size_t>(kKcb) * std::min(kNcb, N + kNr));
  std::vector<int64_t> a_pack(static_cast<size_t>(std::min(kMcb, M)) * std::min(kKcb, K));

  for (int jc = 0; jc < N; jc += kNcb) {
    const int nc = std::min(kNcb, N - jc);
    for (int pc = 0; pc < K; pc += kKcb) {
      const int kc = std::min(kKcb, K - pc);
      const bool acc = accumulate || pc > 0;
      // Panel p holds columns jc + p*kNr .. +kNr, kc steps of kNr values, zero-padded.
      for (int p = 0; p * kNr < nc; ++p) {
        int64_t* panel = b_pack.data() + static_cast<size_t>(p) * kKcb * kNr;
        const int w = std::min(kNr, nc - p * kNr);
        for (int k = 0; k < kc; ++k) {
          for (int j = 0; j < w; ++j) panel[k * kNr + j] = b_at(pc + k, jc + p * kNr + j);
          std::fill(panel + k * kNr + w, panel + (k + 1) * kNr, int64_t{0});
        }
      }
      for (int ic = 0; ic < M; ic += kMcb) {
        const int mc = std::min(kMcb, M - ic);
        for (int i = 0; i < mc; ++i)
          for (int k = 0; k < kc; ++k) a_pack[static_cast<size_t>(i) * kc + k] = a_at(ic + i, pc + k);
        for (int p = 0; p * kNr < nc; ++p) {
          const int64_t* panel = b_pack.data() + static_cast<size_t>(p) * kKcb * kNr;
          const int nr = std::min(kNr, nc - p * kNr);
          for (int ir = 0; ir < mc; ir += kernel.mr) {
            kernel.tile(a_pack.data() + static_cast<size_t>(ir) * kc, kc, panel, kc,
                        C + int64_t{ic + ir} * ldc + jc + p * kNr, ldc,
                        std::min(kernel.mr, mc - ir), nr, acc);
          }
        }
      }
    }
  }
}

}  // namespace quire
