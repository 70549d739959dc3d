// The public packed-weight GEMM (fp16, bf16, fp32 weights): argument and layout checks,
// the re-blocking of weights stored with another column block than the kernels' 32, then
// the compute core of fp16/half_gemm.h.
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "quire/FbgemmBF16.h"
#include "quire/FbgemmFP16.h"
#include "quire/FbgemmFP32.h"
#include "quire/detail/Check.h"
#include "fp16/half_gemm.h"

namespace quire {
namespace {

template <class T>
constexpr detail::HalfType kHalfType = std::is_same_v<T, float16>    ? detail::HalfType::fp16
                                       : std::is_same_v<T, bfloat16> ? detail::HalfType::bf16
                                                                     : detail::HalfType::fp32;

constexpr const char* kCompute = "cblas_gemm_compute";

// Bp's fields must describe one layout (client code may have set them directly, as
// FBGEMM's public fields allow). packed() is not required: FBGEMM's deserialization
// constructor leaves it false and its callers fill pmat() and compute (Marian does).
template <class T>
void check_packed(const PackedGemmMatrixB<T>& Bp) {
  if (Bp.pmat() == nullptr) {
    throw std::invalid_argument(std::string(kCompute) + ": Bp holds no weights (moved from)");
  }
  const uint64_t need = detail::check_packed_geometry(
      kCompute, Bp.nrow_, Bp.ncol_, Bp.brow_, Bp.last_brow_, Bp.bcol_, Bp.nbrow_, Bp.nbcol_,
      detail::kPackStepRows<T>);
  detail::check_arg(Bp.size_ >= need, kCompute, "Bp.size_", static_cast<int64_t>(Bp.size_),
                    "must be >= brow x nbrow x bcol x nbcol");
}

template <class T>
void compute(matrix_op_t transa, int m, const void* A, detail::ActType act,
             const PackedGemmMatrixB<T>& Bp, float beta, float* C, int thread_id,
             int num_threads) {
  detail::check_arg(transa == matrix_op_t::NoTranspose || transa == matrix_op_t::Transpose,
                    kCompute, "transa", static_cast<int64_t>(transa), "is not a matrix_op_t value");
  detail::check_arg(m >= 0, kCompute, "m", m, "must be >= 0");
  detail::check_arg(num_threads >= 1, kCompute, "num_threads", num_threads, "must be >= 1");
  detail::check_arg(thread_id >= 0 && thread_id < num_threads, kCompute, "thread_id", thread_id,
                    "must be in [0, num_threads)");
  check_packed(Bp);
  if (m == 0) return;
  detail::check_not_null(A, kCompute, "A");
  detail::check_not_null(C, kCompute, "C");
  detail::check_product(m, Bp.numRows(), kCompute, "m x K (A)");
  detail::check_product(m, Bp.numCols(), kCompute, "m x N (C)");

  // The kernels stream 32-column blocks. Weights stored with another bcol (FBGEMM packs
  // 16 on AVX2-only CPUs) are copied into that layout for this call.
  std::optional<PackedGemmMatrixB<T>> reblocked;
  const PackedGemmMatrixB<T>* b = &Bp;
  if (Bp.blockColSize() != detail::kHalfPanel) {
    const int nbcol = (Bp.numCols() + detail::kHalfPanel - 1) / detail::kHalfPanel;
    reblocked.emplace(Bp.numRows(), Bp.numCols(), Bp.blockRowSize(), Bp.lastBrow(),
                      detail::kHalfPanel, Bp.numBrow(), nbcol, uint64_t{0});
    for (int r = 0; r < Bp.numRows(); ++r)
      for (int c = 0; c < Bp.numCols(); ++c) reblocked->pmat_[reblocked->addr(r, c)] = Bp(r, c);
    reblocked->setPacked(true);
    b = &*reblocked;
  }
  const detail::HalfGemmCall call{kHalfType<T>, act, transa, m, b->numCols(), b->numRows(), A,
                                  b->data(),
                                  b->blockRowSize(), beta, C};
  detail::half_gemm(call, detail::active_half_kernels(kHalfType<T>), thread_id, num_threads);
}

}  // namespace

template <class T>
void cblas_gemm_compute(matrix_op_t transa, int m, const float* A, const PackedGemmMatrixB<T>& Bp,
                        float beta, float* C, int thread_id, int num_threads) {
  compute(transa, m, A, detail::ActType::f32, Bp, beta, C, thread_id, num_threads);
}

void cblas_gemm_compute(matrix_op_t transa, int m, const bfloat16* A,
                        const PackedGemmMatrixBF16& Bp, float beta, float* C, int thread_id,
                        int num_threads) {
  compute(transa, m, A, detail::ActType::bf16, Bp, beta, C, thread_id, num_threads);
}

template void cblas_gemm_compute<float16>(matrix_op_t, int, const float*,
                                          const PackedGemmMatrixB<float16>&, float, float*, int,
                                          int);
template void cblas_gemm_compute<bfloat16>(matrix_op_t, int, const float*,
                                           const PackedGemmMatrixB<bfloat16>&, float, float*, int,
                                           int);
template void cblas_gemm_compute<float>(matrix_op_t, int, const float*,
                                        const PackedGemmMatrixB<float>&, float, float*, int, int);

}  // namespace quire
