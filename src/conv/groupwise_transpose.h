// The store of groupwise_cg4_kernel.h on AVX-512: four requantized vectors r[o] (lane j:
// output channel 4 j + o) to the bytes of a pixel's channels in order. The in-lane packs
// leave each 16-byte lane as r[0..3]'s four bytes one after another (byte 4 o + i holds
// channel 4 i + o of the lane); one in-lane byte shuffle transposes that 4 x 4.
// Included only by *_avx512*.cpp files; internal linkage.
#pragma once

#include <cstdint>

#include "common/intrinsics.h"

namespace quire::conv {
namespace {

template <class S>
struct GroupwiseTranspose {
  static_assert(S::kBytes == 64, "AVX-512 vocabularies only");

  static __m512i control() {
    alignas(64) int8_t ctrl[64];
    for (int k = 0; k < 4; ++k)
      for (int i = 0; i < 4; ++i)
        for (int o = 0; o < 4; ++o) ctrl[16 * k + 4 * i + o] = static_cast<int8_t>(4 * o + i);
    return _mm512_load_si512(ctrl);
  }

  // n in [1, 64] bytes; the values are already in [0, 255] (requantized).
  static void store(uint8_t* out, const __m512i r[4], __m512i order, int n) {
    const __m512i packed = _mm512_packus_epi16(_mm512_packs_epi32(r[0], r[1]),
                                               _mm512_packs_epi32(r[2], r[3]));
    const __m512i bytes = _mm512_shuffle_epi8(packed, order);
    if (n == 64)
      _mm512_storeu_si512(out, bytes);
    else
      _mm512_mask_storeu_epi8(out, (1ull << n) - 1, bytes);
  }
};

}  // namespace
}  // namespace quire::conv
