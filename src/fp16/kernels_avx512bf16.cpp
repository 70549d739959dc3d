// vdpbf16ps kernels: bf16 A pairs x bf16 weight pairs, 32 multiply-adds per instruction
// (twice an fp32 FMA), tiles of up to 14 x 32. Per lane, vdpbf16ps computes
//   acc += a[2t+1] * w[2t+1];  acc += a[2t] * w[2t]
// with exact products and each addition rounded to nearest even (denormal inputs and
// results flushed to zero), which is what the bf16 FMA kernels do step by step.
#include "fp16/tile_avx512.h"

namespace quire::detail {
namespace {

// acc += the pair A[i][2t], A[i][2t+1] at a, broadcast to every lane, times w, the
// broadcast embedded in the memory operand (m32{1to16}), for the reason given at
// fma_broadcast in tile_avx512.h. The pair is read as one dword of the A buffer.
inline __m512 dpbf16_broadcast(__m512 acc, __m512bh w, const uint16_t* a) {
  asm("vdpbf16ps %[a]%{1to16%}, %[w], %[acc]"
      : [acc] "+v"(acc)
      : [w] "v"(w), [a] "m"(*reinterpret_cast<const uint32_t*>(a)));
  return acc;
}

struct DpBf16Step {
  template <int MR, int NV>
  static void run(__m512 (&acc)[MR][NV], const HalfKernelArgs& p) {
    int64_t off[NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v)
      off[v] = half_column_offset(HalfType::bf16, v * kZmmLanes, p.b_panel);
    const uint16_t* a = static_cast<const uint16_t*>(p.a);
    const uint16_t* b = static_cast<const uint16_t*>(p.b);
    const uint16_t* pf = static_cast<const uint16_t*>(p.prefetch);
    for (int64_t s = 0; s < p.steps; ++s, a += 2, b += 2 * kHalfPanel, pf += 2 * kHalfPanel) {
      prefetch_b(pf, off, 64);
      __m512bh w[NV];
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) w[v] = (__m512bh)_mm512_loadu_si512(b + off[v]);
#pragma GCC unroll 14
      for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) acc[i][v] = dpbf16_broadcast(acc[i][v], w[v], a + i * p.lda);
      }
    }
  }
};

}  // namespace

// 14 x 2 vectors: 28 accumulators + 2 weights = 30 of 32 zmm.
const HalfKernelSet kHalfBf16Avx512Bf16 = zmm_set<DpBf16Step, 14>(
    "bf16_avx512bf16", HalfType::bf16, AFormat::bf16_pairs, 126, &convert_a_bf16_pairs_avx512);

}  // namespace quire::detail
