// The AVX-512 W4A8 kernel (the contract is in int4_kernels.h), shared by the avx512 and
// avx512_vnni paths, which differ only in the dot step (Dot). Included only by
// translation units built with AVX-512 flags.
//
// Registers for rows x 64 columns: rows x 4 int32 accumulators (x 2 for rows <= 2: two
// independent chains per column vector hide the dot latency at decode), the low and
// high nibbles of one 64-byte load, the nibble mask, and what Dot needs for A (VNNI:
// nothing, its 4-byte groups are broadcast from memory inside vpdpbusd: 6 x 4 + 3 = 27
// of 32 registers). The float accumulators live in a 64-byte aligned stack tile: they
// are touched once per group.
//
// No software prefetch (Int4Kernels::decode_prefetch is 0 on both paths): at M = 1 the
// four prefetches per 256-byte block cost more than they bring. Zen 4, 4096 x 4096,
// avx512_vnni: 88-91 GB/s from L3 without, 66-68 with prefetches 16 KiB ahead; from
// memory (caches flushed) 19-24 GB/s without against 15-17 with, the hardware
// prefetcher alone keeping up once the codes are in 2 MiB pages (packed_weights.cpp).
#pragma once

#include "common/intrinsics.h"
#include "int4/int4_kernels.h"

// Internal linkage: the avx512 and avx512_vnni files are built with different flags, so
// nothing here may be merged across them by the linker.
namespace quire::int4::avx512 {
namespace {

// 16 scales from index `i` of a panel's scales, widened to fp32.
template <Int4ScaleType ST>
inline __m512 load_scales(const void* base, int64_t i) {
  if constexpr (ST == Int4ScaleType::f32) {
    return _mm512_loadu_ps(static_cast<const float*>(base) + i);
  } else {
    const __m256i h = _mm256_loadu_si256(
        reinterpret_cast<const __m256i*>(static_cast<const uint16_t*>(base) + i));
    if constexpr (ST == Int4ScaleType::f16) return _mm512_cvtph_ps(h);
    else return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  }
}

// With two chains (rows <= 2, VNNI), the high nibbles are used in place, x & 0xF0 = 16 *
// code: two unpacking instructions per 64 bytes instead of three, at decode where there
// are only 2 dot products per 64 bytes and row. The second chain then holds 16 * P_high,
// folded into the first as s1 >> 4 (exact: a multiple of 16) every kFoldBlocks blocks,
// before it could overflow (16 * 15 * 128 * 4 * 4096 < 2^31).
inline constexpr int kFoldBlocks = 4096;

// n >= 1 blocks of the two-chain form, folded into s: one row through Dot::row_pass (its
// own loop in assembly), two rows block by block here, each chunk loaded once (the empty
// asm keeps GCC from folding the load into both ANDs) and each row's groups of A
// broadcast once per block.
template <class Dot, int MR>
inline void dual_blocks(__m512i (&s)[MR][4], const uint8_t* w, const int8_t* a, int64_t lda,
                        int n, __m512i nibble, __m512i high) {
  __m512i lo[MR][4], hi[MR][4];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < 4; ++v) {
      lo[r][v] = s[r][v];
      hi[r][v] = _mm512_setzero_si512();
    }
  if constexpr (MR == 1) {
    Dot::row_pass(lo[0], hi[0], w, a, n, nibble, high);
  } else {
    for (int t = 0; t < n; ++t, w += Int4Layout::kBlockBytes, a += 8) {
      __m512i b_lo[MR], b_hi[MR];
      for (int r = 0; r < MR; ++r) {
        int32_t x0, x1;
        __builtin_memcpy(&x0, a + r * lda, 4);
        __builtin_memcpy(&x1, a + r * lda + 4, 4);
        b_lo[r] = _mm512_set1_epi32(x0);
        b_hi[r] = _mm512_set1_epi32(x1);
      }
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) {
        __m512i x = _mm512_loadu_si512(w + 64 * v);
        asm("" : "+v"(x));
        const __m512i xl = _mm512_and_si512(x, nibble), xh = _mm512_and_si512(x, high);
        for (int r = 0; r < MR; ++r) Dot::dot_reg(lo[r][v], hi[r][v], xl, xh, b_lo[r], b_hi[r]);
      }
    }
  }
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < 4; ++v)
      s[r][v] = _mm512_add_epi32(lo[r][v], _mm512_srai_epi32(hi[r][v], 4));
}

