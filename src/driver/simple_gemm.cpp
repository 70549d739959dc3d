// The one-call GEMM: each pool thread packs its share of A (PackAWithRowOffset) and runs
// fbgemmPacked with its thread id, exactly as an engine's parallel region would.
#include "quire/SimpleGemm.h"

#include <vector>

#include "quire/Gemm.h"
#include "quire/OutputProcessing.h"
#include "quire/PackAMatrix.h"
#include "quire/detail/Check.h"

namespace quire {
namespace {

void run(ThreadPool* pool, const std::function<void(int, int)>& job) {
  if (pool == nullptr) job(0, 1);
  else pool->run(job);
}

template <bool RELU, QuantizationGranularity Q>
void requantized(const uint8_t* A, int32_t M, int32_t lda, const PackBMatrix<int8_t>& B,
                 uint8_t* C, int32_t ldc, const Requantization& q, ThreadPool* pool) {
  std::vector<int32_t> scratch(static_cast<size_t>(M) * static_cast<size_t>(ldc));
  run(pool, [&](int thread_id, int num_threads) {
    PackAWithRowOffset<uint8_t> packA(matrix_op_t::NoTranspose, M, B.numRows(), A, lda, nullptr,
                                      B.numGroups());
    DoNothing<> done;
    ReQuantizeOutput<RELU, Q> out(done, q.C_multiplier, q.C_zero_point, q.A_zero_point, q.B_zero_point,
                                  packA.getRowOffsetBuffer(), q.col_offsets, q.bias,
                                  B.numCols() * B.numGroups(), B.numGroups());
    fbgemmPacked(packA, B, C, scratch.data(), ldc, out, thread_id, num_threads);
  });
}

template <bool RELU>
void requantized(const uint8_t* A, int32_t M, int32_t lda, const PackBMatrix<int8_t>& B,
                 uint8_t* C, int32_t ldc, const Requantization& q, ThreadPool* pool) {
  switch (q.granularity) {
    case QuantizationGranularity::TENSOR:
      return requantized<RELU, QuantizationGranularity::TENSOR>(A, M, lda, B, C, ldc, q, pool);
    case QuantizationGranularity::GROUP:
      return requantized<RELU, QuantizationGranularity::GROUP>(A, M, lda, B, C, ldc, q, pool);
    case QuantizationGranularity::OUT_CHANNEL:
      return requantized<RELU, QuantizationGranularity::OUT_CHANNEL>(A, M, lda, B, C, ldc, q, pool);
  }
  detail::fail_argument("gemm_u8s8u8", "q.granularity", static_cast<int>(q.granularity),
                        "is not a QuantizationGranularity");
}

}  // namespace

void gemm_u8s8s32(const uint8_t* A, int32_t M, int32_t lda, const PackBMatrix<int8_t>& B,
                  int32_t* C, int32_t ldc, ThreadPool* pool) {
  run(pool, [&](int thread_id, int num_threads) {
    PackAMatrix<uint8_t> packA(matrix_op_t::NoTranspose, M, B.numRows(), A, lda, nullptr, B.numGroups());
    DoNothing<int32_t, int32_t> done;
    memCopy<> out(done);
    fbgemmPacked(packA, B, C, C, ldc, out, thread_id, num_threads);
  });
}

void gemm_u8s8u8(const uint8_t* A, int32_t M, int32_t lda, const PackBMatrix<int8_t>& B,
                 uint8_t* C, int32_t ldc, const Requantization& q, ThreadPool* pool) {
  // Checked before the int32 scratch of M x ldc is allocated; the rest is checked by
  // the packer, the output op and fbgemmPacked.
  detail::check_arg(M >= 0, "gemm_u8s8u8", "M", M, "must be >= 0");
  detail::check_arg(int64_t{ldc} >= int64_t{B.numCols()} * B.numGroups(), "gemm_u8s8u8", "ldc", ldc,
                    "must be >= N * groups");
  detail::check_product(M, ldc, "gemm_u8s8u8", "M x ldc");
  if (M == 0) return;  // an empty batch: nothing to write
  if (q.relu) requantized<true>(A, M, lda, B, C, ldc, q, pool);
  else requantized<false>(A, M, lda, B, C, ldc, q, pool);
}

}  // namespace quire
