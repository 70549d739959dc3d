// AVX2 kernels of the packed-weight GEMM (FMA + F16C): fp32 accumulators for up to 6
// rows x 2 ymm vectors of 8 columns (half a panel), or 2 rows x 4 vectors (a panel);
// fp16 weights widened by vcvtph2ps, bf16 pairs by a mask and a shift, fp32 weights
// loaded as they are.
#include <cstdint>
#include <utility>

#include "fp16/half_kernels.h"
#include "fp16/half_tile.h"
#include "quire/FloatConversion.h"
#include "simd/vec_avx2.h"

namespace quire::detail {
namespace {

constexpr int kYmmLanes = Avx2::W;

// Prefetches the 64-byte lines at pf of the tile's NV vectors (vector_bytes each,
// consecutive within one panel).
template <int NV>
void prefetch_b(const void* pf, int vector_bytes) {
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    if (v * vector_bytes % 64 == 0)
      _mm_prefetch(static_cast<const char*>(pf) + v * vector_bytes, _MM_HINT_T0);
  }
}

// 8 weights as fp32: fp16 widened, fp32 as stored.
struct Fp16Weights {
  using E = uint16_t;
  static __m256 load(const E* p) { return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))); }
};
struct Fp32Weights {
  using E = float;
  static __m256 load(const E* p) { return _mm256_loadu_ps(p); }
};

// One k per step (fp16, fp32): NV vectors of weights, then each row's A value broadcast
// into its FMAs.
template <class Weights>
struct OneKStep {
  template <int MR, int NV>
  static void run(__m256 (&acc)[MR][NV], const HalfKernelArgs& p) {
    using E = typename Weights::E;
    const float* a = static_cast<const float*>(p.a);
    const E* b = static_cast<const E*>(p.b);
    const E* pf = static_cast<const E*>(p.prefetch);
    for (int64_t s = 0; s < p.steps; ++s, ++a, b += kHalfPanel, pf += kHalfPanel) {
      prefetch_b<NV>(pf, kYmmLanes * sizeof(E));
      __m256 w[NV];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) w[v] = Weights::load(b + v * kYmmLanes);
#pragma GCC unroll 6
      for (int i = 0; i < MR; ++i) {
        const __m256 x = _mm256_broadcast_ss(a + i * p.lda);
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) acc[i][v] = _mm256_fmadd_ps(x, w[v], acc[i][v]);
      }
    }
  }
};

// bf16 pairs, odd k first (see kernels_avx512.cpp).
struct Bf16FmaStep {
  template <int MR, int NV>
  static void run(__m256 (&acc)[MR][NV], const HalfKernelArgs& p) {
    const __m256i high = _mm256_set1_epi32(static_cast<int>(0xFFFF0000u));
    const float* a = static_cast<const float*>(p.a);
    const uint16_t* b = static_cast<const uint16_t*>(p.b);
    const uint16_t* pf = static_cast<const uint16_t*>(p.prefetch);
    for (int64_t s = 0; s < p.steps; ++s, a += 2, b += 2 * kHalfPanel, pf += 2 * kHalfPanel) {
      prefetch_b<NV>(pf, 32);
      __m256 w[NV];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        const __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 2 * v * kYmmLanes));
        w[v] = _mm256_castsi256_ps(_mm256_and_si256(d, high));
      }
#pragma GCC unroll 6
      for (int i = 0; i < MR; ++i) {
        const __m256 x = _mm256_broadcast_ss(a + i * p.lda + 1);
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) acc[i][v] = _mm256_fmadd_ps(x, w[v], acc[i][v]);
      }
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        const __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 2 * v * kYmmLanes));
        w[v] = _mm256_castsi256_ps(_mm256_slli_epi32(d, 16));
      }
#pragma GCC unroll 6
      for (int i = 0; i < MR; ++i) {
        const __m256 x = _mm256_broadcast_ss(a + i * p.lda);
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) acc[i][v] = _mm256_fmadd_ps(x, w[v], acc[i][v]);
      }
    }
  }
};

// Vectors per tile: 2 (half a panel) from 3 rows up, a whole panel for 1 and 2 rows so
// that at least 4 accumulator chains are in flight. Tiles never cross a panel.
constexpr int ymm_vectors(int mr) { return mr <= 2 ? 4 : 2; }

template <class Step, int MaxMr>
constexpr HalfKernelSet ymm_set(const char* name, HalfType weights, AFormat fmt, int mcb,
                                ConvertAFn convert) {
  HalfKernelSet s{name, weights, fmt, MaxMr, mcb, {}, {}, convert};
  [&]<int... R>(std::integer_sequence<int, R...>) {
    ((s.main[R + 1] = HalfTile{&half_tile<Avx2, Step, R + 1, ymm_vectors(R + 1), true>,
                               kYmmLanes * ymm_vectors(R + 1)}),
     ...);
    ((s.edge[R + 1] = HalfTile{&half_tile<Avx2, Step, R + 1, ymm_vectors(R + 1), false>,
                               kYmmLanes * ymm_vectors(R + 1)}),
     ...);
  }(std::make_integer_sequence<int, MaxMr>{});
  return s;
}

void convert_a_f32_pairs(const void* src, ActType act, int64_t ld, int rows, int cols,
                         int cols_pad, void* dst, int64_t ld_dst) {
  for (int r = 0; r < rows; ++r) {
    float* out = static_cast<float*>(dst) + r * ld_dst;
    int c = 0;
    if (act == ActType::f32) {
      const float* in = static_cast<const float*>(src) + r * ld;
      for (; c + kYmmLanes <= cols; c += kYmmLanes) {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + c));
        _mm256_storeu_ps(out + c, _mm256_castsi256_ps(Avx2::round_to_bf16(x)));
      }
    }
    // The rest (and bf16 A, a plain widening) element by element.
    convert_a_scalar(AFormat::f32_pairs, static_cast<const char*>(src) +
                         (act == ActType::f32 ? sizeof(float) : sizeof(bfloat16)) * (r * ld + c),
                     act, ld, false, 1, cols - c, cols_pad - c, out + c, ld_dst);
  }
}

}  // namespace

// Register budget: fp16, fp32 6 x 2 vectors: 12 accumulators + 2 weights + 1 A = 15 of
// 16. bf16 5 x 2: 10 + 2 x 2 weights (GCC loads the even k's before the odd ones are
// done) + 1 A + the mask = 16; at 6 rows it keeps 4 accumulators on the stack.
const HalfKernelSet kHalfFp16Avx2 =
    ymm_set<OneKStep<Fp16Weights>, 6>("fp16_avx2", HalfType::fp16, AFormat::f32, 120, nullptr);
const HalfKernelSet kHalfFp32Avx2 =
    ymm_set<OneKStep<Fp32Weights>, 6>("fp32_avx2", HalfType::fp32, AFormat::f32, 120, nullptr);
const HalfKernelSet kHalfBf16Avx2 = ymm_set<Bf16FmaStep, 5>(
    "bf16_avx2", HalfType::bf16, AFormat::f32_pairs, 120, &convert_a_f32_pairs);

}  // namespace quire::detail
