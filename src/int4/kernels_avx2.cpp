// The AVX2 W4A8 kernels (the contract is in int4_kernels.h), also run by the avx_vnni
// and avx512_vnni_ymm paths. The exact vpmaddubsw formulation: codes in [0, 15] times
// A in [-128, 127] gives pair sums of at most 3840 in magnitude and the two K steps of a
// block at most 7680 together, inside int16; vpmaddwd against ones widens them exactly.
//
// 16 ymm registers hold rows x 2 accumulators for one 16-column chunk of the panel (two
// 8-column halves), so the kernel runs the panel's four chunks one after another, each
// over the whole group range; the float accumulators of a chunk live in a stack tile.
#include "common/intrinsics.h"
#include "int4/int4_kernels.h"

namespace quire::int4 {
namespace {

template <Int4ScaleType ST>
inline __m256 load_scales(const void* base, int64_t i) {
  if constexpr (ST == Int4ScaleType::f32) {
    return _mm256_loadu_ps(static_cast<const float*>(base) + i);
  } else {
    const __m128i h =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const uint16_t*>(base) + i));
    if constexpr (ST == Int4ScaleType::f16) return _mm256_cvtph_ps(h);
    else return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
  }
}

inline __m256i broadcast4(const int8_t* p) {
  int32_t v;
  __builtin_memcpy(&v, p, 4);
  return _mm256_set1_epi32(v);
}

// Lanes [0, n) set, for maskload / maskstore of the last columns.
inline __m256i lane_mask(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

template <int MR, Int4ScaleType ST, bool kMin>
void kernel(const Int4KernelArgs& p) {
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  const __m256i ones = _mm256_set1_epi16(1);
  for (int v = 0; v < 4; ++v) {
    if (p.final_output && 16 * v >= p.cols) break;
    alignas(32) float acc[MR][16] = {};
    const uint8_t* w = p.codes + 64 * v;
    const int8_t* a = p.a;
    for (int g = 0; g < p.groups; ++g) {
      const int k8 = g + 1 == p.groups ? p.last_k8 : p.group_k8;
      __m256i s[MR][2];
      for (int r = 0; r < MR; ++r) s[r][0] = s[r][1] = _mm256_setzero_si256();
      for (int t = 0; t < k8; ++t, w += Int4Layout::kBlockBytes, a += 8) {
        if (p.prefetch != 0 && v == 0) {  // the first chunk's pass brings in whole blocks
          for (int l = 0; l < 4; ++l)
            _mm_prefetch(reinterpret_cast<const char*>(w + p.prefetch + 64 * l), _MM_HINT_T0);
        }
        for (int h = 0; h < 2; ++h) {
          const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + 32 * h));
          const __m256i lo = _mm256_and_si256(x, nibble);
          const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), nibble);
#pragma GCC unroll 4
          for (int r = 0; r < MR; ++r) {
            const int8_t* ar = a + r * p.lda;
            const __m256i pairs = _mm256_add_epi16(_mm256_maddubs_epi16(lo, broadcast4(ar)),
                                                   _mm256_maddubs_epi16(hi, broadcast4(ar + 4)));
            s[r][h] = _mm256_add_epi32(s[r][h], _mm256_madd_epi16(pairs, ones));
          }
        }
      }
      const int64_t gi = int64_t{g} * Int4Layout::kPanel + 16 * v;
      for (int h = 0; h < 2; ++h) {
        const __m256 sv = load_scales<ST>(p.scales, gi + 8 * h);
        const __m256 mv = kMin ? _mm256_loadu_ps(p.mins + gi + 8 * h) : _mm256_setzero_ps();
        for (int r = 0; r < MR; ++r) {
          const int32_t R = p.rsum[r * p.ld_rsum + g];
          __m256 f = _mm256_load_ps(acc[r] + 8 * h);
          if constexpr (kMin) {
            f = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s[r][h]), sv, f);
            f = _mm256_fmadd_ps(mv, _mm256_set1_ps(static_cast<float>(R)), f);
          } else {
            const __m256i P = _mm256_sub_epi32(s[r][h], _mm256_set1_epi32(R * 8));
            f = _mm256_fmadd_ps(_mm256_cvtepi32_ps(P), sv, f);
          }
          _mm256_store_ps(acc[r] + 8 * h, f);
        }
      }
    }

    for (int r = 0; r < MR; ++r) {
      float* c = p.c + r * p.ldc + 16 * v;
      if (!p.final_output) {
        for (int h = 0; h < 2; ++h) _mm256_storeu_ps(c + 8 * h, _mm256_load_ps(acc[r] + 8 * h));
        continue;
      }
      const __m256 as = _mm256_set1_ps(p.a_scale[r]);
      for (int h = 0; h < 2 && 16 * v + 8 * h < p.cols; ++h) {
        const __m256i m = lane_mask(p.cols - 16 * v - 8 * h);
        const __m256 b = p.bias ? _mm256_maskload_ps(p.bias + 16 * v + 8 * h, m) : _mm256_setzero_ps();
        __m256 o = _mm256_fmadd_ps(as, _mm256_load_ps(acc[r] + 8 * h), b);
        if (p.relu) o = _mm256_max_ps(o, _mm256_setzero_ps());
        _mm256_maskstore_ps(c + 8 * h, m, o);
      }
    }
  }
}

constexpr Int4Kernels make_kernels() {
  Int4Kernels k{"int4_avx2", 4, {}};
  using ST = Int4ScaleType;
  auto fill = [&]<bool kMin, ST S>() {
    auto& row = k.fn[kMin ? 1 : 0][static_cast<int>(S)];
    row[1] = &kernel<1, S, kMin>;
    row[2] = &kernel<2, S, kMin>;
    row[3] = &kernel<3, S, kMin>;
    row[4] = &kernel<4, S, kMin>;
  };
  // This kernel walks a panel four times, 64 bytes of every 256-byte block a pass; from
  // memory (M = 1, 4096 x 4096, caches flushed, Zen 4) the first pass prefetching whole
  // blocks 16 KiB ahead streams 9.9 GB/s against 6.2 without.
  k.decode_prefetch = 16384;
  fill.template operator()<false, ST::f32>();
  fill.template operator()<false, ST::f16>();
  fill.template operator()<false, ST::bf16>();
  fill.template operator()<true, ST::f32>();
  fill.template operator()<true, ST::f16>();
  fill.template operator()<true, ST::bf16>();
  return k;
}

}  // namespace

const Int4Kernels kInt4Avx2 = make_kernels();

}  // namespace quire::int4
