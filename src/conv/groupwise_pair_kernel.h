// The groupwise kernel for 8 channels per group without byte shuffles, on AVX-512 (S:
// simd_conv_avx512.h, 16 int32 lanes).
//
// A block is 64 channels, 8 groups: one plain load of a pixel's block gives lane j the
// dword of channels 4 j .. 4 j + 3, half h = j % 2 of group j / 2's inputs. Eight
// accumulators, one per output channel o of a group, add per lane the dot product of
// that half with the half's weights (S::Dot); the group's sum is then lanes 2 g + 2 g+1,
// one pair add (a dword swap and an add). A ninth dot product with ones gives each
// dword's row sum, paired the same way. Blending the odd lanes of accumulator 2 k + 1
// into accumulator 2 k leaves four vectors r[k] (lane 2 g + e: channel 8 g + 2 k + e),
// requantized and stored by groupwise_transpose.h. groupwise_kernel.h's layout instead
// spends two byte shuffles per 16 output channels and tap.
//
// The weights and per-channel parameters are re-laid per call from the packed layout
// (quire/GroupwiseConv.h). P output pixels share each weight load.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/intrinsics.h"
#include "conv/conv_kernels.h"
#include "conv/conv_requant.h"
#include "conv/groupwise_lane_params.h"
#include "conv/groupwise_transpose.h"
#include "conv/tap_walker.h"

namespace quire::conv {
namespace {

// The weights ([block][tap][o][lane j][4 bytes]) and the parameters of each block in
// r[k]'s lane order ([block][k][lane 2 g + e]).
struct PairLayout : LaneParams {
  static constexpr int kBlock = 64;
  std::vector<int8_t> w;

  static int blocks(const DirectArgs& a) { return (a.g->in_channels + kBlock - 1) / kBlock; }

