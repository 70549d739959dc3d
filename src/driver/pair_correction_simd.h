// The pair correction (driver/pair_correction.h) over the vector vocabulary V.
#pragma once

#include <algorithm>
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
    // The row vectors per entry fixed where they are few (blocks of up to 2 W rows): the
    // entry loop then has no inner loop and its addresses are shifts (Zen 5, 6 rows:
    // about 6 cycles per entry with the generic loop).
    const int nv = static_cast<int>(ld_a / W);
    if (nv == 1) add_entries<1>(a_pairs, ld_a, pair0, first, last, col0, cols, tile);
    else if (nv == 2) add_entries<2>(a_pairs, ld_a, pair0, first, last, col0, cols, tile);
    else add_entries<0>(a_pairs, ld_a, pair0, first, last, col0, cols, tile);
    add_tile(tile, ld_a, rows, cols, c, ldc, accumulate);
  }

  // tile[j * ld_a + r] += s - sat16(s) of every entry in columns [col0, col0 + cols),
  // for all ld_a rows (rows past the block's are zero in the pair-major block).
  template <int NV>
  static void add_entries(const int32_t* a_pairs, int64_t ld_a, int pair0, const PairEntry* first,
                          const PairEntry* last, int col0, int cols, int32_t* tile) {
    const int64_t ld = NV > 0 ? int64_t{NV} * W : ld_a;
    const int nv = NV > 0 ? NV : static_cast<int>(ld_a / W);
    const I lo = V::set1i(-32768), hi = V::set1i(32767);
    const int32_t* a_base = a_pairs - pair0 * ld;
    for (const PairEntry* e = first; e != last; ++e) {
      const unsigned j = static_cast<unsigned>(e->col - col0);
      if (j >= static_cast<unsigned>(cols)) continue;
      const I b = V::set1i(e->b01);
      const int32_t* a = a_base + e->pair * ld;
      int32_t* t = tile + j * ld;
      for (int v = 0; v < nv; ++v) {
        const I s = V::madd16(V::load_aligned(a + v * W), b);
        const I lost = V::subi(s, V::maxi(V::mini(s, hi), lo));  // s - sat16(s)
        V::store_aligned(t + v * W, V::addi(V::load_aligned(t + v * W), lost));
      }
    }
  }

  // C rows [0, rows) x columns [0, cols) += (or = without accumulate) the column-major
  // tile: W x W squares transposed, the columns past the last square one by one.
  static void add_tile(const int32_t* tile, int64_t ld_a, int rows, int cols, int32_t* c,
                       int64_t ldc, bool accumulate) {
    int j0 = 0;
    for (; j0 + W <= cols; j0 += W) {
      for (int r0 = 0; r0 < rows; r0 += W) {
        I r[W];
        for (int i = 0; i < W; ++i) r[i] = V::load_aligned(tile + (j0 + i) * ld_a + r0);
        V::transpose(r);  // r[i]: row r0 + i, columns j0..j0 + W - 1
        const int n = std::min(W, rows - r0);
        // Every C row read before any is written: C rows 4 KiB apart (N a power of two)
        // alias in the store buffer, and a read behind a write to an aliasing row waits.
        if (accumulate) {
          I sum[W];
          for (int i = 0; i < W; ++i) sum[i] = i < n ? V::load(c + (r0 + i) * ldc + j0) : r[i];
          for (int i = 0; i < W; ++i) r[i] = V::addi(sum[i], r[i]);
        }
        if (n == W) {
          for (int i = 0; i < W; ++i) V::store(c + (r0 + i) * ldc + j0, r[i]);
        } else {
          for (int i = 0; i < W; ++i)
            if (i < n) V::store(c + (r0 + i) * ldc + j0, r[i]);
        }
      }
    }
    for (int r = 0; r < rows; ++r) {
      int32_t* row = c + r * ldc;
      for (int j = j0; j < cols; ++j)
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
