// The depthwise tap-pair kernel over a vector vocabulary S (simd_conv_avx2.h): the
// layers of the row kernels (depthwise_rows.h), any stride, exact for any data, on the
// ymm paths (docs/convolution.md, "The tap-pair kernel").
//
// Per output pixel and 16 channels: the nine taps' bytes widened to words (vpmovzxbw),
// taps paired as kTapPairs says by in-lane word unpacks (vpunpcklwd / vpunpckhwd), each
// pair weighed by one vpmaddwd with the int16 weights (w - z) of its two taps: z is
// folded into the weights (exact for z in [-32640, 32640]), so no zero-point term and no
// row sums; every product and pair sum fits int32 (255 x 32768 x 2). That is 9 loads,
// 10 unpacks, 10 vpmaddwd and 10 vpaddd per 16 x 9 products, reading the activations in
// place: nothing is built per row, where the row kernels' planes (four times the input,
// twice that again as words) outgrow L1 and their builders cost as much as the dot
// products. The pack after requantization undoes the unpacks' channel order.
// Internal linkage: included by the per-ISA kernels' files.
#pragma once

#include <cstdint>
#include <vector>

#include "conv/depthwise_layout.h"
#include "conv/depthwise_rows.h"
#include "conv/depthwise_rows_simd.h"
#include "conv/direct_params.h"
#include "quire/Depthwise.h"

