// Avx2: quire's vector vocabulary on AVX2 + FMA + F16C, 8 float or int32 lanes per ymm.
// Avx512 (vec_avx512.h) has the same names for 16 lanes per zmm, so a routine written
// once as a template over the vocabulary (the epilogue, the quantization kernels, the
// sparse loops, the transposes, the requantize step of requantize.h) is instantiated per
// ISA in a small *_avx2.cpp / *_avx512.cpp file. Included only by *_avx2.cpp files;
// everything has internal linkage, so no AVX2 code can leak into another translation
// unit through the linker.
//
// Groups: whole-vector arithmetic (float, int32, 64-bit lanes); loads widened to int32
// and stores narrowed from it; Lanes, the first n lanes of a vector, with masked loads
// and exact-size stores for block tails; gathers and lane permutes; fp16 / bf16.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "common/intrinsics.h"
#include "quire/FloatConversion.h"
#include "simd/vec_tail.h"

namespace quire::detail {
namespace {

struct Avx2 {
  static constexpr int W = 8;
  using F = __m256;
  using I = __m256i;

  static F zerof() { return _mm256_setzero_ps(); }
  static I zeroi() { return _mm256_setzero_si256(); }
  static F loadf(const float* p) { return _mm256_loadu_ps(p); }
  static void storef(float* p, F v) { _mm256_storeu_ps(p, v); }
  static F set1f(float v) { return _mm256_set1_ps(v); }
  static I set1i(int32_t v) { return _mm256_set1_epi32(v); }
  static F add(F a, F b) { return _mm256_add_ps(a, b); }
  static F sub(F a, F b) { return _mm256_sub_ps(a, b); }
  static F mul(F a, F b) { return _mm256_mul_ps(a, b); }
  static F fmadd(F a, F b, F c) { return _mm256_fmadd_ps(a, b, c); }  // a * b + c, one rounding
  // vminps/vmaxps return the second operand when either is NaN.
  static F min(F a, F b) { return _mm256_min_ps(a, b); }
  static F max(F a, F b) { return _mm256_max_ps(a, b); }
  static F round(F v) { return _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static I cvtfi(F v) { return _mm256_cvtps_epi32(v); }  // MXCSR default: nearest even
  static F cvtif(I v) { return _mm256_cvtepi32_ps(v); }
  static I addi(I a, I b) { return _mm256_add_epi32(a, b); }
  static I subi(I a, I b) { return _mm256_sub_epi32(a, b); }
  static I maxi(I a, I b) { return _mm256_max_epi32(a, b); }
  static I mini(I a, I b) { return _mm256_min_epi32(a, b); }
  static I xori(I a, I b) { return _mm256_xor_si256(a, b); }
  static bool any_negative(I v) { return _mm256_movemask_ps(_mm256_castsi256_ps(v)) != 0; }
  // Arithmetic right shift of int32 lanes by a run-time count.
  static I srai(I v, int n) { return _mm256_sra_epi32(v, _mm_cvtsi32_si128(n)); }
  // 64-bit lanes: the signed products of the even int32 elements; high dwords moved low.
  static I mul_even(I a, I b) { return _mm256_mul_epi32(a, b); }
  static I add64(I a, I b) { return _mm256_add_epi64(a, b); }
  static I set1_64(int64_t v) { return _mm256_set1_epi64x(v); }
  // The odd int32 elements moved to the even lanes (where vpmuldq reads them).
  static I odd_to_even(I v) { return _mm256_shuffle_epi32(v, 0xF5); }
  // The high dwords of the 64-bit lanes of even and odd, interleaved: element 2k from
  // even's lane k, 2k+1 from odd's lane k.
  static I high_dwords(I even, I odd) {
    return _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
  }
  // r > bound ? b : a, lane by lane (false for NaN).
  static I select_gt(F r, F bound, I a, I b) {
    return _mm256_blendv_epi8(a, b, _mm256_castps_si256(_mm256_cmp_ps(r, bound, _CMP_GT_OQ)));
  }
  static float hmin(F v) {
    __m128 m = _mm_min_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_min_ps(m, _mm_movehl_ps(m, m));
    return _mm_cvtss_f32(_mm_min_ss(m, _mm_movehdup_ps(m)));
  }
  static float hmax(F v) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    return _mm_cvtss_f32(_mm_max_ss(m, _mm_movehdup_ps(m)));
  }

