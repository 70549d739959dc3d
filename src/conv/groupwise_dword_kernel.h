// The groupwise kernel for 2 and 4 channels per group (a group's inputs within one
// dword; ResNeXt's shape is 4) without byte shuffles, over a vector vocabulary S
// (simd_conv_*.h) with L int32 lanes.
//
// A block is 4 L channels: one plain load of a pixel's block gives lane j the dword of
// channels [4 j, 4 j + 4), which holds the inputs of every output channel 4 j + o,
// o = 0..3 (one group of 4, or two groups of 2). So the block keeps four accumulators,
// one per o, and each tap is one load and four dot products (S::Dot) with weights laid
// out for it; with 2 channels per group, accumulator o's weights are zero in the other
// group's half of the dword. Row sums (nonzero B zero points): a dot product with ones
// over the group's bytes, one per group in the dword. groupwise_kernel.h's layout
// instead spends a byte shuffle per dot product. After requantization, the in-lane packs
// give each 16-byte lane the bytes of the four accumulators one after another (4 o + i);
// one byte shuffle turns that into channel order (4 i + o).
//
// The weights and per-channel parameters are re-laid per call from the packed layout
// (quire/GroupwiseConv.h; a few KiB, about 1% of the call on ResNeXt's layer). P output
// pixels share each weight load.
//
// Without VNNI (S::Dot is SplitDot: two vpmaddwd on the bytes split into words) the
// weights are laid out already split, as int16 with the B zero point folded in
// (w - z: exact in int16 for any z in [-32640, 32640]), so a tap needs neither the
// weights' shifts nor the row-sum dot products: sum x (w - z) = acc - z * row_sum.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "common/intrinsics.h"
#include "conv/conv_kernels.h"
#include "conv/conv_requant.h"
#include "conv/groupwise_lane_params.h"
#include "conv/groupwise_transpose.h"
#include "conv/tap_walker.h"
#include "simd/split_dot.h"

namespace quire::conv {
namespace {

// Whether a dot step is SplitDot's (the paths without VNNI).
template <class D>
constexpr bool kSplitDot = false;
template <class V>
constexpr bool kSplitDot<detail::SplitDot<V>> = true;

// The weights and parameters of every block, in the kernel's order.
template <int L, int CG>
struct DwordLayout : LaneParams {      // parameters [block][o][lane j]
  static constexpr int kBlock = 4 * L;  // channels (bytes) per block
  std::vector<int8_t> w;                // [block][tap][o][lane j][input channel c]

  static int blocks(const DirectArgs& a) { return (a.g->in_channels + kBlock - 1) / kBlock; }

  // FOLD: [block][tap][o][even, odd][2 L words] instead of w, the words w - z.
  std::vector<int16_t> w16;

