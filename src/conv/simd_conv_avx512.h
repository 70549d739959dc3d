// ConvAvx512<VNNI>: the vector vocabulary (simd/vec_avx512.h, 16 int32 lanes per zmm)
// plus what only the direct convolution kernels need: loads of a pixel's channel bytes
// (byte masks for partial vectors), two pixels per vector, the pack that undoes the
// tap interleave, the groupwise kernel's 16-byte broadcasts and row sums. The dot
// step is vpdpbusd with VNNI (VnniDot), else SplitDot's exact byte split (each product of
// a u8 and an s8 fits 16 bits, each pair sum 17: no saturation, unlike vpmaddubsw);
// requantization is conv_requant.h's. Included only by *_avx512.cpp and *_avx512vnni.cpp
// files; internal linkage.
#pragma once

#include <cstdint>
#include <type_traits>

#include "common/intrinsics.h"
#include "simd/split_dot.h"
#include "simd/vec_avx512.h"

namespace quire::conv {
namespace {

// SplitDot's interface on vpdpbusd: the weights as loaded.
struct VnniDot {
  using I = __m512i;
  // A struct, not I itself: a std::vector of I (the kernel's per-call weight store, empty
  // here) would drop I's alignment attribute, which GCC warns of.
  struct Weights {
    I w;
  };
  static constexpr bool kSplitsBytes = false;
  static Weights weights(I w) { return {w}; }
  static I dot(I acc, I b, const Weights& w) { return _mm512_dpbusd_epi32(acc, b, w.w); }
};

template <bool VNNI>
struct ConvAvx512 : detail::Avx512 {
  static constexpr int kBytes = 64;     // bytes (channels) per vector
  static constexpr bool kPairs = true;  // has the two-pixels-per-vector operations
  using Dot = std::conditional_t<VNNI, VnniDot, detail::SplitDot<Avx512>>;

  static __mmask64 bytes_mask(int n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }
  // n in [1, 64] channel bytes; the rest of the vector is zero.
  static I load_channels(const uint8_t* p, int n) {
    return n == 64 ? _mm512_loadu_si512(p) : _mm512_maskz_loadu_epi8(bytes_mask(n), p);
  }
  // Channel multiplier 2: output channel c reads input channel c / 2, so the n (even)
  // bytes of output channels are the n / 2 input bytes at p, each repeated twice: widen
  // every byte to a word and copy it into the word's upper byte.
  static I load_dup2(const uint8_t* p, int n) {
    const __m256i x = _mm256_maskz_loadu_epi8(static_cast<__mmask32>(bytes_mask(n / 2)), p);
    const I w = _mm512_cvtepu8_epi16(x);
    return _mm512_or_si512(w, _mm512_slli_epi16(w, 8));
  }

  // Two pixels per vector (channels <= 32): the lower 256 bits hold pixel 0's channels,
  // the upper pixel 1's; weights and parameters are the 32-channel ones, repeated.
  static I load_pair(const uint8_t* p0, const uint8_t* p1, int n) {
    const __mmask32 m = static_cast<__mmask32>(bytes_mask(n));
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_maskz_loadu_epi8(m, p0)),
                              _mm256_maskz_loadu_epi8(m, p1), 1);
  }
  // load_pair of a channel multiplier 2 layer (load_dup2 per pixel, n <= 32).
  static I load_pair_dup2(const uint8_t* p0, const uint8_t* p1, int n) {
    const __mmask16 m = static_cast<__mmask16>(bytes_mask(n / 2));
    const __m256i w0 = _mm256_cvtepu8_epi16(_mm_maskz_loadu_epi8(m, p0));
    const __m256i w1 = _mm256_cvtepu8_epi16(_mm_maskz_loadu_epi8(m, p1));
    const I w = _mm512_inserti64x4(_mm512_castsi256_si512(w0), w1, 1);
    return _mm512_or_si512(w, _mm512_slli_epi16(w, 8));
  }
  static I load_w_dup(const int8_t* p) {
    return _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static I load_i32_dup(const int32_t* p) {
    return _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static F loadf_dup(const float* p) { return _mm512_broadcast_f32x8(_mm256_loadu_ps(p)); }
  // n <= 32 bytes of each pixel from store_interleaved's byte order.
  static void store_interleaved_pair(uint8_t* out0, uint8_t* out1, const I r[4], int n) {
    const I b = _mm512_packus_epi16(_mm512_packs_epi32(r[0], r[1]), _mm512_packs_epi32(r[2], r[3]));
    if (n == 32 && out1 == out0 + 32) {
      _mm512_storeu_si512(out0, b);
      return;
    }
    const __mmask32 m = static_cast<__mmask32>(bytes_mask(n));
    _mm256_mask_storeu_epi8(out0, m, _mm512_castsi512_si256(b));
    _mm256_mask_storeu_epi8(out1, m, _mm512_extracti64x4_epi64(b, 1));
  }

  // Stores n bytes of four requantized vectors in interleave's lane order: the in-lane
  // packs undo the in-lane unpacks, so the bytes come out in channel order.
  static void store_interleaved(uint8_t* out, const I r[4], int n) {
    const I b = _mm512_packus_epi16(_mm512_packs_epi32(r[0], r[1]), _mm512_packs_epi32(r[2], r[3]));
    if (n == 64)
      _mm512_storeu_si512(out, b);
    else
      _mm512_mask_storeu_epi8(out, bytes_mask(n), b);
  }
  // n <= 16 bytes from p, zero-extended to 16 and repeated in every 128-bit lane.
  static I bcast16(const uint8_t* p, int n) {
    if (n == 16) return _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    return _mm512_broadcast_i32x4(_mm_maskz_loadu_epi8(static_cast<__mmask16>(bytes_mask(n)), p));
  }
  static I shuffle_bytes(I v, I ctrl) { return _mm512_shuffle_epi8(v, ctrl); }
  // Row sums of a bcast16 vector's 16 bytes, per dword, on 128 bits: the groupwise
  // kernel keeps them narrow (a zmm operation costs two 256-bit ones on some CPUs).
  static __m128i row_dot(__m128i acc, I b) {
    const __m128i x = _mm512_castsi512_si128(b);
    if constexpr (VNNI) {
      return _mm_dpbusd_epi32(acc, x, _mm_set1_epi8(1));
    } else {
      const __m128i pairs = _mm_add_epi16(_mm_and_si128(x, _mm_set1_epi16(0x00ff)), _mm_srli_epi16(x, 8));
      return _mm_add_epi32(acc, _mm_madd_epi16(pairs, _mm_set1_epi16(1)));
    }
  }
  static I widen(__m128i v) { return _mm512_broadcast_i32x4(v); }
};

}  // namespace
}  // namespace quire::conv