template <class Dot, int MR, Int4ScaleType ST, bool kMin>
void kernel(const Int4KernelArgs& p) {
  constexpr bool kDual = Dot::kDualAtSmallRows && MR <= 2;
  alignas(64) float acc[MR][64];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < 4; ++v) _mm512_store_ps(acc[r] + 16 * v, _mm512_setzero_ps());

  const __m512i nibble = _mm512_set1_epi8(0x0F);
  const __m512i high = _mm512_set1_epi8(static_cast<char>(0xF0));
  const uint8_t* w = p.codes;
  const int8_t* a = p.a;
  for (int g = 0; g < p.groups; ++g) {
    const int k8 = g + 1 == p.groups ? p.last_k8 : p.group_k8;
    // Symmetric: the sums start at -8 R and end as P - 8 R (int32 wraps, so partial sums
    // out of range do not matter: the final value is exact).
    __m512i minus_8r[MR];
    for (int r = 0; r < MR; ++r) minus_8r[r] = _mm512_set1_epi32(-8 * p.rsum[r * p.ld_rsum + g]);
    __m512i s0[MR][4];
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < 4; ++v) s0[r][v] = kMin ? _mm512_setzero_si512() : minus_8r[r];
    for (int t0 = 0; t0 < k8; t0 += kFoldBlocks) {
      const int t1 = k8 - t0 < kFoldBlocks ? k8 : t0 + kFoldBlocks;
      if constexpr (kDual) {
        dual_blocks<Dot, MR>(s0, w, a, p.lda, t1 - t0, nibble, high);
        w += int64_t{t1 - t0} * Int4Layout::kBlockBytes;
        a += 8 * (t1 - t0);
      } else {
        for (int t = t0; t < t1; ++t, w += Int4Layout::kBlockBytes, a += 8) {
#pragma GCC unroll 4
          for (int v = 0; v < 4; ++v) {
            const __m512i x = _mm512_loadu_si512(w + 64 * v);
            const __m512i lo = _mm512_and_si512(x, nibble);
            const __m512i hi = _mm512_and_si512(_mm512_srli_epi16(x, 4), nibble);
#pragma GCC unroll 6
            for (int r = 0; r < MR; ++r) Dot::step(s0[r][v], s0[r][v], lo, hi, a + r * p.lda);
          }
        }
      }
    }
    // The group's scales: s * float(P - 8R), or s * float(P) + m * float(R).
    const int64_t gi = int64_t{g} * Int4Layout::kPanel;
    __m512 sv[4], mv[4];
    for (int v = 0; v < 4; ++v) {
      sv[v] = load_scales<ST>(p.scales, gi + 16 * v);
      mv[v] = kMin ? _mm512_loadu_ps(p.mins + gi + 16 * v) : _mm512_setzero_ps();
    }
    for (int r = 0; r < MR; ++r) {
      const int32_t R = p.rsum[r * p.ld_rsum + g];
      const __m512 rf = _mm512_set1_ps(static_cast<float>(R));
      for (int v = 0; v < 4; ++v) {
        __m512 f = _mm512_load_ps(acc[r] + 16 * v);
        f = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s0[r][v]), sv[v], f);
        if constexpr (kMin) f = _mm512_fmadd_ps(mv[v], rf, f);
        _mm512_store_ps(acc[r] + 16 * v, f);
      }
    }
  }

  for (int r = 0; r < MR; ++r) {
    float* c = p.c + r * p.ldc;
    if (!p.final_output) {
      for (int v = 0; v < 4; ++v) _mm512_storeu_ps(c + 16 * v, _mm512_load_ps(acc[r] + 16 * v));
      continue;
    }
    const __m512 as = _mm512_set1_ps(p.a_scale[r]);
    for (int v = 0; v < 4 && 16 * v < p.cols; ++v) {
      const int n = p.cols - 16 * v;
      const __mmask16 m = n >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1);
      const __m512 b = p.bias ? _mm512_maskz_loadu_ps(m, p.bias + 16 * v) : _mm512_setzero_ps();
      __m512 o = _mm512_fmadd_ps(as, _mm512_load_ps(acc[r] + 16 * v), b);
      if (p.relu) o = _mm512_max_ps(o, _mm512_setzero_ps());
      _mm512_mask_storeu_ps(c + 16 * v, m, o);
    }
  }
}

// The table for one Dot: kernels for 1..Dot::kMaxRows rows, both kinds, the three
// scale types.
template <class Dot>
constexpr Int4Kernels make_kernels(const char* name) {
  Int4Kernels k{name, Dot::kMaxRows, {}};
  using ST = Int4ScaleType;
  auto fill = [&]<bool kMin, ST S>() {
    auto& row = k.fn[kMin ? 1 : 0][static_cast<int>(S)];
    row[1] = &kernel<Dot, 1, S, kMin>;
    row[2] = &kernel<Dot, 2, S, kMin>;
    row[3] = &kernel<Dot, 3, S, kMin>;
    row[4] = &kernel<Dot, 4, S, kMin>;
    if constexpr (Dot::kMaxRows == 6) {
      row[5] = &kernel<Dot, 5, S, kMin>;
      row[6] = &kernel<Dot, 6, S, kMin>;
    }
  };
  fill.template operator()<false, ST::f32>();
  fill.template operator()<false, ST::f16>();
  fill.template operator()<false, ST::bf16>();
  fill.template operator()<true, ST::f32>();
  fill.template operator()<true, ST::f16>();
  fill.template operator()<true, ST::bf16>();
  return k;
}

}  // namespace
}  // namespace quire::int4::avx512
