// ConvAvx2: the vector vocabulary (simd/vec_avx2.h, 8 int32 lanes per ymm) plus what only
// the direct convolution kernels need: loads of a pixel's channel bytes, the pack
// that undoes the tap interleave, the groupwise kernel's 16-byte broadcasts and
// row sums. The dot step is SplitDot's exact byte split (AVX2 has no VNNI here);
// requantization is conv_requant.h's. AVX2 has no byte masks: a partial vector of
// channels goes through a zeroed stack buffer. Included only by *_avx2.cpp files;
// internal linkage.
#pragma once

#include <cstdint>
#include <cstring>

#include "common/intrinsics.h"
#include "simd/certified_dot.h"
#include "simd/split_dot.h"
#include "simd/vec_avx2.h"

namespace quire::conv {
namespace {

struct ConvAvx2 : detail::Avx2 {
  static constexpr int kBytes = 32;     // bytes (channels) per vector
  static constexpr bool kPairs = false;  // no two-pixels-per-vector operations
  using Dot = detail::SplitDot<Avx2>;

  // n in [1, 32] channel bytes; the rest of the vector is zero.
  static I load_channels(const uint8_t* p, int n) {
    if (n == 32) return load_raw(p);
    alignas(32) uint8_t tmp[32] = {};
    std::memcpy(tmp, p, static_cast<size_t>(n));
    return load_aligned(tmp);
  }
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

  // The bytes, in channel order, of four requantized vectors (each lane in [0, 255]) in
  // interleave's lane order: the in-lane packs undo the interleave.
  static I pack_interleaved(const I r[4]) {
    return _mm256_packus_epi16(_mm256_packs_epi32(r[0], r[1]), _mm256_packs_epi32(r[2], r[3]));
  }
  // pack_interleaved with zp16 added to the int16 values between the two packs (the row
  // kernels' requantization: the saturating packs give the lower bound 0).
  static I pack_interleaved_zp(const I r[4], I zp16) {
    const I a = _mm256_add_epi16(_mm256_packs_epi32(r[0], r[1]), zp16);
    const I b = _mm256_add_epi16(_mm256_packs_epi32(r[2], r[3]), zp16);
    return _mm256_packus_epi16(a, b);
  }
  // As ConvAvx512::store_interleaved: n bytes of pack_interleaved(r).
  static void store_interleaved(uint8_t* out, const I r[4], int n) {
    const I b = pack_interleaved(r);
    if (n == 32) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), b);
      return;
    }
    alignas(32) uint8_t tmp[32];
    store_aligned(tmp, b);
    std::memcpy(out, tmp, static_cast<size_t>(n));
  }

  // n <= 16 bytes from p, zero-extended to 16 and repeated in both 128-bit lanes; but 8
  // bytes are repeated in every 64-bit half (one vpbroadcastq from memory, not a load and
  // a lane insert), bytes 8..15 of a lane a copy of 0..7: the groupwise kernel reads a
  // vector's first n bytes only.
  static I bcast16(const uint8_t* p, int n) {
    __m128i v;
    if (n == 16) {
      v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    } else if (n == 8) {
      int64_t q;
      std::memcpy(&q, p, 8);
      return _mm256_set1_epi64x(q);
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

  // The depthwise row kernels' operations (depthwise_rows_simd.h).
  // 16 bytes at p in the low 128-bit lane, the high lane from fill.
  static I load_low16(const uint8_t* p, I fill) {
    return _mm256_inserti128_si256(fill, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), 0);
  }
  // 16 bytes at lo and 16 at hi as the two 128-bit lanes.
  static I load_lanes(const void* lo, const void* hi) {
    const __m128i l = _mm_loadu_si128(static_cast<const __m128i*>(lo));
    const __m128i h = _mm_loadu_si128(static_cast<const __m128i*>(hi));
    return _mm256_inserti128_si256(_mm256_castsi128_si256(l), h, 1);
  }
  static void store_raw(void* p, I v) { _mm256_storeu_si256(static_cast<__m256i*>(p), v); }
  static void store_low16(void* p, I v) {
    _mm_storeu_si128(static_cast<__m128i*>(p), _mm256_castsi256_si128(v));
  }
  static I set1_8(int8_t v) { return _mm256_set1_epi8(v); }
  static I set1_16(int16_t v) { return _mm256_set1_epi16(v); }
  // u8 x s8 -> int16 pair sums, saturating (vpmaddubsw): exact only where certified.
  static I maddubs16(I u8, I s8) { return _mm256_maddubs_epi16(u8, s8); }
  static I add16(I a, I b) { return _mm256_add_epi16(a, b); }
  static I sub16(I a, I b) { return _mm256_sub_epi16(a, b); }
  static I maxu8(I a, I b) { return _mm256_max_epu8(a, b); }
  template <int N>
  static I slli32(I v) {
    return _mm256_slli_epi32(v, N);
  }
  template <int N>
  static I srli32(I v) {
    return _mm256_srli_epi32(v, N);
  }
  // The tap-pair kernel's operations (depthwise_tap_pairs.h).
  // 16 bytes at p zero-extended to words (vpmovzxbw).
  static I load_words(const uint8_t* p) {
    return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  // The dwords of vpunpcklwd (lo) and vpunpckhwd (hi) products saturated to words in
  // channel order (the in-lane pack undoes the unpacks), plus zp16.
  static I pack_dwords_zp(I lo, I hi, I zp16) {
    return _mm256_add_epi16(_mm256_packs_epi32(lo, hi), zp16);
  }
  // Two vectors of 16 words each as 32 bytes, a's then b's, saturated to [0, 255].
  static I pack_words_in_order(I a, I b) {
    return _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xd8);
  }
  static F castf(I v) { return _mm256_castsi256_ps(v); }
  // The largest byte of a vector.
  static int hmax_u8(I v) {
    __m128i x = _mm_max_epu8(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    x = _mm_max_epu8(x, _mm_srli_si128(x, 8));
    x = _mm_max_epu8(x, _mm_srli_si128(x, 4));
    x = _mm_max_epu8(x, _mm_srli_si128(x, 2));
    x = _mm_max_epu8(x, _mm_srli_si128(x, 1));
    return _mm_cvtsi128_si32(x) & 0xff;
  }
};

// ConvAvx2 with the certified dot step (simd/certified_dot.h), for calls whose
// activations are 7-bit (activation_bound.h).
struct ConvAvx2Certified : ConvAvx2 {
  using Dot = detail::CertifiedDot<Avx2>;
};

}  // namespace
}  // namespace quire::conv