  // The 4 W bytes at p as they are.
  static I load_raw(const void* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  // Whole vectors at 4 W-byte aligned addresses. (GCC's default tuning splits 256-bit
  // loads and stores it cannot prove aligned into two halves: SpMDM's column loop ran 2x
  // slower on unaligned AVX2 loads of its aligned buffer.)
  static I load_aligned(const void* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
  static void store_aligned(void* p, I v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }
  // 16-bit lanes: the pair sums a0 * b0 + a1 * b1 of each 32-bit lane (vpmaddwd, exact
  // unless both pairs are -32768 * -32768), and the shifts.
  static I madd16(I a, I b) { return _mm256_madd_epi16(a, b); }
  // 16-bit lanes of a and b interleaved within each 128-bit lane: its low (high) four
  // of a and b alternating, a first.
  static I unpacklo16(I a, I b) { return _mm256_unpacklo_epi16(a, b); }
  static I unpackhi16(I a, I b) { return _mm256_unpackhi_epi16(a, b); }
  // The same for bytes: the low (high) eight of each 128-bit lane of a and b alternating.
  static I unpacklo8(I a, I b) { return _mm256_unpacklo_epi8(a, b); }
  static I unpackhi8(I a, I b) { return _mm256_unpackhi_epi8(a, b); }
  // vpmaddubsw: per 16-bit lane, unsigned byte times signed byte of a and b, the two
  // products of the lane added (saturated to int16).
  static I maddubs(I a, I b) { return _mm256_maddubs_epi16(a, b); }
  template <int N>
  static I srli16(I v) {
    return _mm256_srli_epi16(v, N);
  }
  template <int N>
  static I slli16(I v) {
    return _mm256_slli_epi16(v, N);
  }
  template <int N>
  static I srai16(I v) {
    return _mm256_srai_epi16(v, N);
  }

  // Integer loads widened to int32 lanes, and stores narrowed from in-range lanes.
  static I load(const uint8_t* p) { return _mm256_cvtepu8_epi32(_mm_loadl_epi64(cp128(p))); }
  static I load(const int8_t* p) { return _mm256_cvtepi8_epi32(_mm_loadl_epi64(cp128(p))); }
  static I load(const uint16_t* p) { return _mm256_cvtepu16_epi32(_mm_loadu_si128(cp128(p))); }
  static I load(const int16_t* p) { return _mm256_cvtepi16_epi32(_mm_loadu_si128(cp128(p))); }
  static I load(const int32_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  static void store(uint8_t* p, I v) { _mm_storel_epi64(p128(p), to_bytes(v)); }
  static void store(int8_t* p, I v) {
    const __m128i w = _mm_packs_epi32(lo(v), hi(v));
    _mm_storel_epi64(p128(p), _mm_packs_epi16(w, w));
  }
  static void store(uint16_t* p, I v) { _mm_storeu_si128(p128(p), _mm_packus_epi32(lo(v), hi(v))); }
  static void store(int16_t* p, I v) { _mm_storeu_si128(p128(p), _mm_packs_epi32(lo(v), hi(v))); }
  static void store(int32_t* p, I v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  // The int32 lanes of a, b, c, d saturated to [0, 255], as 4 W bytes in element order.
  static I pack_bytes(I a, I b, I c, I d) {
    const __m256i bytes =
        _mm256_packus_epi16(_mm256_packs_epi32(a, b), _mm256_packs_epi32(c, d));
    // Per 128-bit lane the dwords are a0-3 b0-3 c0-3 d0-3 | a4-7 b4-7 c4-7 d4-7.
    return _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  }
  // The 4 W bytes of v at p.
  static void store_raw(void* p, I v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  // The 2 W 16-bit lanes of v, each in [0, 255], as 2 W bytes.
  static void store_words_as_bytes(uint8_t* p, I v) {
    _mm_storeu_si128(p128(p), _mm_packus_epi16(lo(v), hi(v)));
  }
  // Four vectors to 4 W consecutive elements: bytes through one vpackssdw / vpack*swb
  // tree and a lane fix-up instead of four narrowing chains.
  template <class T>
  static void store4(T* p, I a, I b, I c, I d) {
    if constexpr (sizeof(T) == 1) {
      const __m256i ab = _mm256_packs_epi32(a, b), cd = _mm256_packs_epi32(c, d);
      const __m256i bytes =
          std::is_signed_v<T> ? _mm256_packs_epi16(ab, cd) : _mm256_packus_epi16(ab, cd);
      // Per 128-bit lane the dwords are a0-3 b0-3 c0-3 d0-3 | a4-7 b4-7 c4-7 d4-7.
      const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm256_permutevar8x32_epi32(bytes, order));
    } else {
      store(p, a);
      store(p + W, b);
      store(p + 2 * W, c);
      store(p + 3 * W, d);
    }
  }

  // (float)((double)q - zp) per lane: exact difference, rounded once.
  static F diff_to_float(I q, double zp) {
    const __m256d z = _mm256_set1_pd(zp);
    const __m128 a = _mm256_cvtpd_ps(_mm256_sub_pd(_mm256_cvtepi32_pd(lo(q)), z));
    const __m128 b = _mm256_cvtpd_ps(_mm256_sub_pd(_mm256_cvtepi32_pd(hi(q)), z));
    return _mm256_insertf128_ps(_mm256_castps128_ps256(a), b, 1);
  }

  // clamp((double)zp + (double)r, qmin, qmax) per lane, NaN -> qmin.
  static I add_clamp_wide(F r, double zp, double qmin, double qmax) {
    const __m256d z = _mm256_set1_pd(zp), l = _mm256_set1_pd(qmin), h = _mm256_set1_pd(qmax);
    auto one = [&](__m128 half) {
      const __m256d v = _mm256_add_pd(z, _mm256_cvtps_pd(half));
      return _mm256_cvtpd_epi32(_mm256_min_pd(_mm256_max_pd(v, l), h));
    };
    const __m128i a = one(_mm256_castps256_ps128(r)), b = one(_mm256_extractf128_ps(r, 1));
    return _mm256_inserti128_si256(_mm256_castsi128_si256(a), b, 1);
  }

  // clamp(zp + round_half_up(src * multiplier >> shift), qmin, qmax) in 64 bits; the
  // rounding is (p >> s) + ((p >> (s - 1)) & 1), or p itself when kShift is false.
  // AVX2 has no 64-bit arithmetic shift: p >> s = (p >>> s) | (sign(p) << (64 - s)).
  template <bool kShift>
  static I requantize_fixed(I src, I multiplier, int shift, int64_t zp, int64_t qmin,
                            int64_t qmax) {
    const __m128i s = _mm_cvtsi32_si128(shift), s1 = _mm_cvtsi32_si128(shift - 1);
    const __m128i fill = _mm_cvtsi32_si128(64 - shift);
    const __m256i one = _mm256_set1_epi64x(1), z = _mm256_set1_epi64x(zp);
    const __m256i l = _mm256_set1_epi64x(qmin), h = _mm256_set1_epi64x(qmax);
    const __m256i zero = _mm256_setzero_si256();
    auto lanes = [&](__m256i x) {  // x: the int32 values in the low half of each qword
      __m256i p = _mm256_mul_epi32(x, multiplier);
      if constexpr (kShift) {
        const __m256i sign = _mm256_cmpgt_epi64(zero, p);
        const __m256i sra = _mm256_or_si256(_mm256_srl_epi64(p, s), _mm256_sll_epi64(sign, fill));
        p = _mm256_add_epi64(sra, _mm256_and_si256(_mm256_srl_epi64(p, s1), one));
      }
      __m256i v = _mm256_add_epi64(p, z);
      v = _mm256_blendv_epi8(v, l, _mm256_cmpgt_epi64(l, v));
      return _mm256_blendv_epi8(v, h, _mm256_cmpgt_epi64(v, h));
    };
    const __m256i even = lanes(src), odd = lanes(_mm256_srli_epi64(src, 32));
    return _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
  }

  // The low W bytes of an in-range (0..255) int32 vector.
  static __m128i to_bytes(I v) {
    const __m128i w = _mm_packs_epi32(lo(v), hi(v));
    return _mm_packus_epi16(w, w);
  }
  // W bytes (the low W bytes of an xmm) widened to int32 lanes.
  static I from_bytes(__m128i b) { return _mm256_cvtepu8_epi32(b); }
  static I srlv(I v, I s) { return _mm256_srlv_epi32(v, s); }
  static I andi(I a, I b) { return _mm256_and_si256(a, b); }
  static I lane_pattern(const int32_t* p) { return load(p); }

  static void store_half(float16* p, F v) {
    _mm_storeu_si128(p128(p), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  static F load_half(const float16* p) { return _mm256_cvtph_ps(_mm_loadu_si128(cp128(p))); }
  static void store_u16(uint16_t* p, I v) { store(p, v); }
  static I bits(F v) { return _mm256_castps_si256(v); }
  template <int N>
  static I srli(I v) {
    return _mm256_srli_epi32(v, N);
  }
  static F as_float(I v) { return _mm256_castsi256_ps(v); }
  template <int N>
  static I slli(I v) {
    return _mm256_slli_epi32(v, N);
  }
  static F sqrt(F v) { return _mm256_sqrt_ps(v); }  // correctly rounded, as std::sqrt
  // fp16 rounded toward zero (cpu_float2half_rz's bits).
  static void store_half_rz(float16* p, F v) {
    _mm_storeu_si128(p128(p), _mm256_cvtps_ph(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC));
  }
  static I ori(I a, I b) { return _mm256_or_si256(a, b); }
  // a > b (signed) ? y : x
  static I select_gti(I a, I b, I x, I y) {
    return _mm256_blendv_epi8(x, y, _mm256_cmpgt_epi32(a, b));
  }

  // bf16 bits of fp32 bits x (low 16 bits cleared): round to nearest even; NaN keeps
  // its top bits and gets the quiet bit. The formula of float_to_bfloat16_rne.
  static I round_to_bf16(I x) {
    const I lsb = andi(srli<16>(x), set1i(1));
    const I r = addi(x, addi(lsb, set1i(0x7FFF)));
    const I nan = _mm256_cmpgt_epi32(andi(x, set1i(0x7FFFFFFF)), set1i(0x7F800000));
    const I quiet = ori(x, set1i(0x00400000));
    return andi(_mm256_blendv_epi8(r, quiet, nan), set1i(static_cast<int32_t>(0xFFFF0000u)));
  }

  // r[k] = row k of a W x W tile of 32-bit elements; afterwards column k. Pairs of rows
  // interleave (unpack), then quads (shuffle), then the two 128-bit halves swap.
  static void transpose(F r[W]) {
    F t[W], s[W];
    for (int p = 0; p < 4; ++p) {
      t[2 * p] = _mm256_unpacklo_ps(r[2 * p], r[2 * p + 1]);
      t[2 * p + 1] = _mm256_unpackhi_ps(r[2 * p], r[2 * p + 1]);
    }
    for (int q = 0; q < 2; ++q) {  // s[4q + c]: column c (and c + 4) of rows 4q..4q+3
      s[4 * q + 0] = _mm256_shuffle_ps(t[4 * q], t[4 * q + 2], 0x44);
      s[4 * q + 1] = _mm256_shuffle_ps(t[4 * q], t[4 * q + 2], 0xEE);
      s[4 * q + 2] = _mm256_shuffle_ps(t[4 * q + 1], t[4 * q + 3], 0x44);
      s[4 * q + 3] = _mm256_shuffle_ps(t[4 * q + 1], t[4 * q + 3], 0xEE);
    }
    for (int c = 0; c < 4; ++c) {
      r[c] = _mm256_permute2f128_ps(s[c], s[4 + c], 0x20);
      r[c + 4] = _mm256_permute2f128_ps(s[c], s[4 + c], 0x31);
    }
  }
  static void transpose(I r[W]) {
    F f[W];
    for (int k = 0; k < W; ++k) f[k] = _mm256_castsi256_ps(r[k]);
    transpose(f);
    for (int k = 0; k < W; ++k) r[k] = _mm256_castps_si256(f[k]);
  }

  // No opmasks: AVX2 has no masked byte loads or stores, and its masked float store
  // (vmaskmovps) is slow on Zen 4 (edge tiles of the transposes: exact-size stores or
  // element by element instead, transpose_simd.h).
  static constexpr bool kOpmasks = false;

  // The first n lanes of a vector (n in [0, 8]; more is all 8; never negative: a clamp
  // here made the epilogue's AVX2 code 4% slower on 32-column blocks, measured).
  struct Lanes {
    int n;
    I mask;  // all ones in lanes < n

    explicit Lanes(int count) : n(count < W ? count : W) {
      // A sliding window over {-1 x 8, 0 x 8}.
      alignas(64) static constexpr int32_t kTable[2 * W] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                                            0,  0,  0,  0,  0,  0,  0,  0};
      mask = _mm256_loadu_si256(reinterpret_cast<const I*>(kTable + W - n));
    }
    bool full() const { return n == W; }
  };

  // Lanes past l.n are 0 and their memory is not read.
  static I load(const int32_t* p, const Lanes& l) {
    return l.full() ? load(p) : _mm256_maskload_epi32(p, l.mask);
  }
  static F load(const float* p, const Lanes& l) {
    return l.full() ? loadf(p) : _mm256_maskload_ps(p, l.mask);
  }

  // Stores the first l.n lanes; a partial vector in exact-size pieces (store_first_f32).
  static void store(float* p, const Lanes& l, F v) {
    if (l.full())
      storef(p, v);
    else
      store_first_f32(p, l.n, v);
  }
  // The first l.n lanes by one masked store: for stores that no load soon reads (the
  // exact-size pieces of store() avoid the stall where one does).
  static void store_masked(float* p, const Lanes& l, F v) { _mm256_maskstore_ps(p, l.mask, v); }
  static void store(int32_t* p, const Lanes& l, I v) {
    store(reinterpret_cast<float*>(p), l, _mm256_castsi256_ps(v));
  }
  // The low bytes of the first l.n lanes (all in [0, 255], so packing saturates nothing).
  // [[likely]] keeps the full store on the fall-through path: GCC otherwise places it out
  // of line with a jump back, and epilogue blocks 8 columns wide ran 1.4x slower (measured).
  static void store(uint8_t* p, const Lanes& l, I v) {
    if (l.full()) [[likely]]
      store(p, v);
    else
      store_first_u8(p, l.n, to_bytes(v));
  }

  static F broadcast(float v) { return set1f(v); }
  static I broadcast(int32_t v) { return set1i(v); }
  // Lane i = a[idx[i]] for i < l.n, 0 past.
  static F gather(const float* a, I idx, const Lanes& l) {
    return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), a, idx, _mm256_castsi256_ps(l.mask), 4);
  }
  static I gather(const int32_t* a, I idx, const Lanes& l) {
    return _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), a, idx, l.mask, 4);
  }
  // Lane i = v[idx[i]].
  static F permute(F v, I idx) { return _mm256_permutevar8x32_ps(v, idx); }
  static I permute(I v, I idx) { return _mm256_permutevar8x32_epi32(v, idx); }
  static F div(F a, F b) { return _mm256_div_ps(a, b); }
  static I mullo(I a, I b) { return _mm256_mullo_epi32(a, b); }  // modulo 2^32

 private:
  // Stores the first n (< 8) bytes of `bytes` with fixed-size moves.
  static void store_first_u8(uint8_t* out, int n, __m128i bytes) {
    auto word = static_cast<uint64_t>(_mm_cvtsi128_si64(bytes));
    if (n & 4) {
      const auto w = static_cast<uint32_t>(word);
      std::memcpy(out, &w, 4);
      word >>= 32;
      out += 4;
    }
    if (n & 2) {
      const auto w = static_cast<uint16_t>(word);
      std::memcpy(out, &w, 2);
      word >>= 16;
      out += 2;
    }
    if (n & 1) *out = static_cast<uint8_t>(word);
  }
  static __m128i lo(I v) { return _mm256_castsi256_si128(v); }
  static __m128i hi(I v) { return _mm256_extracti128_si256(v, 1); }
  template <class T>
  static const __m128i* cp128(const T* p) {
    return reinterpret_cast<const __m128i*>(p);
  }
  template <class T>
  static __m128i* p128(T* p) {
    return reinterpret_cast<__m128i*>(p);
  }
};

}  // namespace
}  // namespace quire::detail
