// The vector loops of the sparse x dense products, written once over a vocabulary V
// (sparse_dense_avx2.cpp for AVX2, sparse_dense_zmm.h for AVX-512 and AVX512-VNNI): the
// vector vocabulary (simd/vec_avx2.h, simd/vec_avx512.h) plus the product's own steps.
// Internal linkage: each ISA's translation unit compiles its own copy with its flags.
//
// Beyond the vocabulary V provides: Weights weights(int32_t four_s8) and
// I dot(I acc, I b, const Weights&), acc + the four-term u8 x s8 dot product in each
// int32 lane, exact (SplitDot below, or vpdpbusd); interleave(B, ldb, rows, cols, out)
// (below).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "quire/Bcsr.h"
#include "simd/split_dot.h"
#include "sparse/sparse_dense_kernels.h"

namespace quire::detail {
namespace {

// SplitDot<V> (simd/split_dot.h) is the exact dot step of the paths without VNNI.

// ---- int8: BCSR<int8_t, 1, 4> x uint8 ---------------------------------------------------
//
// A 1 x 4 block is four consecutive K values of one output row, one 32-bit word. The
// product's shape is therefore VNNI's: vpdpbusd multiplies four u8 by four s8 per int32
// lane and adds them exactly. So B is interleaved once per strip of kStrip = 4 * kLanes
// columns and column tile: the four B rows of block column t become, for each column j,
// the word (B[4t][j], B[4t+1][j], B[4t+2][j], B[4t+3][j]), columns in order over four
// vectors. Every output row then costs, per stored block, one broadcast of its word and
// four dot steps on the buffer's vectors, wherever the block lies. (FBGEMM uses the same
// layout with vpmaddubsw + vpmaddwd, whose int16 pair sums saturate on full-range data;
// V::dot is exact on every path.)

// acc[q] += the blocks [r0, r1) of one row applied to the strip's q-th vectors. Two sets
// of accumulators, blocks alternating, hide the dot step's latency.
template <class V, int NV>
void apply_blocks(const uint8_t* buf, const int* colBIdx, const int8_t* values, int r0, int r1,
                  typename V::I* acc) {
  using I = typename V::I;
  constexpr int64_t kBlockBytes = 16 * V::W;  // 4 vectors of 4 * kLanes bytes
  I a0[NV], a1[NV];
  for (int q = 0; q < NV; ++q) a0[q] = a1[q] = V::zeroi();
  const auto word = [&](int r) {
    int32_t w;
    std::memcpy(&w, values + 4 * int64_t{r}, 4);
    return V::weights(w);
  };
  int r = r0;
  for (; r + 1 < r1; r += 2) {
    const uint8_t* b0 = buf + colBIdx[r] * kBlockBytes;
    const uint8_t* b1 = buf + colBIdx[r + 1] * kBlockBytes;
    const auto w0 = word(r), w1 = word(r + 1);
    for (int q = 0; q < NV; ++q) {
      a0[q] = V::dot(a0[q], V::load_raw(b0 + q * 4 * V::W), w0);
      a1[q] = V::dot(a1[q], V::load_raw(b1 + q * 4 * V::W), w1);
    }
  }
  if (r < r1) {
    const uint8_t* b0 = buf + colBIdx[r] * kBlockBytes;
    const auto w0 = word(r);
    for (int q = 0; q < NV; ++q) a0[q] = V::dot(a0[q], V::load_raw(b0 + q * 4 * V::W), w0);
  }
  for (int q = 0; q < NV; ++q) acc[q] = V::addi(acc[q], V::addi(a0[q], a1[q]));
}

// RowQ's formula (requant_one in sparse_dense_kernels.h), V::W columns at a time: the
// rounded value clamped to [-256, 511] in int32 before the zero point, as FBGEMM's
// trRequantize does (so a lane beyond int32, which vcvtps2dq makes INT32_MIN, gives lo).
template <class V>
void requant_row(const int32_t* in, uint8_t* out, int n, const RowQ& q) {
  using I = typename V::I;
  using F = typename V::F;
  const I row_off = V::set1i(q.row_off), wzp = V::set1i(q.wzp);
  const F bias = V::set1f(q.bias), mult = V::set1f(q.mult);
  const I lo_pre = V::set1i(-256), hi_pre = V::set1i(511);
  const I zp = V::set1i(q.zp), lo = V::set1i(q.lo), hi = V::set1i(255);
  // Columns [j, j + W) read through load (whole or the first lanes).
  const auto lanes = [&](int j, auto load) {
    I x = V::subi(load(in + j), row_off);
    if (q.col_off != nullptr) x = V::subi(x, V::mullo(load(q.col_off + j), wzp));
    const F y = V::mul(V::add(V::cvtif(x), bias), mult);
    const I v = V::mini(V::maxi(V::cvtfi(y), lo_pre), hi_pre);
    return V::maxi(V::mini(V::addi(v, zp), hi), lo);
  };
  int j = 0;
  for (; j + V::W <= n; j += V::W)
    V::store(out + j, lanes(j, [](const int32_t* p) { return V::load(p); }));
  if (j < n) {
    const typename V::Lanes l(n - j);
    V::store(out + j, l, lanes(j, [&](const int32_t* p) { return V::load(p, l); }));
  }
}

template <class V>
void int8_mm(const Int8MMArgs& a) {
  using I = typename V::I;
  constexpr int kStrip = 4 * V::W;
  constexpr int kTile = BCSRMatrix<>::COLTILE;
  constexpr int64_t kBlockBytes = 16 * V::W;
  // One tile's interleaved strip: at most 1000 blocks x 4 * kStrip bytes (256 KiB on
  // zmm), reused across calls on this thread.
  static thread_local std::vector<uint8_t> buffer;
  const int tiles = (a.K + kTile - 1) / kTile;
  for (int j0 = 0; j0 < a.N; j0 += kStrip) {
    const int cols = std::min(kStrip, a.N - j0);
    const int nv = (cols + V::W - 1) / V::W;
    // K = 0: one pass with no blocks, so that C_i32 is still set and requantized.
    for (int t = 0; t < std::max(tiles, 1); ++t) {
      const int k0 = t * kTile;
      const int kcur = std::min(a.K - k0, kTile);
      const int kblocks = (kcur + 3) / 4;
      buffer.resize(static_cast<size_t>(kblocks) * kBlockBytes);
      for (int b = 0; b < kblocks; ++b)
        V::interleave(a.B + (k0 + 4 * int64_t{b}) * a.ldb + j0, a.ldb, std::min(4, kcur - 4 * b),
                      cols, buffer.data() + b * kBlockBytes);
      const bool last = t + 1 >= tiles;
      for (int i = a.m0; i < a.m1; ++i) {
        int32_t* c = a.C_i32 + i * a.ldc + j0;
        I acc[4];
        for (int q = 0; q < nv; ++q) {
          const typename V::Lanes l(cols - q * V::W);
          acc[q] = a.accum || t > 0 ? V::load(c + q * V::W, l) : V::zeroi();
        }
        const int r0 = tiles == 0 ? 0 : a.rowBPtr[int64_t{t} * a.M + i];
        const int r1 = tiles == 0 ? 0 : a.rowBPtr[int64_t{t} * a.M + i + 1];
        switch (nv) {
          case 1: apply_blocks<V, 1>(buffer.data(), a.colBIdx, a.values, r0, r1, acc); break;
          case 2: apply_blocks<V, 2>(buffer.data(), a.colBIdx, a.values, r0, r1, acc); break;
          case 3: apply_blocks<V, 3>(buffer.data(), a.colBIdx, a.values, r0, r1, acc); break;
          default: apply_blocks<V, 4>(buffer.data(), a.colBIdx, a.values, r0, r1, acc); break;
        }
        for (int q = 0; q < nv; ++q) V::store(c + q * V::W, typename V::Lanes(cols - q * V::W), acc[q]);
        if (last) {  // requant_row reads col_off relative to the strip's first column
          RowQ q = row_q(*a.r, a.flags, i);
          if (q.col_off != nullptr) q.col_off += j0;
          requant_row<V>(c, a.C_u8 + i * a.ldc + j0, cols, q);
        }
      }
    }
  }
}

// ---- fp32: CSR x dense -----------------------------------------------------------------
//
// Each output row is a strip of up to four vectors; per nonzero, one broadcast and one
// fma per vector, in CSR order (the order SparseDenseMM specifies).
template <class V, int NV, bool kFull>
void fp32_row(const Fp32MMArgs& a, int i, int j0, int cols) {
  using F = typename V::F;
  F acc[NV];
  float* c = a.C + i * a.ldc + j0;
  // Vector q of the strip: whole, but for the last when !kFull (decided per strip, so
  // that the loop over nonzeros has no branch).
  const typename V::Lanes last(cols - (NV - 1) * V::W);
  const auto load = [&](const float* p, int q) {
    return kFull || q + 1 < NV ? V::loadf(p) : V::load(p, last);
  };
  for (int q = 0; q < NV; ++q) acc[q] = a.accum ? load(c + q * V::W, q) : V::zerof();
  for (int p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
    const F v = V::set1f(a.values[p]);
    const float* b = a.B + a.col_idx[p] * a.ldb + j0;
    for (int q = 0; q < NV; ++q) acc[q] = V::fmadd(v, load(b + q * V::W, q), acc[q]);
  }
  for (int q = 0; q < NV; ++q) {
    if (kFull || q + 1 < NV)
      V::storef(c + q * V::W, acc[q]);
    else
      V::store(c + q * V::W, last, acc[q]);
  }
}

template <class V>
void fp32_mm(const Fp32MMArgs& a) {
  constexpr int kStrip = 4 * V::W;
  for (int j0 = 0; j0 < a.N; j0 += kStrip) {
    const int cols = std::min(kStrip, a.N - j0);
    const int nv = (cols + V::W - 1) / V::W;
    for (int i = 0; i < a.M; ++i) {
      switch (nv) {
        case 1: fp32_row<V, 1, false>(a, i, j0, cols); break;
        case 2: fp32_row<V, 2, false>(a, i, j0, cols); break;
        case 3: fp32_row<V, 3, false>(a, i, j0, cols); break;
        default:
          if (cols == kStrip)
            fp32_row<V, 4, true>(a, i, j0, cols);
          else
            fp32_row<V, 4, false>(a, i, j0, cols);
          break;
      }
    }
  }
}

}  // namespace
}  // namespace quire::detail
