// The store of groupwise_dword_kernel.h: four requantized vectors r[o] (lane j: output
// channel 4 j + o) to the bytes of a pixel's channels in order. The in-lane packs leave
// each 16-byte lane as r[0..3]'s four bytes one after another (byte 4 o + i holds
// channel 4 i + o of the lane); one in-lane byte shuffle transposes that 4 x 4. For the
// AVX-512 and AVX2 vocabularies (64 and 32 bytes); included only by their files.
#pragma once

#include <cstdint>
#include <cstring>

#include "common/intrinsics.h"

namespace quire::conv {
namespace {

template <class S>
struct GroupwiseTranspose {
  using I = typename S::I;
  static_assert(S::kBytes == 64 || S::kBytes == 32, "AVX-512 or AVX2 vocabularies");

  static I control() {
    alignas(64) int8_t ctrl[S::kBytes];
    for (int k = 0; k < S::kBytes / 16; ++k)
      for (int i = 0; i < 4; ++i)
        for (int o = 0; o < 4; ++o) ctrl[16 * k + 4 * i + o] = static_cast<int8_t>(4 * o + i);
    return S::load_raw(ctrl);
  }

  // n in [1, kBytes] bytes; the values are already in [0, 255] (requantized).
  static void store(uint8_t* out, const I r[4], I order, int n) {
    if constexpr (S::kBytes == 64) {
      const I packed = _mm512_packus_epi16(_mm512_packs_epi32(r[0], r[1]),
                                           _mm512_packs_epi32(r[2], r[3]));
      const I bytes = _mm512_shuffle_epi8(packed, order);
      if (n == 64)
        _mm512_storeu_si512(out, bytes);
      else
        _mm512_mask_storeu_epi8(out, (1ull << n) - 1, bytes);
    } else {
      const I packed = _mm256_packus_epi16(_mm256_packs_epi32(r[0], r[1]),
                                           _mm256_packs_epi32(r[2], r[3]));
      const I bytes = _mm256_shuffle_epi8(packed, order);
      if (n == 32) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), bytes);
        return;
      }
      alignas(32) uint8_t tmp[32];
      _mm256_store_si256(reinterpret_cast<__m256i*>(tmp), bytes);
      std::memcpy(out, tmp, static_cast<size_t>(n));
    }
  }
};

}  // namespace
}  // namespace quire::conv
