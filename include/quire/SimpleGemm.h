// quire's addition: one call that packs A, runs the GEMM on a thread pool and applies the
// output stage, for callers that do not run their own parallel region. Weights are
// packed once with PackBMatrix, as with fbgemmPacked.
#pragma once

#include <cstdint>

#include "quire/PackBMatrix.h"
#include "quire/ThreadPool.h"
#include "quire/Types.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

// How the int32 sums become uint8 (ReQuantizeOutput's formula, OutputProcessing.h):
//   out = clamp(nearbyint((float)(raw + bias[j]) * C_multiplier[q]) + C_zero_point,
//               relu ? C_zero_point : 0, 255)
//   raw = acc - A_zero_point * col_offsets[j] - B_zero_point[q] * row_sum[i]
// with q = 0 (TENSOR), j / (N) for GROUP (one group of B per q), or j (OUT_CHANNEL).
struct Requantization {
  QuantizationGranularity granularity = QuantizationGranularity::TENSOR;
  const float* C_multiplier = nullptr;
  int32_t C_zero_point = 0;
  int32_t A_zero_point = 0;
  const int32_t* B_zero_point = nullptr;
  const int32_t* col_offsets = nullptr;  // sum_k B[k][j] - K * B_zero_point[q], per column
  const int32_t* bias = nullptr;         // per column, or null
  bool relu = false;
};

// C (M x G*N int32, ldc) = A (M x K uint8, row-major, lda) x B. pool: the threads to
// use (null: the calling thread alone). Throws std::invalid_argument on bad arguments.
// Here and in gemm_u8s8u8, M = 0 (an empty batch) writes nothing; A and C may be null.
void gemm_u8s8s32(const uint8_t* A, int32_t M, int32_t lda, const PackBMatrix<int8_t>& B,
                  int32_t* C, int32_t ldc, ThreadPool* pool = nullptr);

// C (M x G*N uint8, ldc) = requantize(A x B) as described by q.
void gemm_u8s8u8(const uint8_t* A, int32_t M, int32_t lda, const PackBMatrix<int8_t>& B,
                 uint8_t* C, int32_t ldc, const Requantization& q, ThreadPool* pool = nullptr);

}  // namespace quire
QUIRE_API_END
