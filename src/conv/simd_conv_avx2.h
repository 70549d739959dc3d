// The vector vocabulary of the direct convolution kernels on AVX2: 32 bytes or 8 int32
// lanes per ymm. The 4-byte dot products are exact even/odd vpmaddwd pairs (no
// saturation, unlike vpmaddubsw). AVX2 has no byte masks: a partial vector goes through
// a zeroed stack buffer. Included only by *_avx2.cpp files; internal linkage.
#pragma once

#include <cstdint>
#include <cstring>

#include "common/intrinsics.h"
#include "conv/conv_kernels.h"

namespace quire::conv {
namespace {

struct ConvAvx2 {
  using I = __m256i;
  static constexpr int kBytes = 32;
  static constexpr int kLanes = 8;
  static constexpr bool kPairs = false;

  static I zero() { return _mm256_setzero_si256(); }
  // n in [1, 32] bytes; the rest of the vector is zero.
  static I load(const uint8_t* p, int n) {
    if (n == 32) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    alignas(32) uint8_t tmp[32] = {};
    std::memcpy(tmp, p, static_cast<size_t>(n));
    return _mm256_load_si256(reinterpret_cast<const __m256i*>(tmp));
  }
  static I load_w(const int8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  // As ConvAvx512::load_dup2: the n / 2 input bytes at p (n even), each twice.
  static I load_dup2(const uint8_t* p, int n) {
    __m128i x;
    if (n == 32) {
      x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    } else {
      alignas(16) uint8_t tmp[16] = {};
      std::memcpy(tmp, p, static_cast<size_t>(n / 2));
      x = _mm_load_si128(reinterpret_cast<const __m128i*>(tmp));
    }
    const I w = _mm256_cvtepu8_epi16(x);
    return _mm256_or_si256(w, _mm256_slli_epi16(w, 8));
  }

  // Weights split into sign-extended even and odd bytes in 16-bit lanes, for dot_w.
  struct W {
    I even, odd;
  };
  static W prep_w(I w) {
    return W{_mm256_srai_epi16(_mm256_slli_epi16(w, 8), 8), _mm256_srai_epi16(w, 8)};
  }
  // acc += a . w in each 32-bit lane: four u8 x s8 products summed, exactly.
  static I dot_w(I acc, I a, const W& w) {
    const I a_even = _mm256_and_si256(a, _mm256_set1_epi16(0x00ff));
    const I a_odd = _mm256_srli_epi16(a, 8);
    return _mm256_add_epi32(acc, _mm256_add_epi32(_mm256_madd_epi16(a_even, w.even),
                                                  _mm256_madd_epi16(a_odd, w.odd)));
  }

  // As ConvAvx512::interleave, on two 128-bit lanes.
  static void interleave(const I t[4], I x[4]) {
    const I u0 = _mm256_unpacklo_epi8(t[0], t[1]), u1 = _mm256_unpackhi_epi8(t[0], t[1]);
    const I v0 = _mm256_unpacklo_epi8(t[2], t[3]), v1 = _mm256_unpackhi_epi8(t[2], t[3]);
    x[0] = _mm256_unpacklo_epi16(u0, v0);
    x[1] = _mm256_unpackhi_epi16(u0, v0);
    x[2] = _mm256_unpacklo_epi16(u1, v1);
    x[3] = _mm256_unpackhi_epi16(u1, v1);
  }

  // As ConvAvx512's: float parameters loaded once, the formula lane by lane.
  struct Params {
    __m256 fbias, mult;
  };
  template <bool FBIAS>
  static Params params(const ChannelRequant& q, int p) {
    return {FBIAS ? _mm256_loadu_ps(q.fbias + p) : _mm256_setzero_ps(), _mm256_loadu_ps(q.mult + p)};
  }
  template <bool FBIAS>
  static I apply(I raw, const Params& k, const ChannelRequant& q) {
    __m256 x = _mm256_cvtepi32_ps(raw);
    if constexpr (FBIAS) x = _mm256_add_ps(x, k.fbias);
    x = _mm256_mul_ps(x, k.mult);
    x = _mm256_max_ps(_mm256_min_ps(x, _mm256_set1_ps(q.x_hi)), _mm256_set1_ps(q.x_lo));
    return _mm256_add_epi32(_mm256_cvtps_epi32(x), _mm256_set1_epi32(q.c_zero_point));
  }
  static I sub(I a, I b) { return _mm256_sub_epi32(a, b); }
  static I mul_lo(I a, I b) { return _mm256_mullo_epi32(a, b); }

  // n <= 16 bytes from p, zero-extended to 16 and repeated in both 128-bit lanes.
  static I bcast16(const uint8_t* p, int n) {
    __m128i v;
    if (n == 16) {
      v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    } else if (n == 8) {
      v = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
    } else {
      alignas(16) uint8_t tmp[16] = {};
      std::memcpy(tmp, p, static_cast<size_t>(n));
      v = _mm_load_si128(reinterpret_cast<const __m128i*>(tmp));
    }
    return _mm256_broadcastsi128_si256(v);
  }
  static I shuffle_bytes(I v, I ctrl) { return _mm256_shuffle_epi8(v, ctrl); }
  // As ConvAvx512's: per-dword row sums of a bcast16 vector's 16 bytes, on 128 bits.
  static __m128i row_dot(__m128i acc, I b) {
    const __m128i x = _mm256_castsi256_si128(b);
    const __m128i pairs = _mm_add_epi16(_mm_and_si128(x, _mm_set1_epi16(0x00ff)), _mm_srli_epi16(x, 8));
    return _mm_add_epi32(acc, _mm_madd_epi16(pairs, _mm_set1_epi16(1)));
  }
  static I widen(__m128i v) { return _mm256_broadcastsi128_si256(v); }
  static I permute_lanes(I v, I idx) { return _mm256_permutevar8x32_epi32(v, idx); }
  static I add(I a, I b) { return _mm256_add_epi32(a, b); }
  static I load_i32(const int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }

  static void store_bytes(uint8_t* out, I b, int n) {
    if (n == 32) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), b);
      return;
    }
    alignas(32) uint8_t tmp[32];
    _mm256_store_si256(reinterpret_cast<__m256i*>(tmp), b);
    std::memcpy(out, tmp, static_cast<size_t>(n));
  }
  static void store4(uint8_t* out, const I r[4], int n) {
    store_bytes(out, _mm256_packus_epi16(_mm256_packs_epi32(r[0], r[1]), _mm256_packs_epi32(r[2], r[3])), n);
  }
  // The first n (<= 8) lanes as bytes: in-lane packs leave lanes 0-3 in bytes 0-3 and
  // lanes 4-7 in bytes 16-19; one dword permute brings them together.
  static void store1(uint8_t* out, I r, int n) {
    const I p = _mm256_packus_epi16(_mm256_packs_epi32(r, r), _mm256_packs_epi32(r, r));
    const I b = _mm256_permutevar8x32_epi32(p, _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0));
    alignas(32) uint8_t tmp[32];
    _mm256_store_si256(reinterpret_cast<__m256i*>(tmp), b);
    std::memcpy(out, tmp, static_cast<size_t>(n));
  }
};

}  // namespace
}  // namespace quire::conv
