// AVX-512 kernels of the packed-weight GEMM: fp16 weights widened by vcvtph2ps, bf16
// pairs widened by a mask and a shift, fp32 weights loaded as they are, all into fp32
// FMAs (A broadcast from memory by the FMA itself) on zmm tiles of up to 14 x 32 (fp16,
// fp32) or 12 x 32 (bf16) elements; and the vector A converters of the bf16 paths.
#include <algorithm>
#include <cstring>

#include "fp16/tile_avx512.h"

namespace quire::detail {
namespace {

// 16 weights as fp32: fp16 widened, fp32 as stored.
struct Fp16Weights {
  using E = uint16_t;
  static constexpr HalfType kType = HalfType::fp16;
  static __m512 load(const E* p) { return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))); }
};
struct Fp32Weights {
  using E = float;
  static constexpr HalfType kType = HalfType::fp32;
  static __m512 load(const E* p) { return _mm512_loadu_ps(p); }
};

// One k per step (fp16, fp32): NV vectors of 16 weights, then each row's A value
// broadcast by its FMAs.
template <class Weights>
struct OneKStep {
  template <int MR, int NV>
  static void run(__m512 (&acc)[MR][NV], const HalfKernelArgs& p) {
    using E = typename Weights::E;
    int64_t off[NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v)
      off[v] = half_column_offset(Weights::kType, v * kZmmLanes, p.b_panel);
    const float* a = static_cast<const float*>(p.a);
    const E* b = static_cast<const E*>(p.b);
    const E* pf = static_cast<const E*>(p.prefetch);
    for (int64_t s = 0; s < p.steps; ++s, ++a, b += kHalfPanel, pf += kHalfPanel) {
      prefetch_b(pf, off, kZmmLanes * sizeof(E));
      __m512 w[NV];
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) w[v] = Weights::load(b + off[v]);
#pragma GCC unroll 14
      for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) acc[i][v] = fma_broadcast(acc[i][v], w[v], a + i * p.lda);
      }
    }
  }
};

// bf16 pairs: each dword holds w[2t] (low half) and w[2t+1] (high half); as fp32, the
// high one is the dword with its low 16 bits cleared and the low one the dword shifted
// left by 16. Odd k first, as vdpbf16ps adds them.
struct Bf16FmaStep {
  template <int MR, int NV>
  static void run(__m512 (&acc)[MR][NV], const HalfKernelArgs& p) {
    int64_t off[NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v)
      off[v] = half_column_offset(HalfType::bf16, v * kZmmLanes, p.b_panel);
    const __m512i high = _mm512_set1_epi32(static_cast<int>(0xFFFF0000u));
    const float* a = static_cast<const float*>(p.a);
    const uint16_t* b = static_cast<const uint16_t*>(p.b);
    const uint16_t* pf = static_cast<const uint16_t*>(p.prefetch);
    for (int64_t s = 0; s < p.steps; ++s, a += 2, b += 2 * kHalfPanel, pf += 2 * kHalfPanel) {
      prefetch_b(pf, off, 64);
      __m512 w[NV];
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v)
        w[v] = _mm512_castsi512_ps(_mm512_and_si512(_mm512_loadu_si512(b + off[v]), high));
#pragma GCC unroll 14
      for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v)
          acc[i][v] = fma_broadcast(acc[i][v], w[v], a + i * p.lda + 1);
      }
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v)
        w[v] = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_loadu_si512(b + off[v]), 16));
#pragma GCC unroll 14
      for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v)
          acc[i][v] = fma_broadcast(acc[i][v], w[v], a + i * p.lda);
      }
    }
  }
};

// 16 elements of A from column c as fp32 bits (bf16 widened exactly, fp32 rounded to bf16
// when `round`); lanes at or past `cols` are zero.
__m512i load_a16(const void* src, ActType act, int64_t idx, int c, int cols, bool round) {
  const __mmask16 m = Avx512::Lanes(std::max(cols - c, 0)).mask;
  if (act == ActType::bf16) {
    const __m256i h = _mm256_maskz_loadu_epi16(m, static_cast<const uint16_t*>(src) + idx);
    return _mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16);
  }
  const __m512i x = _mm512_maskz_loadu_epi32(m, static_cast<const float*>(src) + idx);
  return round ? Avx512::round_to_bf16(x) : x;
}

void convert_a_f32_pairs(const void* src, ActType act, int64_t ld, int rows, int cols,
                         int cols_pad, void* dst, int64_t ld_dst) {
  for (int r = 0; r < rows; ++r) {
    float* out = static_cast<float*>(dst) + r * ld_dst;
    for (int c = 0; c < cols_pad; c += kZmmLanes) {
      const __m512i x = load_a16(src, act, r * ld + c, c, cols, true);
      Avx512::store_masked(out + c, Avx512::Lanes(cols_pad - c), _mm512_castsi512_ps(x));
    }
  }
}

}  // namespace

void convert_a_bf16_pairs_avx512(const void* src, ActType act, int64_t ld, int rows, int cols,
                                 int cols_pad, void* dst, int64_t ld_dst) {
  for (int r = 0; r < rows; ++r) {
    uint16_t* out = static_cast<uint16_t*>(dst) + r * ld_dst;
    if (act == ActType::bf16) {
      std::memcpy(out, static_cast<const uint16_t*>(src) + r * ld, sizeof(uint16_t) * cols);
      if (cols_pad > cols) std::memset(out + cols, 0, sizeof(uint16_t) * (cols_pad - cols));
      continue;
    }
    for (int c = 0; c < cols_pad; c += kZmmLanes) {
      const __m512i x = load_a16(src, act, r * ld + c, c, cols, true);
      const __m256i h = _mm512_cvtepi32_epi16(_mm512_srli_epi32(x, 16));
      _mm256_mask_storeu_epi16(out + c, Avx512::Lanes(cols_pad - c).mask, h);
    }
  }
}

// Register budget (A comes with each FMA from memory): fp16, fp32 14 x 2 vectors: 28
// accumulators + 2 weights = 30 of 32; bf16 12 x 2: 24 + 2 + the mask = 27 (14 rows fit
// as well and measured no faster). mcb keeps the block of converted A rows (mcb x the K
// block) in L2.
const HalfKernelSet kHalfFp16Avx512 = zmm_set<OneKStep<Fp16Weights>, 14>(
    "fp16_avx512", HalfType::fp16, AFormat::f32, 126, nullptr);
const HalfKernelSet kHalfFp32Avx512 = zmm_set<OneKStep<Fp32Weights>, 14>(
    "fp32_avx512", HalfType::fp32, AFormat::f32, 126, nullptr);
const HalfKernelSet kHalfBf16Avx512 = zmm_set<Bf16FmaStep, 12>(
    "bf16_avx512", HalfType::bf16, AFormat::f32_pairs, 120, &convert_a_f32_pairs);

}  // namespace quire::detail
