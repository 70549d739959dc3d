// The pair correction (driver/pair_correction.h) over the vector vocabulary V.
#pragma once

#include <cstring>

#include "driver/pair_correction.h"
#include "pack/pair_index.h"

namespace quire::detail {
namespace {

template <typename V>
struct PairCorrection {
  using I = typename V::I;
  static constexpr int W = V::W;

  // One pair as vpmaddwd reads it: a0 | a1 << 16 from the u16 a0 | a1 << 8.
  static I spread(I x) {
    return V::ori(V::andi(x, V::set1i(0xFF)), V::template slli<8>(V::andi(x, V::set1i(0xFF00))));
  }

  static void pair_major(const uint8_t* a, int64_t lda, int rows, int cols, int32_t* dst,
                         int64_t ld_dst) {
    const int pairs = (cols + 1) / 2, full = cols / 2;  // full: both bytes inside cols
    int r0 = 0;
    // W rows x W pairs at a time: W pairs of each row widened, then transposed.
    for (; r0 + W <= rows; r0 += W) {
      int t0 = 0;
      for (; t0 + W <= full; t0 += W) {
        I r[W];
        for (int i = 0; i < W; ++i) {
          uint16_t u[W];  // the row's W pairs as they are in memory, at any alignment
          std::memcpy(u, a + (r0 + i) * lda + 2 * t0, sizeof(u));
          r[i] = spread(V::load(u));
        }
        V::transpose(r);
        for (int i = 0; i < W; ++i) V::store_aligned(dst + (t0 + i) * ld_dst + r0, r[i]);
      }
      for (int t = t0; t < pairs; ++t) scalar_pairs(a, lda, r0, r0 + W, t, cols, dst + t * ld_dst);
    }
    for (int t = 0; t < pairs; ++t) {
      scalar_pairs(a, lda, r0, rows, t, cols, dst + t * ld_dst);
      for (int r = rows; r < ld_dst; ++r) dst[t * ld_dst + r] = 0;
    }
  }

  static void scalar_pairs(const uint8_t* a, int64_t lda, int r0, int r1, int t, int cols,
                           int32_t* out) {
    for (int r = r0; r < r1; ++r) {
      const uint8_t* p = a + r * lda + 2 * t;
      out[r] = p[0] | (2 * t + 1 < cols ? int32_t{p[1]} << 16 : 0);
    }
  }

  // 64-byte aligned, so its loops' alignment, and speed, do not depend on where the
  // linker puts it (a layout shift made 16 x 256 x 512 3-4% slower).
  __attribute__((aligned(64))) static void correct(const int32_t* a_pairs, int64_t ld_a, int rows, int pair0,
                      const PairEntry* first, const PairEntry* last, int col0, int cols,
                      int32_t* c, int64_t ldc, bool accumulate, int32_t* tile) {
    std::memset(tile, 0, sizeof(int32_t) * static_cast<size_t>(cols * ld_a));
    const I lo = V::set1i(-32768), hi = V::set1i(32767);
    for (const PairEntry* e = first; e != last; ++e) {
      const int j = e->col - col0;
      if (j < 0 || j >= cols) continue;
      const I b = V::set1i(e->b01);
      const int32_t* a = a_pairs + (e->pair - pair0) * ld_a;
      int32_t* t = tile + j * ld_a;
      for (int r = 0; r < rows; r += W) {
        const I s = V::madd16(V::load_aligned(a + r), b);
        const I lost = V::subi(s, V::maxi(V::mini(s, hi), lo));  // s - sat16(s)
        V::store_aligned(t + r, V::addi(V::load_aligned(t + r), lost));
      }
    }
    // The tile is column-major; C rows are short (cols <= NR), so a scalar pass.
    for (int r = 0; r < rows; ++r) {
      int32_t* row = c + r * ldc;
      for (int j = 0; j < cols; ++j)
        row[j] = (accumulate ? row[j] : 0) + tile[j * ld_a + r];
    }
  }
};

template <typename V>
constexpr PairCorrectionKernels make_pair_correction() {
  return {V::W, &PairCorrection<V>::pair_major, &PairCorrection<V>::correct};
}

}  // namespace
}  // namespace quire::detail