  DwordLayout(const DirectArgs& a, int taps, bool fold)
      : LaneParams(static_cast<size_t>(blocks(a)) * kBlock) {
    const int C = a.g->in_channels;
    const size_t size = static_cast<size_t>(blocks(a)) * taps * 4 * kBlock;
    if (fold) w16.assign(size, 0);
    else w.assign(size, 0);
    for (int oc = 0; oc < C; ++oc) {
      const int o = oc % 4, b = oc / 4 / L, j = oc / 4 % L;
      const size_t at = (static_cast<size_t>(b) * 4 + o) * L + j;
      place(at, a.q, oc);
      // Packed: vector oc / 16, lane oc % 16, the group's CG input channels per tap,
      // here at their place in the dword (the other group's half stays zero).
      const int8_t* src = a.W + (static_cast<int64_t>(oc / 16) * taps * 16 + oc % 16) * 4;
      const int first = o / CG * CG;
      const int z = a.q.b_zp != nullptr ? a.q.b_zp[oc] : 0;
      for (int t = 0; t < taps; ++t)
        for (int c = 0; c < CG; ++c) {
          const size_t vec = ((static_cast<size_t>(b) * taps + t) * 4 + o) * kBlock;
          const int k = first + c;  // byte of the dword: even bytes to the even words
          if (fold)
            w16[vec + (k % 2) * 2 * L + 2 * j + k / 2] = static_cast<int16_t>(src[t * 64 + c] - z);
          else
            w[vec + j * 4 + k] = src[t * 64 + c];
        }
    }
  }
};

// Every register array is indexed only by unrolled loops: an index known only at run
// time (such as the count of pixels left) puts the array in memory, and the accumulators
// then go through the stack on every tap (measured: 4 per group 87 -> 115 GOPS, 8 per
// group 170 -> 220, once fixed).
template <class S, int CG, int P, bool ROW, bool FBIAS, bool FOLD>
void groupwise_dword_run(const DirectArgs& a) {
  using I = typename S::I;
  constexpr int L = S::W, BLOCK = 4 * L, GROUPS = 4 / CG;  // groups per dword
  const detail::ConvGeometry& g = *a.g;
  const int C = g.in_channels, taps = g.kernel_prod();
  const int blocks = (C + BLOCK - 1) / BLOCK;
  const DwordLayout<L, CG> lay(a, taps, FOLD);

  // ones[h]: 1 in the bytes of group h of each dword.
  using W = decltype(S::Dot::weights(S::zeroi()));
  W ones[GROUPS];
  for (int h = 0; h < GROUPS; ++h) {
    alignas(64) int8_t bytes[S::kBytes];
    for (int i = 0; i < S::kBytes; ++i) bytes[i] = static_cast<int8_t>(i % 4 / CG == h);
    ones[h] = S::Dot::weights(S::load_raw(bytes));
  }
  const I order = GroupwiseTranspose<S>::control();

  // tp[p * taps + t]: tap t of pixel p, copied whole from the walker (gathering single
  // pointers from the vector it has just stored stalls on store forwarding).
  std::vector<const uint8_t*> tp(static_cast<size_t>(P) * taps);
  TapWalker walker(g, a.A, a.zp_row, a.pixel_begin, taps);
  for (int64_t px0 = a.pixel_begin; px0 < a.pixel_end; px0 += P) {
    const int np = static_cast<int>(std::min<int64_t>(P, a.pixel_end - px0));
    for (int p = 0; p < P; ++p) {
      // Pixels past the end repeat the last one; their results are not stored.
      const uint8_t* const* src = walker.taps();
      std::copy_n(src, taps, tp.data() + static_cast<size_t>(p) * taps);
      if (p + 1 < np) walker.next();
    }
    for (int b = 0; b < blocks; ++b) {
      const int base = b * BLOCK, n = std::min(BLOCK, C - base);
      const size_t wb = static_cast<size_t>(b) * taps * 4 * BLOCK;
      const auto weights = [&](int t, int o) {
        if constexpr (FOLD) {
          const int16_t* v = lay.w16.data() + wb + (t * 4 + o) * BLOCK;
          return typename S::Dot::Weights{S::load_raw(v), S::load_raw(v + 2 * L)};
        } else {
          return S::Dot::weights(S::load_raw(lay.w.data() + wb + (t * 4 + o) * BLOCK));
        }
      };
      const size_t prm = static_cast<size_t>(b) * 4 * L;
      I acc[P][4], rs[P][GROUPS];
#pragma GCC unroll 16
      for (int p = 0; p < P; ++p) {
        for (int o = 0; o < 4; ++o) acc[p][o] = S::load(lay.col_term.data() + prm + o * L);
        for (int h = 0; h < GROUPS; ++h) rs[p][h] = S::zeroi();
      }
      const uint8_t* const* tq = tp.data();
      for (int t = 0; t < taps; ++t, ++tq) {
        const auto w0 = weights(t, 0), w1 = weights(t, 1), w2 = weights(t, 2), w3 = weights(t, 3);
#pragma GCC unroll 16
        for (int p = 0; p < P; ++p) {
          const uint8_t* in = tq[p * taps] + base;
          const I x = n == BLOCK ? S::load_raw(in) : S::load_channels(in, n);
          acc[p][0] = S::Dot::dot(acc[p][0], x, w0);
          acc[p][1] = S::Dot::dot(acc[p][1], x, w1);
          acc[p][2] = S::Dot::dot(acc[p][2], x, w2);
          acc[p][3] = S::Dot::dot(acc[p][3], x, w3);
          if constexpr (ROW)
            for (int h = 0; h < GROUPS; ++h) rs[p][h] = S::Dot::dot(rs[p][h], x, ones[h]);
        }
      }
      typename S::F mult[4], fbias[4];
      I b_zp[4];
      for (int o = 0; o < 4; ++o) {
        mult[o] = S::loadf(lay.mult.data() + prm + o * L);
        fbias[o] = FBIAS ? S::loadf(lay.fbias.data() + prm + o * L) : S::zerof();
        b_zp[o] = ROW ? S::load(lay.b_zp.data() + prm + o * L) : S::zeroi();
      }
#pragma GCC unroll 16
      for (int p = 0; p < P; ++p) {
        if (p >= np) break;
        I r[4];
        for (int o = 0; o < 4; ++o) {
          I raw = acc[p][o];
          if constexpr (ROW) raw = S::subi(raw, S::mullo(b_zp[o], rs[p][o / CG]));
          r[o] = requantize<S, FBIAS>(raw, fbias[o], mult[o], a.q);
        }
        GroupwiseTranspose<S>::store(a.C + (px0 + p) * C + base, r, order, n);
      }
    }
    if (px0 + P < a.pixel_end) walker.next();
  }
}

template <class S, int CG, int P>
void groupwise_dword(const DirectArgs& a) {
  bool row = a.q.b_zp != nullptr;
  const bool fbias = a.q.fbias != nullptr;
  if constexpr (kSplitDot<typename S::Dot>) {
    bool fits = true;  // w - z in int16 for every channel's z
    for (int c = 0; c < a.g->out_channels && row; ++c)
      fits = fits && a.q.b_zp[c] >= INT16_MIN + 128 && a.q.b_zp[c] <= INT16_MAX - 127;
    if (fits) {
      if (fbias) groupwise_dword_run<S, CG, P, false, true, true>(a);
      else groupwise_dword_run<S, CG, P, false, false, true>(a);
      return;
    }
  }
  if (row && fbias) groupwise_dword_run<S, CG, P, true, true, false>(a);
  else if (row) groupwise_dword_run<S, CG, P, true, false, false>(a);
  else if (fbias) groupwise_dword_run<S, CG, P, false, true, false>(a);
  else groupwise_dword_run<S, CG, P, false, false, false>(a);
}

}  // namespace
}  // namespace quire::conv
