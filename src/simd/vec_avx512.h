// Avx512: quire's vector vocabulary on AVX-512 (F/BW/VL/DQ), 16 float or int32 lanes per
// zmm; the same names as Avx2 (vec_avx2.h, which says how the vocabulary is used).
// Included only by *_avx512*.cpp files; everything has internal linkage, so no AVX-512
// code can leak into another translation unit through the linker.
#pragma once

#include <cstdint>
#include <cstring>

#include "common/intrinsics.h"
#include "quire/FloatConversion.h"
#include "simd/vec_tail.h"

namespace quire::detail {
namespace {

struct Avx512 {
  static constexpr int W = 16;
  using F = __m512;
  using I = __m512i;

  static F zerof() { return _mm512_setzero_ps(); }
  static I zeroi() { return _mm512_setzero_si512(); }
  static F loadf(const float* p) { return _mm512_loadu_ps(p); }
  static void storef(float* p, F v) { _mm512_storeu_ps(p, v); }
  static F set1f(float v) { return _mm512_set1_ps(v); }
  static I set1i(int32_t v) { return _mm512_set1_epi32(v); }
  static F add(F a, F b) { return _mm512_add_ps(a, b); }
  static F sub(F a, F b) { return _mm512_sub_ps(a, b); }
  static F mul(F a, F b) { return _mm512_mul_ps(a, b); }
  static F fmadd(F a, F b, F c) { return _mm512_fmadd_ps(a, b, c); }  // a * b + c, one rounding
  // vminps/vmaxps return the second operand when either is NaN.
  static F min(F a, F b) { return _mm512_min_ps(a, b); }
  static F max(F a, F b) { return _mm512_max_ps(a, b); }
  static F round(F v) {
    return _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  static I cvtfi(F v) { return _mm512_cvtps_epi32(v); }  // MXCSR default: nearest even
  static F cvtif(I v) { return _mm512_cvtepi32_ps(v); }
  static I addi(I a, I b) { return _mm512_add_epi32(a, b); }
  static I subi(I a, I b) { return _mm512_sub_epi32(a, b); }
  static I maxi(I a, I b) { return _mm512_max_epi32(a, b); }
  static I mini(I a, I b) { return _mm512_min_epi32(a, b); }
  static I xori(I a, I b) { return _mm512_xor_si512(a, b); }
  static bool any_negative(I v) { return _mm512_movepi32_mask(v) != 0; }
  // Arithmetic right shift of int32 lanes by a run-time count.
  static I srai(I v, int n) { return _mm512_sra_epi32(v, _mm_cvtsi32_si128(n)); }
  // 64-bit lanes: the signed products of the even int32 elements; high dwords moved low.
  static I mul_even(I a, I b) { return _mm512_mul_epi32(a, b); }
  static I add64(I a, I b) { return _mm512_add_epi64(a, b); }
  static I set1_64(int64_t v) { return _mm512_set1_epi64(v); }
  // The odd int32 elements moved to the even lanes (where vpmuldq reads them).
  static I odd_to_even(I v) { return _mm512_shuffle_epi32(v, static_cast<_MM_PERM_ENUM>(0xF5)); }
  // The high dwords of the 64-bit lanes of even and odd, interleaved: element 2k from
  // even's lane k, 2k+1 from odd's lane k (one vpermt2d).
  static I high_dwords(I even, I odd) {
    const __m512i idx =
        _mm512_setr_epi32(1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31);
    return _mm512_permutex2var_epi32(even, idx, odd);
  }
  // r > bound ? b : a, lane by lane (false for NaN).
  static I select_gt(F r, F bound, I a, I b) {
    return _mm512_mask_mov_epi32(a, _mm512_cmp_ps_mask(r, bound, _CMP_GT_OQ), b);
  }
  static float hmin(F v) { return _mm512_reduce_min_ps(v); }
  static float hmax(F v) { return _mm512_reduce_max_ps(v); }

  // The 4 W bytes at p as they are.
  static I load_raw(const void* p) { return _mm512_loadu_si512(p); }
  // Whole vectors at 4 W-byte aligned addresses. (GCC's default tuning splits 256-bit
  // loads and stores it cannot prove aligned into two halves: SpMDM's column loop ran 2x
  // slower on unaligned AVX2 loads of its aligned buffer.)
  static I load_aligned(const void* p) { return _mm512_load_si512(p); }
  static void store_aligned(void* p, I v) { _mm512_store_si512(p, v); }
  // 16-bit lanes: the pair sums a0 * b0 + a1 * b1 of each 32-bit lane (vpmaddwd, exact
  // unless both pairs are -32768 * -32768), and the shifts.
  static I madd16(I a, I b) { return _mm512_madd_epi16(a, b); }
  // 16-bit lanes of a and b interleaved within each 128-bit lane: its low (high) four
  // of a and b alternating, a first.
  static I unpacklo16(I a, I b) { return _mm512_unpacklo_epi16(a, b); }
  static I unpackhi16(I a, I b) { return _mm512_unpackhi_epi16(a, b); }
  // The same for bytes: the low (high) eight of each 128-bit lane of a and b alternating.
  static I unpacklo8(I a, I b) { return _mm512_unpacklo_epi8(a, b); }
  static I unpackhi8(I a, I b) { return _mm512_unpackhi_epi8(a, b); }
  // vpmaddubsw: per 16-bit lane, unsigned byte times signed byte of a and b, the two
  // products of the lane added (saturated to int16).
  static I maddubs(I a, I b) { return _mm512_maddubs_epi16(a, b); }
  template <int N>
  static I srli16(I v) {
    return _mm512_srli_epi16(v, N);
  }
  template <int N>
  static I slli16(I v) {
    return _mm512_slli_epi16(v, N);
  }
  template <int N>
  static I srai16(I v) {
    return _mm512_srai_epi16(v, N);
  }

  // Integer loads widened to int32 lanes, and stores narrowed from in-range lanes.
  static I load(const uint8_t* p) { return _mm512_cvtepu8_epi32(_mm_loadu_si128(cp128(p))); }
  static I load(const int8_t* p) { return _mm512_cvtepi8_epi32(_mm_loadu_si128(cp128(p))); }
  static I load(const uint16_t* p) { return _mm512_cvtepu16_epi32(_mm256_loadu_si256(cp256(p))); }
  static I load(const int16_t* p) { return _mm512_cvtepi16_epi32(_mm256_loadu_si256(cp256(p))); }
  static I load(const int32_t* p) { return _mm512_loadu_si512(p); }
  static void store(uint8_t* p, I v) { _mm_storeu_si128(p128(p), _mm512_cvtepi32_epi8(v)); }
  static void store(int8_t* p, I v) { _mm_storeu_si128(p128(p), _mm512_cvtepi32_epi8(v)); }
  static void store(uint16_t* p, I v) { _mm256_storeu_si256(p256(p), _mm512_cvtepi32_epi16(v)); }
  static void store(int16_t* p, I v) { _mm256_storeu_si256(p256(p), _mm512_cvtepi32_epi16(v)); }
  static void store(int32_t* p, I v) { _mm512_storeu_si512(p, v); }
  // The int32 lanes of a, b, c, d saturated to [0, 255], as 4 W bytes in element order.
  static I pack_bytes(I a, I b, I c, I d) {
    const __m512i bytes =
        _mm512_packus_epi16(_mm512_packs_epi32(a, b), _mm512_packs_epi32(c, d));
    // 128-bit lane k holds a, b, c, d's elements 4k..4k+3 in its dwords 0, 1, 2, 3.
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    return _mm512_permutexvar_epi32(order, bytes);
  }
  // The 4 W bytes of v at p.
  static void store_raw(void* p, I v) { _mm512_storeu_si512(p, v); }
  // The 2 W 16-bit lanes of v, each in [0, 255], as 2 W bytes.
  static void store_words_as_bytes(uint8_t* p, I v) {
    _mm256_storeu_si256(p256(p), _mm512_cvtepi16_epi8(v));
  }
  // Four vectors to 4 W consecutive elements (vpmovdb/vpmovdw are cheap here).
  template <class T>
  static void store4(T* p, I a, I b, I c, I d) {
    store(p, a);
    store(p + W, b);
    store(p + 2 * W, c);
    store(p + 3 * W, d);
  }

  // (float)((double)q - zp) per lane: exact difference, rounded once.
  static F diff_to_float(I q, double zp) {
    const __m512d z = _mm512_set1_pd(zp);
    const __m512d lo = _mm512_sub_pd(_mm512_cvtepi32_pd(_mm512_castsi512_si256(q)), z);
    const __m512d hi = _mm512_sub_pd(_mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(q, 1)), z);
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo)), _mm512_cvtpd_ps(hi), 1);
  }

  // clamp((double)zp + (double)r, qmin, qmax) per lane, NaN -> qmin.
  static I add_clamp_wide(F r, double zp, double qmin, double qmax) {
    const __m512d z = _mm512_set1_pd(zp), lo = _mm512_set1_pd(qmin), hi = _mm512_set1_pd(qmax);
    auto one = [&](__m256 half) {
      const __m512d v = _mm512_add_pd(z, _mm512_cvtps_pd(half));
      return _mm512_cvtpd_epi32(_mm512_min_pd(_mm512_max_pd(v, lo), hi));
    };
    const __m256i a = one(_mm512_castps512_ps256(r)), b = one(_mm512_extractf32x8_ps(r, 1));
    return _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1);
  }

  // clamp(zp + round_half_up(src * multiplier >> shift), qmin, qmax) in 64 bits; the
  // rounding is (p >> s) + ((p >> (s - 1)) & 1), or p itself when kShift is false.
  template <bool kShift>
  static I requantize_fixed(I src, I multiplier, int shift, int64_t zp, int64_t qmin,
                            int64_t qmax) {
    const __m128i s = _mm_cvtsi32_si128(shift), s1 = _mm_cvtsi32_si128(shift - 1);
    const __m512i one = _mm512_set1_epi64(1), z = _mm512_set1_epi64(zp);
    const __m512i lo = _mm512_set1_epi64(qmin), hi = _mm512_set1_epi64(qmax);
    auto lanes = [&](__m512i x) {  // x: the int32 values in the low half of each qword
      __m512i p = _mm512_mul_epi32(x, multiplier);
      if constexpr (kShift) {
        p = _mm512_add_epi64(_mm512_sra_epi64(p, s),
                             _mm512_and_si512(_mm512_srl_epi64(p, s1), one));
      }
      return _mm512_min_epi64(_mm512_max_epi64(_mm512_add_epi64(p, z), lo), hi);
    };
    const __m512i even = lanes(src), odd = lanes(_mm512_srli_epi64(src, 32));
    return _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
  }

  // The low W bytes of an in-range int32 vector (bytes 0..W-1 of an xmm).
  static __m128i to_bytes(I v) { return _mm512_cvtepi32_epi8(v); }
  // W bytes (the low W bytes of an xmm) widened to int32 lanes.
  static I from_bytes(__m128i b) { return _mm512_cvtepu8_epi32(b); }
  // Variable right shift per lane.
  static I srlv(I v, I s) { return _mm512_srlv_epi32(v, s); }
  static I andi(I a, I b) { return _mm512_and_si512(a, b); }
  static I lane_pattern(const int32_t* p) { return _mm512_loadu_si512(p); }

  static void store_half(float16* p, F v) {
    _mm256_storeu_si256(p256(p), _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  static F load_half(const float16* p) { return _mm512_cvtph_ps(_mm256_loadu_si256(cp256(p))); }
  static void store_u16(uint16_t* p, I v) { store(p, v); }
  static I bits(F v) { return _mm512_castps_si512(v); }
  template <int N>
  static I srli(I v) {
    return _mm512_srli_epi32(v, N);
  }
  static F as_float(I v) { return _mm512_castsi512_ps(v); }
  template <int N>
  static I slli(I v) {
    return _mm512_slli_epi32(v, N);
  }
  static F sqrt(F v) { return _mm512_sqrt_ps(v); }  // correctly rounded, as std::sqrt
  // fp16 rounded toward zero (cpu_float2half_rz's bits).
  static void store_half_rz(float16* p, F v) {
    _mm256_storeu_si256(p256(p), _mm512_cvtps_ph(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
  }
  static I ori(I a, I b) { return _mm512_or_si512(a, b); }
  // a > b (signed) ? y : x
  static I select_gti(I a, I b, I x, I y) {
    return _mm512_mask_mov_epi32(x, _mm512_cmpgt_epi32_mask(a, b), y);
  }

  // bf16 bits of fp32 bits x (low 16 bits cleared): round to nearest even; NaN keeps
  // its top bits and gets the quiet bit. The formula of float_to_bfloat16_rne.
  static I round_to_bf16(I x) {
    const I lsb = andi(srli<16>(x), set1i(1));
    I r = addi(x, addi(lsb, set1i(0x7FFF)));
    const __mmask16 nan = _mm512_cmpgt_epu32_mask(andi(x, set1i(0x7FFFFFFF)), set1i(0x7F800000));
    r = _mm512_mask_or_epi32(r, nan, x, set1i(0x00400000));
    return andi(r, set1i(static_cast<int32_t>(0xFFFF0000u)));
  }

  // r[k] = row k of a W x W tile of 32-bit elements; afterwards column k. Within each
  // 128-bit lane as Avx2::transpose does, then the four lanes of rows 0-3, 4-7, 8-11,
  // 12-15 are gathered by two rounds of shuffle_f32x4.
  static void transpose(F r[W]) {
    F t[W], s[W];
    for (int p = 0; p < 8; ++p) {
      t[2 * p] = _mm512_unpacklo_ps(r[2 * p], r[2 * p + 1]);
      t[2 * p + 1] = _mm512_unpackhi_ps(r[2 * p], r[2 * p + 1]);
    }
    for (int q = 0; q < 4; ++q) {  // s[4q + c], lane L: column 4L + c of rows 4q..4q+3
      s[4 * q + 0] = _mm512_shuffle_ps(t[4 * q], t[4 * q + 2], 0x44);
      s[4 * q + 1] = _mm512_shuffle_ps(t[4 * q], t[4 * q + 2], 0xEE);
      s[4 * q + 2] = _mm512_shuffle_ps(t[4 * q + 1], t[4 * q + 3], 0x44);
      s[4 * q + 3] = _mm512_shuffle_ps(t[4 * q + 1], t[4 * q + 3], 0xEE);
    }
    for (int c = 0; c < 4; ++c) {
      const F u_lo = _mm512_shuffle_f32x4(s[c], s[4 + c], 0x44);  // lanes 0, 1 of each
      const F u_hi = _mm512_shuffle_f32x4(s[c], s[4 + c], 0xEE);  // lanes 2, 3
      const F v_lo = _mm512_shuffle_f32x4(s[8 + c], s[12 + c], 0x44);
      const F v_hi = _mm512_shuffle_f32x4(s[8 + c], s[12 + c], 0xEE);
      r[c] = _mm512_shuffle_f32x4(u_lo, v_lo, 0x88);       // lane 0 of the four quads
      r[4 + c] = _mm512_shuffle_f32x4(u_lo, v_lo, 0xDD);   // lane 1
      r[8 + c] = _mm512_shuffle_f32x4(u_hi, v_hi, 0x88);   // lane 2
      r[12 + c] = _mm512_shuffle_f32x4(u_hi, v_hi, 0xDD);  // lane 3
    }
  }
  static void transpose(I r[W]) {
    F f[W];
    for (int k = 0; k < W; ++k) f[k] = _mm512_castsi512_ps(r[k]);
    transpose(f);
    for (int k = 0; k < W; ++k) r[k] = _mm512_castps_si512(f[k]);
  }

  // Opmasks: masked loads and stores of any element size are single cheap instructions.
  // Byte masks for xmm loads and stores of a 16-byte row's first n bytes (n <= 16):
  // masked-off bytes read as 0 and are neither read nor written in memory.
  static constexpr bool kOpmasks = true;
  static __mmask16 byte_mask(int n) { return static_cast<__mmask16>((1u << n) - 1u); }
  static __m128i load_bytes(const void* p, __mmask16 m) { return _mm_maskz_loadu_epi8(m, p); }
  static void store_bytes(void* p, __mmask16 m, __m128i x) { _mm_mask_storeu_epi8(p, m, x); }

  // The first n lanes of a vector (n in [0, 16]; more is all 16; never negative).
  struct Lanes {
    int n;
    __mmask16 mask;

    explicit Lanes(int count)
        : n(count < W ? count : W),
          mask(static_cast<__mmask16>(n == W ? 0xFFFFu : (1u << n) - 1u)) {}
    bool full() const { return n == W; }
  };

  // Lanes past l.n are 0 and their memory is not read.
  static I load(const int32_t* p, const Lanes& l) { return _mm512_maskz_loadu_epi32(l.mask, p); }
  static F load(const float* p, const Lanes& l) { return _mm512_maskz_loadu_ps(l.mask, p); }

  // Stores the first l.n lanes; a partial vector in exact-size pieces (store_first).
  static void store(float* p, const Lanes& l, F v) {
    if (l.full())
      storef(p, v);
    else
      store_first(p, l.n, v);
  }
  // The first l.n lanes by one masked store: for stores that no load soon reads (the
  // exact-size pieces of store() avoid the stall where one does).
  static void store_masked(float* p, const Lanes& l, F v) { _mm512_mask_storeu_ps(p, l.mask, v); }
  static void store(int32_t* p, const Lanes& l, I v) {
    store(reinterpret_cast<float*>(p), l, _mm512_castsi512_ps(v));
  }
  // The low bytes of the first l.n lanes (all in [0, 255]).
  static void store(uint8_t* p, const Lanes& l, I v) {
    // A byte-masked store costs about 10 cycles on Zen 4 (5x an unmasked vpmovdb).
    if (l.full()) store(p, v);
    else _mm512_mask_cvtepi32_storeu_epi8(p, l.mask, v);
  }

  static F broadcast(float v) { return set1f(v); }
  static I broadcast(int32_t v) { return set1i(v); }
  // Lane i = a[idx[i]] for i < l.n, 0 past.
  static F gather(const float* a, I idx, const Lanes& l) {
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), l.mask, idx, a, 4);
  }
  static I gather(const int32_t* a, I idx, const Lanes& l) {
    return _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), l.mask, idx, a, 4);
  }
  // Lane i = v[idx[i]].
  static F permute(F v, I idx) { return _mm512_permutexvar_ps(idx, v); }
  static I permute(I v, I idx) { return _mm512_permutexvar_epi32(idx, v); }
  static F div(F a, F b) { return _mm512_div_ps(a, b); }
  static I mullo(I a, I b) { return _mm512_mullo_epi32(a, b); }  // modulo 2^32

 private:
  // Stores the first n (< 16) lanes of v: 8, then the rest as store_first_f32 does (never
  // by one masked store, for the reason given there).
  static void store_first(float* p, int n, F v) {
    __m256 y = _mm512_castps512_ps256(v);
    if (n & 8) {
      _mm256_storeu_ps(p, y);
      y = _mm512_extractf32x8_ps(v, 1);
      p += 8;
    }
    store_first_f32(p, n & 7, y);
  }
  template <class T>
  static const __m128i* cp128(const T* p) {
    return reinterpret_cast<const __m128i*>(p);
  }
  template <class T>
  static const __m256i* cp256(const T* p) {
    return reinterpret_cast<const __m256i*>(p);
  }
  template <class T>
  static __m128i* p128(T* p) {
    return reinterpret_cast<__m128i*>(p);
  }
  template <class T>
  static __m256i* p256(T* p) {
    return reinterpret_cast<__m256i*>(p);
  }
};

}  // namespace
}  // namespace quire::detail
