// The depthwise kernel, written once over a vector vocabulary S (simd_conv_*.h: the
// vocabulary of src/simd plus the conv's own loads and tap interleave).
//
// Per vector of channels: for each quad of taps, load the four taps' channel vectors,
// interleave them so that each 32-bit lane holds one channel's four taps, and add their
// dot product with the packed weights (S::Dot: one vpdpbusd per vector on VNNI) into
// four accumulators, which start at the channels' col_term. With nonzero B zero points a
// second dot product, with b_zp[c] in every byte of channel c's lane, accumulates
// b_zp * row sum, subtracted at the end (no multiply). Then the accumulators are
// requantized in registers (conv_requant.h) and packed to bytes, which restores channel
// order. Taps past
// the kernel's last read a row of zeros (against zero weights).
//
// Two layouts of pixels in a vector: Wide, one pixel per vector (kBytes channels at a
// time), and Paired (AVX-512 with at most 32 channels), two pixels per zmm, so that a
// 32-channel layer (MobileNet-v2's first) or a 32-channel remainder fills every lane.
//
// Channels are output channels. With a channel multiplier M = OC / IC of 2, output
// channel c reads input channel c / 2: a tap's vector is the input bytes repeated twice
// (load_dup2), and everything after the load is the M = 1 kernel's.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "conv/conv_kernels.h"
#include "conv/conv_requant.h"
#include "conv/tap_walker.h"

