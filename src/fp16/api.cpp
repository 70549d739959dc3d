// The public half-precision GEMM: argument checks, then the packing and compute cores of
// quire/detail/HalfGemm.h.
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "quire/FbgemmBF16.h"
#include "quire/FbgemmFP16.h"
#include "quire/Utils.h"
#include "quire/detail/Check.h"
#include "quire/detail/HalfGemm.h"

namespace quire {
namespace {

template <class T>
constexpr detail::HalfType kHalfType =
    std::is_same_v<T, float16> ? detail::HalfType::fp16 : detail::HalfType::bf16;

template <class T>
constexpr const char* kClassName =
    std::is_same_v<T, float16> ? "PackedGemmMatrixFP16" : "PackedGemmMatrixBF16";

constexpr const char* kCompute = "cblas_gemm_compute";

void check_op(matrix_op_t op, const char* where, const char* param) {
  detail::check_arg(op == matrix_op_t::NoTranspose || op == matrix_op_t::Transpose, where, param,
                    static_cast<int64_t>(op), "is not a matrix_op_t value");
}

template <class T>
void compute(matrix_op_t transa, int m, const void* A, detail::ActType act,
             const PackedGemmMatrixB<T>& Bp, float beta, float* C, int thread_id,
             int num_threads) {
  check_op(transa, kCompute, "transa");
  detail::check_arg(m >= 0, kCompute, "m", m, "must be >= 0");
  detail::check_arg(num_threads >= 1, kCompute, "num_threads", num_threads, "must be >= 1");
  detail::check_arg(thread_id >= 0 && thread_id < num_threads, kCompute, "thread_id", thread_id,
                    "must be in [0, num_threads)");
  if (Bp.data() == nullptr) {
    throw std::invalid_argument(std::string(kCompute) + ": Bp holds no weights (moved from)");
  }
  if (m == 0) return;
  detail::check_not_null(A, kCompute, "A");
  detail::check_not_null(C, kCompute, "C");
  detail::check_product(m, Bp.numRows(), kCompute, "m x K (A)");
  detail::check_product(m, Bp.numCols(), kCompute, "m x N (C)");

  const detail::HalfGemmCall call{kHalfType<T>, act, transa, m, Bp.numCols(), Bp.numRows(), A,
                                  reinterpret_cast<const uint16_t*>(Bp.data()),
                                  Bp.blockRowSize(), beta, C};
  detail::half_gemm(call, detail::active_half_kernels(kHalfType<T>), thread_id, num_threads);
}

}  // namespace

template <class T>
PackedGemmMatrixB<T>::PackedGemmMatrixB(matrix_op_t trans, int nrow, int ncol, float alpha,
                                        const float* smat, int brow)
    : nrow_(nrow), ncol_(ncol), brow_(brow), mat_size_(0) {
  const char* where = kClassName<T>;
  check_op(trans, where, "trans");
  detail::check_arg(nrow >= 1, where, "nrow", nrow, "must be >= 1");
  detail::check_arg(ncol >= 1, where, "ncol", ncol, "must be >= 1");
  detail::check_arg(brow >= 1, where, "brow", brow, "must be >= 1");
  if (!std::isfinite(alpha)) {
    throw std::invalid_argument(std::string(where) + ": alpha=" + std::to_string(alpha) +
                                " must be finite");
  }
  detail::check_not_null(smat, where, "smat");
  detail::check_product(nrow, ncol, where, "nrow x ncol");
  const int64_t size = detail::half_packed_elems(kHalfType<T>, nrow, ncol);
  if (size > INT32_MAX) {
    throw std::invalid_argument(std::string(where) + ": the packed size of nrow=" +
                                std::to_string(nrow) + " x ncol=" + std::to_string(ncol) +
                                " (" + std::to_string(size) + " elements) overflows int32");
  }
  mat_size_ = static_cast<int>(size);
  pmat_.reset(static_cast<T*>(fbgemmAlignedAlloc(64, sizeof(T) * size)));
  detail::pack_half_weights(kHalfType<T>, trans, nrow, ncol, alpha, smat,
                            reinterpret_cast<uint16_t*>(pmat_.get()));
}

template <class T>
void PackedGemmMatrixB<T>::Free::operator()(T* p) const {
  fbgemmAlignedFree(p);
}

template <class T>
void PackedGemmMatrixB<T>::unpack(T* origin_buf, matrix_op_t trans) const {
  check_op(trans, "PackedGemmMatrixB::unpack", "trans");
  detail::check_not_null(origin_buf, "PackedGemmMatrixB::unpack", "origin_buf");
  if (pmat_ == nullptr) {
    throw std::invalid_argument("PackedGemmMatrixB::unpack: the matrix holds no weights (moved from)");
  }
  detail::unpack_half_weights(kHalfType<T>, reinterpret_cast<const uint16_t*>(pmat_.get()), nrow_,
                              ncol_, trans, reinterpret_cast<uint16_t*>(origin_buf));
}

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

template class PackedGemmMatrixB<float16>;
template class PackedGemmMatrixB<bfloat16>;
template void cblas_gemm_compute<float16>(matrix_op_t, int, const float*,
                                          const PackedGemmMatrixB<float16>&, float, float*, int,
                                          int);
template void cblas_gemm_compute<bfloat16>(matrix_op_t, int, const float*,
                                           const PackedGemmMatrixB<bfloat16>&, float, float*, int,
                                           int);

}  // namespace quire
