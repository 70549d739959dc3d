// The store of the shuffle-free groupwise kernels: four requantized vectors r[k] to the
// bytes of a pixel's channels in order. The in-lane packs leave each 16-byte lane as
// r[0..3]'s four bytes one after another; one in-lane byte shuffle (control()) puts them
// in channel order. For the AVX-512 and AVX2 vocabularies (64 and 32 bytes); included
// only by their files.
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

  // The in-lane byte order after the packs, as a shuffle control. 2 and 4 channels per
  // group (groupwise_dword_kernel.h): byte 4 i + o <- 4 o + i. 8 per group
  // (groupwise_pair_kernel.h: r[k] lane 2 g + e holds channel 8 g + 2 k + e): byte
  // 8 g + 2 k + e <- 4 k + 2 g + e, g = 0, 1 the lane's two groups.
  static I control(int cg = 4) {
    alignas(64) int8_t ctrl[S::kBytes];
    for (int lane = 0; lane < S::kBytes / 16; ++lane) {
      int8_t* c = ctrl + 16 * lane;
      if (cg == 8) {
        for (int g = 0; g < 2; ++g)
          for (int k = 0; k < 4; ++k)
            for (int e = 0; e < 2; ++e) c[8 * g + 2 * k + e] = static_cast<int8_t>(4 * k + 2 * g + e);
      } else {
        for (int i = 0; i < 4; ++i)
          for (int o = 0; o < 4; ++o) c[4 * i + o] = static_cast<int8_t>(4 * o + i);
      }
    }
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
