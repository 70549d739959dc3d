// The tile skeleton of the half-precision-weight kernels, written once over the vector
// vocabulary V (Avx2 in simd/vec_avx2.h, Avx512 in simd/vec_avx512.h): fp32 accumulators
// for MR rows x NV vectors of V::W columns, C loaded and stored through lane masks, and
// the K loop of a step policy in between. Step policies provide
//   template <int MR, int NV> static void run(typename V::F (&acc)[MR][NV],
//                                             const HalfKernelArgs&)
// which adds the block's K steps to the accumulators. Inlined into half_tile, the array
// stays in registers: MR * NV + NV (weights) + what the step needs fit V's registers.
// Internal linkage (see simd/vec_avx2.h).
#pragma once

#include <algorithm>
#include <cstdint>

#include "fp16/half_kernels.h"

namespace quire::detail {
namespace {

template <class V, class Step, int MR, int NV, bool FULL>
void half_tile(const HalfKernelArgs& p) {
  using F = typename V::F;
  using Lanes = typename V::Lanes;
  constexpr int W = V::W;
  F acc[MR][NV];

  // acc = beta == 0 ? 0 : beta * C  (beta == 1 skips the exact multiply). Locals, as
  // stores to C could alias the arguments as far as the compiler knows.
  float* const c0 = p.c;
  const int64_t ldc = p.ldc;
  const int cols = p.cols;
  const bool load_c = p.beta != 0.0f, scale_c = load_c && p.beta != 1.0f;
  const F beta = V::set1f(p.beta);
#pragma GCC unroll 14
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) {
      const float* c = c0 + i * ldc + v * W;
      acc[i][v] = !load_c ? V::zerof()
                  : FULL  ? V::loadf(c)
                          : V::load(c, Lanes(std::max(cols - v * W, 0)));
      if (scale_c) acc[i][v] = V::mul(acc[i][v], beta);
    }
  }

  Step::template run<MR, NV>(acc, p);

#pragma GCC unroll 14
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) {
      float* c = c0 + i * ldc + v * W;
      if (FULL)
        V::storef(c, acc[i][v]);
      else
        V::store_masked(c, Lanes(std::max(cols - v * W, 0)), acc[i][v]);
    }
  }
}

}  // namespace
}  // namespace quire::detail