namespace quire::conv {
namespace {

// One 16-channel group's parameters in the unpacks' lane order, half h: channels
// 4 h .. 4 h + 3 in lane 0 and 8 + 4 h .. in lane 1.
template <class S>
struct TapPairGroup {
  typename S::I w[kTapPairCount][2];  // (w - z) words of the pair's two taps
  typename S::I col[2];
  typename S::F mult[2], fbias[2];
  // Left uninitialized: tap_pair_groups writes every member (a value-initialized vector
  // copied 512 bytes a group).
  TapPairGroup() {}
};

template <class S>
std::vector<TapPairGroup<S>> tap_pair_groups(const ChannelParams& n, const int8_t* pairs, int C) {
  using I = typename S::I;
  std::vector<TapPairGroup<S>> groups(static_cast<size_t>(C / 16));
  const I word = S::set1i(0xffff);
  for (int q = 0; q < C / 16; ++q) {
    TapPairGroup<S>& t = groups[static_cast<size_t>(q)];
    for (int h = 0; h < 2; ++h) {
      const int c = 16 * q + 4 * h;
      const auto lanes = [&](const auto* v) { return S::load_lanes(v + c, v + c + 8); };
      t.col[h] = lanes(n.col_term.data());
      t.mult[h] = S::castf(lanes(n.mult.data()));
      t.fbias[h] = n.fbias.empty() ? S::zerof() : S::castf(lanes(n.fbias.data()));
      const I z = S::andi(lanes(n.b_zp.data()), word);  // (z, 0) words
      const I zz = S::ori(z, S::template slli32<16>(z));  // (z, z)
      for (int p = 0; p < kTapPairCount; ++p)
        t.w[p][h] = S::sub16(S::load_raw(pairs + depthwise_pair_index(q, p, h)),
                             kTapPairs[p][1] < 0 ? z : zz);
    }
  }
  return groups;
}

// A group's 16 requantized words in channel order (requantize_to_int). Inlined:
// a call (GCC's choice for three call sites) costs a small layer a third of its time.
template <class S, bool FBIAS>
__attribute__((always_inline)) inline typename S::I tap_pair_group(const uint8_t* const src[9], int64_t c, const TapPairGroup<S>& t,
                             const RowRequant<S>& rq) {
  using I = typename S::I;
  I x[9];
#pragma GCC unroll 9
  for (int k = 0; k < 9; ++k) x[k] = S::load_words(src[k] + c);
  I acc[2] = {t.col[0], t.col[1]};
#pragma GCC unroll 5
  for (int p = 0; p < kTapPairCount; ++p) {
    const I a = x[kTapPairs[p][0]];
    const I b = kTapPairs[p][1] < 0 ? S::zeroi() : x[kTapPairs[p][1]];
    acc[0] = S::addi(acc[0], S::madd16(S::unpacklo16(a, b), t.w[p][0]));
    acc[1] = S::addi(acc[1], S::madd16(S::unpackhi16(a, b), t.w[p][1]));
  }
  return S::pack_dwords_zp(requantize_to_int<S, FBIAS>(acc[0], t.fbias[0], t.mult[0], rq),
                           requantize_to_int<S, FBIAS>(acc[1], t.fbias[1], t.mult[1], rq),
                           rq.zp16);
}

// This share's output rows. Taps outside the input (the begin pad 1, and whatever the
// stride leaves past the end) read zp, a row of the activation zero point.
template <class S, bool FBIAS>
void tap_pairs_rows(const DepthwiseRowsArgs& a, const std::vector<TapPairGroup<S>>& groups,
                    const RowRequant<S>& rq, const uint8_t* zp) {
  using I = typename S::I;
  const detail::ConvGeometry& g = *a.g;
  const int C = g.out_channels, H = g.in[1], W = g.in[2], OH = g.out[1], OW = g.out[2];
  const int stride = g.stride[1], nq = C / 16;
  const int64_t row_bytes = int64_t{W} * C;
  for (int64_t row = a.row_begin; row < a.row_end; ++row) {
    const int64_t image = row / OH;
    const int oh = static_cast<int>(row % OH);
    const uint8_t* in_row[3];
    for (int r = 0; r < 3; ++r) {
      const int ih = oh * stride - 1 + r;
      in_row[r] = ih >= 0 && ih < H ? a.A + (image * H + ih) * row_bytes : nullptr;
    }
    uint8_t* out = a.C + row * OW * C;
    for (int ow = 0; ow < OW; ++ow, out += C) {
      const uint8_t* src[9];
#pragma GCC unroll 3
      for (int kw = 0; kw < 3; ++kw) {
        const int iw = ow * stride - 1 + kw;
        const bool inside = iw >= 0 && iw < W;
        for (int r = 0; r < 3; ++r)
          src[3 * r + kw] = inside && in_row[r] != nullptr ? in_row[r] + int64_t{iw} * C : zp;
      }
      int q = 0;
      for (; q + 2 <= nq; q += 2) {
        const I lo = tap_pair_group<S, FBIAS>(src, 16 * q, groups[q], rq);
        const I hi = tap_pair_group<S, FBIAS>(src, 16 * q + 16, groups[q + 1], rq);
        I b = S::pack_words_in_order(lo, hi);
        if (rq.relu) b = S::maxu8(b, rq.lo8);
        S::store_raw(out + 16 * q, b);
      }
      if (q < nq) {
        const I w = tap_pair_group<S, FBIAS>(src, 16 * q, groups[q], rq);
        I b = S::pack_words_in_order(w, w);
        if (rq.relu) b = S::maxu8(b, rq.lo8);
        S::store_low16(out + 16 * q, b);
      }
    }
  }
}

template <class S>
void tap_pairs_run(const DepthwiseRowsArgs& a, const ChannelParams& n) {
  const int C = a.g->out_channels;
  const int8_t* pairs = a.W + PackedDepthWiseConvMatrix::packedBytes(C, 9) +
                        depthwise_column_bytes(C, 9);
  const std::vector<TapPairGroup<S>> groups = tap_pair_groups<S>(n, pairs, C);
  const RowRequant<S> rq(n.requant);
  const std::vector<uint8_t> zp(static_cast<size_t>(C), static_cast<uint8_t>(a.r->a_zero_point));
  if (n.requant.fbias != nullptr) tap_pairs_rows<S, true>(a, groups, rq, zp.data());
  else tap_pairs_rows<S, false>(a, groups, rq, zp.data());
}

}  // namespace
}  // namespace quire::conv