namespace quire::conv {
namespace {

// Four taps' channel vectors t0..t3 into vectors whose 32-bit lane (L, d) of x[j] holds
// the four taps of channel 16 L + 4 j + d (in-lane unpacks; S::store_interleaved's packs
// undo them).
template <class S>
void interleave(const typename S::I t[4], typename S::I x[4]) {
  using I = typename S::I;
  const I u0 = S::unpacklo8(t[0], t[1]), u1 = S::unpackhi8(t[0], t[1]);
  const I v0 = S::unpacklo8(t[2], t[3]), v1 = S::unpackhi8(t[2], t[3]);
  x[0] = S::unpacklo16(u0, v0);
  x[1] = S::unpackhi16(u0, v0);
  x[2] = S::unpacklo16(u1, v1);
  x[3] = S::unpackhi16(u1, v1);
}

template <class S>
struct Wide {
  using I = typename S::I;
  using F = typename S::F;
  static constexpr int kPixels = 1;  // pixels per vector
  static constexpr int kChannels = S::kBytes;
  template <int M>
  static I load(const uint8_t* const* px, int c0, int n) {
    if constexpr (M == 1) return S::load_channels(px[0] + c0, n);
    else return S::load_dup2(px[0] + c0 / 2, n);
  }
  static I load_w(const int8_t* p) { return S::load_raw(p); }
  static I load_i32(const int32_t* p) { return S::load(p); }
  static F loadf(const float* p) { return S::loadf(p); }
  static void store(uint8_t* const* out, const I r[4], int n) {
    S::store_interleaved(out[0], r, n);
  }
};

template <class S>
struct Paired {
  using I = typename S::I;
  using F = typename S::F;
  static constexpr int kPixels = 2;
  static constexpr int kChannels = 32;
  template <int M>
  static I load(const uint8_t* const* px, int c0, int n) {
    if constexpr (M == 1) return S::load_pair(px[0] + c0, px[1] + c0, n);
    else return S::load_pair_dup2(px[0] + c0 / 2, px[1] + c0 / 2, n);
  }
  static I load_w(const int8_t* p) { return S::load_w_dup(p); }
  static I load_i32(const int32_t* p) { return S::load_i32_dup(p); }
  static F loadf(const float* p) { return S::loadf_dup(p); }
  static void store(uint8_t* const* out, const I r[4], int n) {
    S::store_interleaved_pair(out[0], out[1], r, n);
  }
};

// One output channel range [c0, c0 + n) of V vectors of pixels: taps[t] lists the
// pixels' tap t pointers and out their output rows, L::kPixels per vector. nq quads of
// taps (QUADS when it is not 0: the common kernels get their loop unrolled).
template <class S, class L, int V, int QUADS, int M, bool ROW, bool FBIAS>
void depthwise_block(const DirectArgs& a, const uint8_t* const* const* taps, uint8_t* const* out,
                     int c0, int n, int nq) {
  using I = typename S::I;
  if constexpr (QUADS != 0) nq = QUADS;
  const int block = (c0 / 64) * 256 + c0 % 64;  // byte offset of the block's chunk
  const int8_t* w = a.W + (c0 / 64) * (nq * 256) + c0 % 64;
  // Lane-order parameters of accumulator j start at 64 b + 16 j + (c0 % 64) / 4.
  const int pq = (c0 / 64) * 64 + (c0 % 64) / 4;
  I acc[V][4], rs[V][4];
  for (int j = 0; j < 4; ++j) {
    const I col = L::load_i32(a.q.col_term + pq + 16 * j);
    for (int v = 0; v < V; ++v) {
      acc[v][j] = col;
      rs[v][j] = S::zeroi();
    }
  }
  for (int q = 0; q < nq; ++q) {
    I x[V][4];
    for (int v = 0; v < V; ++v) {
      I t[4];
      for (int i = 0; i < 4; ++i) t[i] = L::template load<M>(taps[4 * q + i] + v * L::kPixels, c0, n);
      interleave<S>(t, x[v]);
    }
    for (int j = 0; j < 4; ++j) {
      const auto wj = S::Dot::weights(L::load_w(w + q * 256 + j * 64));
      for (int v = 0; v < V; ++v) acc[v][j] = S::Dot::dot(acc[v][j], x[v][j], wj);
      if constexpr (ROW) {
        const auto zj = S::Dot::weights(L::load_w(a.row_w + block + j * 64));
        for (int v = 0; v < V; ++v) rs[v][j] = S::Dot::dot(rs[v][j], x[v][j], zj);
      }
    }
  }
  I r[V][4];
  for (int j = 0; j < 4; ++j) {
    // The lanes' parameters, loaded once for the V vectors.
    const typename S::F mult = L::loadf(a.q.mult + pq + 16 * j);
    const typename S::F fbias = FBIAS ? L::loadf(a.q.fbias + pq + 16 * j) : S::zerof();
    for (int v = 0; v < V; ++v) {
      const I raw = ROW ? S::subi(acc[v][j], rs[v][j]) : acc[v][j];
      r[v][j] = requantize<S, FBIAS>(raw, fbias, mult, a.q);
    }
  }
  for (int v = 0; v < V; ++v) {
    uint8_t* o[L::kPixels];
    for (int i = 0; i < L::kPixels; ++i) o[i] = out[v * L::kPixels + i] + c0;
    L::store(o, r[v], n);
  }
}

// Two pixels per step (Paired: four), in two vectors that share weight and parameter
// loads; on AVX-512 a last channel range of at most 32 runs both pixels in one Paired
// vector instead of two half-empty ones.
template <class S, class L, int QUADS, int M, bool ROW, bool FBIAS>
void depthwise_run(const DirectArgs& a) {
  constexpr int PX = 2 * L::kPixels;
  const detail::ConvGeometry& g = *a.g;
  const int C = g.out_channels;
  const int nq = QUADS != 0 ? QUADS : (g.kernel_prod() + 3) / 4, slots = 4 * nq;
  TapWalker walker(g, a.A, a.zp_row, a.pixel_begin, slots, a.zero_row);
  // The tap pointers, [tap][pixel], and tap t's pixels: on the stack for the unrolled
  // kernels (a constant slot count keeps the per-pixel copy unrolled: the heap form cost
  // the 3x3 layers 30%), on the heap for the others.
  constexpr int kStackSlots = QUADS != 0 ? 4 * QUADS : 1;
  const uint8_t* stack_taps[kStackSlots * PX];
  const uint8_t* const* stack_rows[kStackSlots];
  std::vector<const uint8_t*> heap_taps(QUADS != 0 ? 0 : static_cast<size_t>(slots) * PX);
  std::vector<const uint8_t* const*> heap_rows(QUADS != 0 ? 0 : static_cast<size_t>(slots));
  const uint8_t** taps = QUADS != 0 ? stack_taps : heap_taps.data();
  const uint8_t* const** tap_rows = QUADS != 0 ? stack_rows : heap_rows.data();
  for (int t = 0; t < slots; ++t) tap_rows[t] = taps + t * PX;
  uint8_t* out[PX];
  for (int64_t px0 = a.pixel_begin; px0 < a.pixel_end; px0 += PX) {
    const int np = static_cast<int>(std::min<int64_t>(PX, a.pixel_end - px0));
    for (int p = 0; p < PX; ++p) {
      // Pixels past the end repeat the last one, writing its (equal) result again.
      for (int t = 0; t < slots; ++t) taps[t * PX + p] = walker.taps()[t];
      out[p] = a.C + (px0 + std::min(p, np - 1)) * C;
      if (p + 1 < np) walker.next();
    }
    for (int c0 = 0; c0 < C; c0 += L::kChannels) {
      const int n = std::min(L::kChannels, C - c0);
      if constexpr (S::kPairs && L::kPixels == 1) {
        if (n <= 32) {
          depthwise_block<S, Paired<S>, 1, QUADS, M, ROW, FBIAS>(a, tap_rows, out, c0, n, nq);
          continue;
        }
      }
      depthwise_block<S, L, 2, QUADS, M, ROW, FBIAS>(a, tap_rows, out, c0, n, nq);
    }
    if (px0 + PX < a.pixel_end) walker.next();
  }
}

template <class S, class L, int QUADS, int M>
void depthwise_flags(const DirectArgs& a) {
  const bool row = a.row_w != nullptr, fbias = a.q.fbias != nullptr;
  if (row && fbias) depthwise_run<S, L, QUADS, M, true, true>(a);
  else if (row) depthwise_run<S, L, QUADS, M, true, false>(a);
  else if (fbias) depthwise_run<S, L, QUADS, M, false, true>(a);
  else depthwise_run<S, L, QUADS, M, false, false>(a);
}

// 3x3 kernels (9 taps) take 3 quads, 5x5 (25) and 3x3x3 (27) take 7, unrolled; other
// kernels (7x7, the larger 3D ones) and channel multiplier 2 run the quad loop as is.
template <class S, class L>
void depthwise_layout(const DirectArgs& a) {
  const int nq = (a.g->kernel_prod() + 3) / 4;
  if (a.g->out_channels != a.g->in_channels) depthwise_flags<S, L, 0, 2>(a);
  else if (nq == 3) depthwise_flags<S, L, 3, 1>(a);
  else if (nq == 7) depthwise_flags<S, L, 7, 1>(a);
  else depthwise_flags<S, L, 0, 1>(a);
}

template <class S>
void depthwise_kernel(const DirectArgs& a) {
  if constexpr (S::kPairs) {
    if (a.g->out_channels <= 32) {
      depthwise_layout<S, Paired<S>>(a);
      return;
    }
  }
  depthwise_layout<S, Wide<S>>(a);
}

}  // namespace
}  // namespace quire::conv
