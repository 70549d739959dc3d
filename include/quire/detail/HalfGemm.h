// Non-template cores of the half-precision-weight GEMM (quire/FbgemmFP16.h): the packed
// weight layout, packing, and the compute entry that runs one kernel path. The paths are
// visible here so that tests and benches can run every path this CPU has, including
// ones the dispatcher never picks on it (the bf16 FMA kernels of a CPU with AVX512-BF16).
//
// The packed layout of a K x N weight matrix (docs/half-precision.md):
//   N is cut into panels of kHalfPanel = 32 columns (the last one zero-padded); panel p
//   holds all of K, panels one after another.
//   fp16: element (k, p*32 + j) at p*32*K + 32*k + j                       (k-major rows)
//   bf16: K is taken in pairs t = k / 2 (zero-padded to even); element (k, p*32 + j) at
//         p*64*ceil(K/2) + 64*t + 2*j + (k % 2)          (each dword holds rows 2t, 2t+1)
// fp16 rows are what vcvtph2ps widens 16 at a time; bf16 dwords are what vdpbf16ps
// multiplies pairwise, and two shifts/masks widen them to fp32 for the FMA kernels.
#pragma once

#include <cstdint>
#include <vector>

#include "quire/Types.h"

namespace quire::detail {

enum class HalfType : uint8_t { fp16, bf16 };
enum class ActType : uint8_t { f32, bf16 };

inline constexpr int kHalfPanel = 32;

// K rows per packed step: 1 (fp16) or 2 (bf16 pairs).
constexpr int half_step_rows(HalfType t) { return t == HalfType::bf16 ? 2 : 1; }

// Elements (uint16) of one packed panel, and of the whole packed matrix.
inline int64_t half_panel_elems(HalfType t, int64_t K) {
  const int r = half_step_rows(t);
  return (K + r - 1) / r * r * kHalfPanel;
}
inline int64_t half_packed_elems(HalfType t, int64_t K, int64_t N) {
  return half_panel_elems(t, K) * ((N + kHalfPanel - 1) / kHalfPanel);
}

// Packs B (nrow = K x ncol = N; smat is K x N row-major, or N x K row-major when
// transposed) into dst (half_packed_elems of them, padding zeroed): each weight becomes
// round(alpha * b) in the target type, round to nearest even, where a finite value beyond
// the type's range saturates to its largest finite value (as FBGEMM's fp16 packing does);
// infinities and NaN stay what they are.
void pack_half_weights(HalfType type, matrix_op_t trans, int nrow, int ncol, float alpha,
                       const float* smat, uint16_t* dst);

// The inverse permutation: the K x N packed values into dst, K x N row-major (N x K when
// transposed).
void unpack_half_weights(HalfType type, const uint16_t* packed, int nrow, int ncol,
                         matrix_op_t trans, uint16_t* dst);

// One cblas_gemm_compute call (arguments already checked):
//   C[i][j] = beta * C[i][j] + sum_k A[i][k] * B[k][j],  i < m, j < n, C row-major (ld n)
// with A m x k row-major (k x m when transa is Transpose), of type `act`.
struct HalfGemmCall {
  HalfType weights;
  ActType act;
  matrix_op_t transa;
  int m, n, k;
  const void* a;
  const uint16_t* b;  // packed as above
  int brow;           // K block of the loops (results do not depend on it)
  float beta;
  float* c;
};

struct HalfKernelSet;  // one path's kernels (src/fp16/half_kernels.h)

// Every kernel path this CPU can run for a weight type, best first.
std::vector<const HalfKernelSet*> half_kernel_sets(HalfType type);
// "fp16_avx512", "bf16_avx512bf16", ...
const char* half_kernel_set_name(const HalfKernelSet& set);
// The path the active instruction set (detail::active_isa()) uses.
const HalfKernelSet& active_half_kernels(HalfType type);

// The part of the call that thread_id computes with the given path (one of
// half_kernel_sets(call.weights); another weight type's path throws
// std::invalid_argument).
void half_gemm(const HalfGemmCall& call, const HalfKernelSet& set, int thread_id,
               int num_threads);

}  // namespace quire::detail
