// Non-template cores of the packed-weight fp32-activation GEMM (quire/FbgemmFP16.h,
// FbgemmBF16.h, FbgemmFP32.h): the packed weight layout the kernels read, and the compute
// entry that runs one kernel path. Built for the half-precision weights; fp32 weights
// share every loop, with 4-byte panel elements.
// Private to the library (no public header includes it); tests, benches and fuzzers
// include it by path to run every path this CPU has, including ones the dispatcher
// never picks on it (the bf16 FMA kernels of a CPU with AVX512-BF16).
//
// The kernels read PackedGemmMatrixB's blocked layout (quire/FbgemmPackMatrixB.h) with
// bcol = kHalfPanel = 32: K in row blocks of brow rows, each row block a sequence of
// panels of 32 columns (the last one zero-padded) holding that block's rows.
//   fp16: row k of a panel at 32 * k                     (what vcvtph2ps widens 16 at a time)
//   fp32: the same, 4-byte elements                      (what a vector load reads)
//   bf16: rows in pairs t = k / 2, zero-padded to even; element (k, j) at 64 t + 2 j + k % 2
//         (each dword holds rows 2t, 2t+1: what vdpbf16ps multiplies pairwise, and two
//         shifts/masks widen them to fp32 for the FMA kernels)
#pragma once

#include <cstdint>
#include <vector>

#include "quire/Types.h"

namespace quire::detail {

// The weight types (fp32 is not half precision, but its panels go through the same code).
enum class HalfType : uint8_t { fp16, bf16, fp32 };
enum class ActType : uint8_t { f32, bf16 };

inline constexpr int kHalfPanel = 32;

// K rows per packed step: 1 (fp16) or 2 (bf16 pairs).
constexpr int half_step_rows(HalfType t) { return t == HalfType::bf16 ? 2 : 1; }
// Bytes per packed element.
constexpr int half_elem_bytes(HalfType t) { return t == HalfType::fp32 ? 4 : 2; }

// One cblas_gemm_compute call (arguments already checked):
//   C[i][j] = beta * C[i][j] + sum_k A[i][k] * B[k][j],  i < m, j < n, C row-major (ld n)
// with A m x k row-major (k x m when transa is Transpose), of type `act`.
struct HalfGemmCall {
  HalfType weights;
  ActType act;
  matrix_op_t transa;
  int m, n, k;
  const void* a;
  const void* b;      // packed as above, bcol = 32, elements of half_elem_bytes(weights)
  int brow;           // rows per row block of b, the K block of the loops (bf16: even)
  float beta;
  float* c;
};

struct HalfKernelSet;  // one path's kernels (src/fp16/half_kernels.h)

// Every kernel path this CPU can run for a weight type, best first (the half kernels of
// the records of the paths the CPU has, in isa_traits.h's preference order).
std::vector<const HalfKernelSet*> half_kernel_sets(HalfType type);
// "fp16_avx512", "bf16_avx512bf16", ...
const char* half_kernel_set_name(const HalfKernelSet& set);
// The path the active record (detail::active_isa()) gives this weight type: its bf16_dot
// kernels when it has them and the CPU has avx512_bf16.
const HalfKernelSet& active_half_kernels(HalfType type);

// The part of the call that thread_id computes with the given path (one of
// half_kernel_sets(call.weights); another weight type's path throws
// std::invalid_argument).
void half_gemm(const HalfGemmCall& call, const HalfKernelSet& set, int thread_id,
               int num_threads);

}  // namespace quire::detail
