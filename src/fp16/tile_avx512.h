// The AVX-512 tile skeleton of the half-precision-weight kernels: fp32 accumulators for
// MR rows x NV zmm vectors of 16 columns, C loaded and stored by lane masks, and the
// K loop of a step policy in between. Included only by AVX-512 translation units.
//
// Everything here is in an unnamed namespace: each including file compiles its own copy
// with its own flags, so the linker never merges an instance built for a wider
// instruction set (AVX512-BF16) into code that runs on a narrower one.
#pragma once

#include <cstdint>
#include <utility>

#include "common/intrinsics.h"
#include "fp16/half_kernels.h"

namespace quire::detail {
namespace {

constexpr int kZmmLanes = 16;

__mmask16 lane_mask(int n) {
  if (n >= kZmmLanes) return 0xFFFF;
  return n <= 0 ? 0 : static_cast<__mmask16>((1u << n) - 1u);
}

// Prefetches the 64-byte lines at pf + off[v] of the NV vectors (vector_bytes each).
template <int NV>
void prefetch_b(const uint16_t* pf, const int64_t (&off)[NV], int vector_bytes) {
#pragma GCC unroll 8
  for (int v = 0; v < NV; ++v) {
    if (v * vector_bytes % 64 == 0)
      _mm_prefetch(reinterpret_cast<const char*>(pf + off[v]), _MM_HINT_T0);
  }
}

// acc += broadcast(*a) * w, with the broadcast embedded in the FMA's memory operand
// (vfmadd231ps zmm, zmm, m32{1to16}). GCC would load the broadcast once per row and feed
// both of the row's FMAs from a register; on Zen 4 those vbroadcastss, with the weights'
// conversions, slow the FMAs by 6.5% (28 FMA + 14 vbroadcastss + 2 vcvtph2ps: 3.43 G
// FMA/s; with embedded broadcasts 3.68, the bare FMA rate).
inline __m512 fma_broadcast(__m512 acc, __m512 w, const float* a) {
  asm("vfmadd231ps %[a]%{1to16%}, %[w], %[acc]" : [acc] "+v"(acc) : [w] "v"(w), [a] "m"(*a));
  return acc;
}

// Step policies provide
//   template <int MR, int NV> static void run(__m512 (&acc)[MR][NV], const HalfKernelArgs&)
// which adds the block's K steps to the accumulators. Inlined into zmm_tile, the array
// stays in registers: MR * NV + NV (weights) <= 32, A coming from memory.
template <class Step, int MR, int NV, bool FULL>
void zmm_tile(const HalfKernelArgs& p) {
  __m512 acc[MR][NV];
  __mmask16 mask[NV];
#pragma GCC unroll 8
  for (int v = 0; v < NV; ++v) mask[v] = FULL ? 0xFFFF : lane_mask(p.cols - v * kZmmLanes);

  // acc = beta == 0 ? 0 : beta * C  (beta == 1 skips the exact multiply). Locals, as
  // stores to C could alias the arguments as far as the compiler knows.
  float* const c0 = p.c;
  const int64_t ldc = p.ldc;
  const bool load_c = p.beta != 0.0f, scale_c = load_c && p.beta != 1.0f;
  const __m512 beta = _mm512_set1_ps(p.beta);
#pragma GCC unroll 14
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) {
      const float* c = c0 + i * ldc + v * kZmmLanes;
      acc[i][v] = !load_c ? _mm512_setzero_ps()
                  : FULL  ? _mm512_loadu_ps(c)
                          : _mm512_maskz_loadu_ps(mask[v], c);
      if (scale_c) acc[i][v] = _mm512_mul_ps(acc[i][v], beta);
    }
  }

  Step::template run<MR, NV>(acc, p);

#pragma GCC unroll 14
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) {
      float* c = c0 + i * ldc + v * kZmmLanes;
      if (FULL)
        _mm512_storeu_ps(c, acc[i][v]);
      else
        _mm512_mask_storeu_ps(c, mask[v], acc[i][v]);
    }
  }
}

// Vectors per main tile by its rows: at least 8 independent accumulator chains (an FMA
// has 4 cycles of latency and up to 2 issue per cycle), so one-row tiles span 4 panels.
constexpr int zmm_vectors(int mr) { return mr == 1 ? 8 : mr <= 3 ? 4 : 2; }

// A path's table: main tiles of zmm_vectors(MR) vectors, edge tiles of one panel.
template <class Step, int MaxMr>
constexpr HalfKernelSet zmm_set(const char* name, HalfType weights, AFormat fmt, int mcb,
                                ConvertAFn convert) {
  HalfKernelSet s{name, weights, fmt, MaxMr, mcb, {}, {}, convert};
  [&]<int... R>(std::integer_sequence<int, R...>) {
    ((s.main[R + 1] = HalfTile{&zmm_tile<Step, R + 1, zmm_vectors(R + 1), true>,
                               kZmmLanes * zmm_vectors(R + 1)}),
     ...);
    ((s.edge[R + 1] = HalfTile{&zmm_tile<Step, R + 1, 2, false>, kHalfPanel}), ...);
  }(std::make_integer_sequence<int, MaxMr>{});
  return s;
}

}  // namespace
}  // namespace quire::detail
