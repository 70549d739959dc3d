// The AVX-512 pieces of the packed-weight kernels: the FMA with an embedded
// broadcast, prefetching, and the table of half_tile<Avx512> instances (half_tile.h).
// Included only by AVX-512 translation units.
//
// Everything here is in an unnamed namespace: each including file compiles its own copy
// with its own flags, so the linker never merges an instance built for a wider
// instruction set (AVX512-BF16) into code that runs on a narrower one.
#pragma once

#include <cstdint>
#include <utility>

#include "fp16/half_kernels.h"
#include "fp16/half_tile.h"
#include "simd/vec_avx512.h"

namespace quire::detail {
namespace {

constexpr int kZmmLanes = Avx512::W;

// Prefetches the 64-byte lines at pf + off[v] of the NV vectors (vector_bytes each).
template <class E, int NV>
void prefetch_b(const E* pf, const int64_t (&off)[NV], int vector_bytes) {
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

// Vectors per main tile by its rows: at least 8 independent accumulator chains (an FMA
// has 4 cycles of latency and up to 2 issue per cycle), so one-row tiles span 4 panels.
constexpr int zmm_vectors(int mr) { return mr == 1 ? 8 : mr <= 3 ? 4 : 2; }

// A path's table: main tiles of zmm_vectors(MR) vectors, edge tiles of one panel.
template <class Step, int MaxMr>
constexpr HalfKernelSet zmm_set(const char* name, HalfType weights, AFormat fmt, int mcb,
                                ConvertAFn convert) {
  HalfKernelSet s{name, weights, fmt, MaxMr, mcb, {}, {}, convert};
  [&]<int... R>(std::integer_sequence<int, R...>) {
    ((s.main[R + 1] = HalfTile{&half_tile<Avx512, Step, R + 1, zmm_vectors(R + 1), true>,
                               kZmmLanes * zmm_vectors(R + 1)}),
     ...);
    ((s.edge[R + 1] = HalfTile{&half_tile<Avx512, Step, R + 1, 2, false>, kHalfPanel}), ...);
  }(std::make_integer_sequence<int, MaxMr>{});
  return s;
}

}  // namespace
}  // namespace quire::detail
