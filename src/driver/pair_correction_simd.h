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
  __attribute__((aligned(64))) static void correct(const int32_t* a_pairs, int64_t ld_a, int rows,
                                                   int pair0, int pair1, bool whole_k,
                                                   const uint32_t* lists, const PairEntry* entries,
                                                   int cols, int32_t* c, int64_t ldc,
                                                   bool accumulate, int32_t* tile) {
    const int nv = static_cast<int>(ld_a / W);
    const int32_t* a_base = a_pairs - pair0 * ld_a;  // pair t's rows at a_base + t * ld_a
    for (int j = 0; j < cols; ++j) {
      const PairEntry *up0 = entries + lists[2 * j], *up1 = entries + lists[2 * j + 1];
      const PairEntry *down0 = up1, *down1 = entries + lists[2 * j + 2];
      if (!whole_k) {
        cut_to_pairs(up0, up1, pair0, pair1);
        cut_to_pairs(down0, down1, pair0, pair1);
      }
      int32_t* column = tile + j * ld_a;
      // Up to 4 vectors of rows in registers per pass over the column's lists.
      for (int v = 0; v < nv; v += 4) {
        const int32_t* a = a_base + v * W;
        switch (std::min(4, nv - v)) {
          case 1: column_sums<1>(a, ld_a, up0, up1, down0, down1, column + v * W); break;
          case 2: column_sums<2>(a, ld_a, up0, up1, down0, down1, column + v * W); break;
          case 3: column_sums<3>(a, ld_a, up0, up1, down0, down1, column + v * W); break;
          default: column_sums<4>(a, ld_a, up0, up1, down0, down1, column + v * W); break;
        }
      }
    }
    add_tile(tile, ld_a, rows, cols, c, ldc, accumulate);
  }

  // NV vectors of one column's rows: the sum over its entries of s - sat16(s), stored at
  // out. A pair on side 0 only rises past 32767 (its weights >= 0), one on side 1 only
  // falls past -32768, so each side's term is one subtraction and one max or min.
  template <int NV>
  static void column_sums(const int32_t* a, int64_t ld_a, const PairEntry* up0, const PairEntry* up1,
                          const PairEntry* down0, const PairEntry* down1, int32_t* out) {
    const I zero = V::set1i(0), hi = V::set1i(32767), lo = V::set1i(-32768);
    I sum[NV];
    for (int v = 0; v < NV; ++v) sum[v] = zero;
    for (const PairEntry* e = up0; e != up1; ++e) {
      const I b = V::set1i(e->b01);
      const int32_t* rows = a + e->pair * ld_a;
      for (int v = 0; v < NV; ++v)
        sum[v] = V::addi(sum[v], V::maxi(V::subi(V::madd16(V::load_aligned(rows + v * W), b), hi), zero));
    }
    for (const PairEntry* e = down0; e != down1; ++e) {
      const I b = V::set1i(e->b01);
      const int32_t* rows = a + e->pair * ld_a;
      for (int v = 0; v < NV; ++v)
        sum[v] = V::addi(sum[v], V::mini(V::subi(V::madd16(V::load_aligned(rows + v * W), b), lo), zero));
    }
    for (int v = 0; v < NV; ++v) V::store_aligned(out + v * W, sum[v]);
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
        // The square's C rows all read before any is written (rows 4 KiB apart, N a
        // power of two, could alias earlier stores; not measured apart from the rest).
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
