// The vector loops of the sparse x dense products, written once over a vocabulary V
// (sparse_dense_ymm.h for AVX2, sparse_dense_zmm.h for AVX-512 and AVX512-VNNI).
// Internal linkage: each ISA's translation unit compiles its own copy with its flags.
//
// V provides: I (int32 vector of kLanes lanes), F (float vector), kLanes; zero();
// load_i32 / store_i32 / load_f32 / store_f32 of the first n <= kLanes lanes (the rest
// read as 0, never touched in memory); load_b (one vector of the interleave buffer);
// Weights weights(int32_t four_s8) and I dot(I acc, I b, const Weights&), acc + the
// four-term u8 x s8 dot product in each int32 lane, exact; interleave(B, ldb, rows,
// cols, out) (below); requant_row (SparseDenseKernels::requant_row); F set1, fmadd.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "quire/Bcsr.h"
#include "sparse/sparse_dense_kernels.h"

namespace quire::detail {
namespace {

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
  constexpr int64_t kBlockBytes = 16 * V::kLanes;  // 4 vectors of 4 * kLanes bytes
  I a0[NV], a1[NV];
  for (int q = 0; q < NV; ++q) a0[q] = a1[q] = V::zero();
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
      a0[q] = V::dot(a0[q], V::load_b(b0 + q * 4 * V::kLanes), w0);
      a1[q] = V::dot(a1[q], V::load_b(b1 + q * 4 * V::kLanes), w1);
    }
  }
  if (r < r1) {
    const uint8_t* b0 = buf + colBIdx[r] * kBlockBytes;
    const auto w0 = word(r);
    for (int q = 0; q < NV; ++q) a0[q] = V::dot(a0[q], V::load_b(b0 + q * 4 * V::kLanes), w0);
  }
  for (int q = 0; q < NV; ++q) acc[q] = V::add(acc[q], V::add(a0[q], a1[q]));
}

template <class V>
void int8_mm(const Int8MMArgs& a) {
  using I = typename V::I;
  constexpr int kStrip = 4 * V::kLanes;
  constexpr int kTile = BCSRMatrix<>::COLTILE;
  constexpr int64_t kBlockBytes = 16 * V::kLanes;
  // One tile's interleaved strip: at most 1000 blocks x 4 * kStrip bytes (256 KiB on
  // zmm), reused across calls on this thread.
  static thread_local std::vector<uint8_t> buffer;
  const int tiles = (a.K + kTile - 1) / kTile;
  for (int j0 = 0; j0 < a.N; j0 += kStrip) {
    const int cols = std::min(kStrip, a.N - j0);
    const int nv = (cols + V::kLanes - 1) / V::kLanes;
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
          const int n = std::min(V::kLanes, cols - q * V::kLanes);
          acc[q] = a.accum || t > 0 ? V::load_i32(c + q * V::kLanes, n) : V::zero();
        }
        const int r0 = tiles == 0 ? 0 : a.rowBPtr[int64_t{t} * a.M + i];
        const int r1 = tiles == 0 ? 0 : a.rowBPtr[int64_t{t} * a.M + i + 1];
        switch (nv) {
          case 1: apply_blocks<V, 1>(buffer.data(), a.colBIdx, a.values, r0, r1, acc); break;
          case 2: apply_blocks<V, 2>(buffer.data(), a.colBIdx, a.values, r0, r1, acc); break;
          case 3: apply_blocks<V, 3>(buffer.data(), a.colBIdx, a.values, r0, r1, acc); break;
          default: apply_blocks<V, 4>(buffer.data(), a.colBIdx, a.values, r0, r1, acc); break;
        }
        for (int q = 0; q < nv; ++q)
          V::store_i32(c + q * V::kLanes, acc[q], std::min(V::kLanes, cols - q * V::kLanes));
        if (last) V::requant_row(c, a.C_u8 + i * a.ldc + j0, cols, row_q(*a.r, a.flags, i));
      }
    }
  }
}

// ---- fp32: CSR x dense -----------------------------------------------------------------
//
// Each output row is a strip of up to four vectors; per nonzero, one broadcast and one
// fma per vector, in CSR order (the order SparseDenseMM specifies).
template <class V, int NV>
void fp32_row(const Fp32MMArgs& a, int i, int j0, int cols) {
  using F = typename V::F;
  F acc[NV];
  float* c = a.C + i * a.ldc + j0;
  const auto lanes = [&](int q) { return std::min(V::kLanes, cols - q * V::kLanes); };
  for (int q = 0; q < NV; ++q) acc[q] = a.accum ? V::load_f32(c + q * V::kLanes, lanes(q)) : V::set1(0.0f);
  for (int p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
    const F v = V::set1(a.values[p]);
    const float* b = a.B + a.col_idx[p] * a.ldb + j0;
    for (int q = 0; q < NV; ++q) acc[q] = V::fmadd(v, V::load_f32(b + q * V::kLanes, lanes(q)), acc[q]);
  }
  for (int q = 0; q < NV; ++q) V::store_f32(c + q * V::kLanes, acc[q], lanes(q));
}

template <class V>
void fp32_mm(const Fp32MMArgs& a) {
  constexpr int kStrip = 4 * V::kLanes;
  for (int j0 = 0; j0 < a.N; j0 += kStrip) {
    const int cols = std::min(kStrip, a.N - j0);
    const int nv = (cols + V::kLanes - 1) / V::kLanes;
    for (int i = 0; i < a.M; ++i) {
      switch (nv) {
        case 1: fp32_row<V, 1>(a, i, j0, cols); break;
        case 2: fp32_row<V, 2>(a, i, j0, cols); break;
        case 3: fp32_row<V, 3>(a, i, j0, cols); break;
        default: fp32_row<V, 4>(a, i, j0, cols); break;
      }
    }
  }
}

}  // namespace
}  // namespace quire::detail