  PairLayout(const DirectArgs& a, int taps) : LaneParams(static_cast<size_t>(blocks(a)) * kBlock) {
    const int C = a.g->in_channels;
    w.assign(static_cast<size_t>(blocks(a)) * taps * 8 * kBlock, 0);
    for (int oc = 0; oc < C; ++oc) {
      const int b = oc / kBlock, g = oc % kBlock / 8, o = oc % 8;
      const size_t at = (static_cast<size_t>(b) * 4 + o / 2) * 16 + 2 * g + o % 2;
      place(at, a.q, oc);
      // Packed: vector oc / 16, lane oc % 16, two dwords d of input channels per tap.
      const int8_t* src = a.W + (static_cast<int64_t>(oc / 16) * taps * 2 * 16 + oc % 16) * 4;
      for (int t = 0; t < taps; ++t)
        for (int d = 0; d < 2; ++d)
          for (int c = 0; c < 4; ++c)
            w[((static_cast<size_t>(b) * taps + t) * 8 + o) * kBlock + (2 * g + d) * 4 + c] =
                src[(t * 2 + d) * 64 + c];
    }
  }
};

// Lanes 2 g and 2 g + 1 both get their sum.
inline __m512i add_pairs(__m512i v) {
  return _mm512_add_epi32(v, _mm512_shuffle_epi32(v, static_cast<_MM_PERM_ENUM>(0xB1)));
}

// Every register array is indexed only by unrolled loops: an index known only at run
// time (such as the count of pixels left) puts the array in memory, and the accumulators
// then go through the stack on every tap (measured: 4 per group 87 -> 115 GOPS, 8 per
// group 170 -> 220, once fixed).
template <class S, int P, bool ROW, bool FBIAS>
void groupwise_pair_run(const DirectArgs& a) {
  using I = typename S::I;
  static_assert(S::W == 16, "AVX-512 only");
  constexpr int BLOCK = PairLayout::kBlock;
  const detail::ConvGeometry& g = *a.g;
  const int C = g.in_channels, taps = g.kernel_prod();
  const int blocks = (C + BLOCK - 1) / BLOCK;
  const PairLayout lay(a, taps);

  alignas(64) int8_t ones_bytes[S::kBytes];
  std::fill_n(ones_bytes, S::kBytes, int8_t{1});
  const auto ones = S::Dot::weights(S::load_raw(ones_bytes));
  const I order = GroupwiseTranspose<S>::control(8);

  // tp[p * taps + t]: tap t of pixel p (see groupwise_dword_kernel.h).
  std::vector<const uint8_t*> tp(static_cast<size_t>(P) * taps);
  TapWalker walker(g, a.A, a.zp_row, a.pixel_begin, taps);
  for (int64_t px0 = a.pixel_begin; px0 < a.pixel_end; px0 += P) {
    const int np = static_cast<int>(std::min<int64_t>(P, a.pixel_end - px0));
    for (int p = 0; p < P; ++p) {
      // Pixels past the end repeat the last one; their results are not stored.
      std::copy_n(walker.taps(), taps, tp.data() + static_cast<size_t>(p) * taps);
      if (p + 1 < np) walker.next();
    }
    for (int b = 0; b < blocks; ++b) {
      const int base = b * BLOCK, n = std::min(BLOCK, C - base);
      const int8_t* w = lay.w.data() + static_cast<size_t>(b) * taps * 8 * BLOCK;
      const size_t prm = static_cast<size_t>(b) * BLOCK;
      I acc[P][8], rs[P];
#pragma GCC unroll 16
      for (int p = 0; p < P; ++p) {
#pragma GCC unroll 8
        for (int o = 0; o < 8; ++o) acc[p][o] = S::zeroi();
        rs[p] = S::zeroi();
      }
      const uint8_t* const* tq = tp.data();
      for (int t = 0; t < taps; ++t, ++tq) {
        decltype(S::Dot::weights(S::zeroi())) wo[8];
#pragma GCC unroll 8
        for (int o = 0; o < 8; ++o) wo[o] = S::Dot::weights(S::load_raw(w + (t * 8 + o) * BLOCK));
#pragma GCC unroll 16
        for (int p = 0; p < P; ++p) {
          const uint8_t* in = tq[p * taps] + base;
          const I x = n == BLOCK ? S::load_raw(in) : S::load_channels(in, n);
#pragma GCC unroll 8
          for (int o = 0; o < 8; ++o) acc[p][o] = S::Dot::dot(acc[p][o], x, wo[o]);
          if constexpr (ROW) rs[p] = S::Dot::dot(rs[p], x, ones);
        }
      }
#pragma GCC unroll 16
      for (int p = 0; p < P; ++p) {
        if (p >= np) break;
        const I row_sum = ROW ? add_pairs(rs[p]) : S::zeroi();
        I r[4];
#pragma GCC unroll 4
        for (int k = 0; k < 4; ++k) {
          const size_t at = prm + k * 16;
          I raw = _mm512_mask_blend_epi32(0xAAAA, add_pairs(acc[p][2 * k]), add_pairs(acc[p][2 * k + 1]));
          raw = S::addi(raw, S::load(lay.col_term.data() + at));
          if constexpr (ROW) raw = S::subi(raw, S::mullo(S::load(lay.b_zp.data() + at), row_sum));
          const typename S::F fbias = FBIAS ? S::loadf(lay.fbias.data() + at) : S::zerof();
          r[k] = requantize<S, FBIAS>(raw, fbias, S::loadf(lay.mult.data() + at), a.q);
        }
        GroupwiseTranspose<S>::store(a.C + (px0 + p) * C + base, r, order, n);
      }
    }
    if (px0 + P < a.pixel_end) walker.next();
  }
}

template <class S, int P>
void groupwise_pair(const DirectArgs& a) {
  const bool row = a.q.b_zp != nullptr, fbias = a.q.fbias != nullptr;
  if (row && fbias) groupwise_pair_run<S, P, true, true>(a);
  else if (row) groupwise_pair_run<S, P, true, false>(a);
  else if (fbias) groupwise_pair_run<S, P, false, true>(a);
  else groupwise_pair_run<S, P, false, false>(a);
}

}  // namespace
}  // namespace quire::conv
