// The sparse AdaGrad loops of one instruction-set path (IsaRecord::adagrad), written once
// in adagrad_simd.h. sparse_adagrad.cpp checks the generator's arguments and, for the
// fused form, the call's bags and indices before a loop runs.
#pragma once

#include <cstdint>

namespace quire::detail {

// One call of a GenerateSparseAdaGrad kernel; indices are checked row by row in the loop
// (FBGEMM's contract: rows before a bad index are updated).
struct SparseAdagradJob {
  int num_rows;
  int block_size;
  uint64_t table_rows;  // param_size / block_size
  float* w;
  const float* g;
  float* h;
  const void* indices;  // int32_t or int64_t, by the routine
  float epsilon, lr, weight_decay;
  const double* counter;  // null: no frequency adjustment
  int64_t counter_halflife;
  bool use_weight_decay;
  int prefetch;  // rows ahead; 0: none
};

// One call of a GenerateRowWiseSparseAdaGradFused kernel, bags and indices already checked.
struct FusedAdagradJob {
  int64_t block_size, grad_stride, output_size, index_size;
  void* w;  // float or float16 rows
  const float* g;
  float* h;
  const void* indices;            // int32_t or int64_t
  const void* offsets_or_lengths;  // int32_t or int64_t
  bool use_offsets;
  float epsilon, lr;
  int prefetch;
  // fp16 weights: random bits from rng (this thread's 4 x 16 words, adagrad_rng.h) in a
  // stream of rng_lanes lanes; null: plain truncation.
  uint32_t* rng;
  int rng_lanes;
};

using SparseAdagradFn = int (*)(const SparseAdagradJob&);
using FusedAdagradFn = void (*)(const FusedAdagradJob&);

struct AdagradKernels {
  SparseAdagradFn sparse[2][2];        // [rowwise][int64 indices]
  FusedAdagradFn fused[2][2][2];       // [fp16 weights][int64 indices][int64 offsets]
};

extern const AdagradKernels kAdagradPortable;
extern const AdagradKernels kAdagradAvx2;
extern const AdagradKernels kAdagradAvx512;

}  // namespace quire::detail
