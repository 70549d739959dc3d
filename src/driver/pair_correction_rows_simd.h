// The pair correction for blocks of few rows (driver/pair_correction.h, PairCorrectRowsFn)
// over the vector vocabulary V: W entries at a time, each row's two A bytes of each entry
// gathered straight from the packed A block, s - sat16(s) per lane, added into C lane by
// lane. No pair-major copy, no tile, and nothing written to C on a first K block where
// nothing saturated.
#pragma once

#include <cstring>

#include "driver/pair_correction.h"
#include "pack/pair_index.h"

namespace quire::detail {
namespace {

template <typename V>
struct PairCorrectionRows {
  using I = typename V::I;
  static constexpr int W = V::W;

  static bool correct(const uint8_t* a, int64_t lda, int rows, int pair0, const PairEntry* first,
                      const PairEntry* last, int col0, int cols, int32_t* c, int64_t ldc,
                      bool accumulate) {
    bool holds = accumulate;  // whether C's slice holds sums the correction adds to
    const I low16 = V::set1i(0xFFFF), byte0 = V::set1i(0xFF), byte1 = V::set1i(0xFF00);
    const I lo = V::set1i(-32768), hi = V::set1i(32767), zero = V::zeroi();
    const I sixteen = V::set1i(16), two = V::set1i(2);
    const I pair0_v = V::set1i(pair0), col0_v = V::set1i(col0), last_col = V::set1i(cols - 1);
    const auto* words = reinterpret_cast<const int32_t*>(first);
    for (int64_t left = last - first; left > 0; left -= W, words += 2 * W) {
      // pair | col << 16 and (b0, b1) of W entries, in one lane order; lanes past the
      // entries are zero (b01 = 0 adds nothing).
      const int n = left < W ? static_cast<int>(2 * left) : 2 * W;
      I pc, b01;
      V::split_even_odd(V::load(words, typename V::Lanes(n)),
                        V::load(words + W, typename V::Lanes(n > W ? n - W : 0)), pc, b01);
      // Pair i of the block is A bytes 2i, 2i + 1: the gather reads the 4 bytes from 2i - 2
      // and keeps the high two (from 2i for i = 0), so it reads no byte past the pair's.
      const I i = V::maxi(V::subi(V::andi(pc, low16), pair0_v), zero);
      const I first_pair = V::select_gti(i, zero, zero, two);  // i > 0 ? 0 : 2
      const I offset = V::subi(V::template slli<1>(i), V::subi(two, first_pair));
      const I shift = V::subi(sixteen, V::template slli<3>(first_pair));
      // Entries of columns outside the slice add 0 to its column 0.
      I j = V::subi(V::template srli<16>(pc), col0_v);
      b01 = V::select_gti(zero, j, V::select_gti(j, last_col, b01, zero), zero);
      j = V::select_gti(zero, j, V::select_gti(j, last_col, j, zero), zero);
      alignas(64) int32_t j_of[W];
      V::store(j_of, j);
      for (int r = 0; r < rows; ++r) {
        const I x = V::srlv(V::gather_bytes(a + r * lda, offset), shift);  // a0 | a1 << 8
        const I pair = V::ori(V::andi(x, byte0), V::template slli<8>(V::andi(x, byte1)));
        const I s = V::madd16(pair, b01);
        const I lost = V::subi(s, V::maxi(V::mini(s, hi), lo));  // s - sat16(s)
        if (!holds) {
          if (V::nonzero_mask(lost) == 0) continue;
          for (int k = 0; k < rows; ++k) std::memset(c + k * ldc, 0, sizeof(int32_t) * cols);
          holds = true;  // first K block: the slice starts at zero
        }
        // Pairs saturate often under 8-bit A (a branch per lane mispredicted): every lane
        // is added, zeros included.
        alignas(64) int32_t lost_of[W];
        V::store(lost_of, lost);
        int32_t* row = c + r * ldc;
        for (int l = 0; l < W; ++l) row[j_of[l]] += lost_of[l];
      }
    }
    return holds;
  }
};

}  // namespace
}  // namespace quire::detail
