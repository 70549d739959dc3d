// The groupwise kernel for 8 and 16 channels per group (IC/G == OC/G = CG), written once
// over a vector vocabulary S (simd_conv_*.h: the vocabulary of src/simd plus the conv's
// own loads). 2 and 4 take groupwise_dword_kernel.h, and 8 on AVX512-VNNI
// groupwise_pair_kernel.h, without shuffles.
//
// A vector of L int32 lanes holds output channels [v L, v L + L): L / CG whole groups
// (or, with L < CG, part of one). Their inputs are the SPAN = max(L, CG) bytes of the
// same channel range, which one 16-byte load per tap brings in, repeated in every
// 128-bit lane. For each dword d of a group's CG input channels, one byte shuffle hands
// lane l the dword d of its own group, and one dot product (vpdpbusd on VNNI) with the
// packed weights (S::Dot) adds 4 products per lane: every lane works, whatever CG is.
// P output pixels share each weight load. Row sums (nonzero B zero points): the dot of
// each tap's 16 bytes with ones, on 128 bits, gives every dword's sum; a lane permute
// per dword gathers a lane's group sum at the end. The sums are requantized by
// conv_requant.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/intrinsics.h"
#include "conv/conv_kernels.h"
#include "conv/conv_requant.h"
#include "conv/tap_walker.h"

namespace quire::conv {
namespace {

template <class S, int CG, int P, bool ROW, bool FBIAS>
void groupwise_run(const DirectArgs& a) {
  using I = typename S::I;
  constexpr int L = S::W, DQ = (CG + 3) / 4, SPAN = L > CG ? L : CG;
  const detail::ConvGeometry& g = *a.g;
  const int C = g.in_channels, taps = g.kernel_prod();
  const int nvec = (C + L - 1) / L;

  // Lane l's group starts goff(l) = (l / CG) * CG bytes into the span.
  alignas(64) int8_t ctrl_bytes[DQ][S::kBytes];
  alignas(64) int32_t fold_idx[DQ][L];
  for (int d = 0; d < DQ; ++d) {
    for (int l = 0; l < L; ++l) {
      const int goff = (l / CG) * CG;
      for (int b = 0; b < 4; ++b) ctrl_bytes[d][4 * l + b] = static_cast<int8_t>(goff + 4 * d + b);
      fold_idx[d][l] = goff / 4 + d;
    }
  }
  // Without VNNI, two shuffles give each lane the dword's even and odd bytes as words
  // (bytes 4 d, 4 d + 2 and 4 d + 1, 4 d + 3, each with a zero byte above: -1 in a control
  // byte writes zero): no mask and shift.
  alignas(64) int8_t split_bytes[2][DQ][S::kBytes];
  for (int d = 0; d < DQ; ++d)
    for (int i = 0; i < S::kBytes; ++i)
      for (int par = 0; par < 2; ++par)
        split_bytes[par][d][i] = i % 2 ? int8_t{-1} : static_cast<int8_t>(ctrl_bytes[d][i / 4 * 4] + 2 * (i % 4 / 2) + par);
  I ctrl[DQ], fold[DQ], even_ctrl[DQ], odd_ctrl[DQ];
  for (int d = 0; d < DQ; ++d) {
    ctrl[d] = S::load_raw(ctrl_bytes[d]);
    fold[d] = S::load(fold_idx[d]);
    even_ctrl[d] = S::load_raw(split_bytes[0][d]);
    odd_ctrl[d] = S::load_raw(split_bytes[1][d]);
  }

  // Without VNNI the weights are split into their int16 even and odd pairs once per
  // call, not once per tap and vector of every P pixels.
  using Weights = typename S::Dot::Weights;
  std::vector<Weights> split;
  const auto weights_of = [&](int v) {
    return a.W + static_cast<int64_t>(v * L / 16) * taps * DQ * 64 + (v * L % 16) * 4;
  };
  if constexpr (S::Dot::kSplitsBytes) {
    split.resize(static_cast<size_t>(nvec) * taps * DQ);
    for (int v = 0; v < nvec; ++v)
      for (int t = 0; t < taps * DQ; ++t)
        split[static_cast<size_t>(v) * taps * DQ + t] =
            S::Dot::weights(S::load_raw(weights_of(v) + t * 64));
  }

  std::vector<const uint8_t*> tp(static_cast<size_t>(P) * taps);
  TapWalker walker(g, a.A, a.zp_row, a.pixel_begin, taps);
  for (int64_t px0 = a.pixel_begin; px0 < a.pixel_end; px0 += P) {
    const int np = static_cast<int>(std::min<int64_t>(P, a.pixel_end - px0));
    for (int p = 0; p < P; ++p) {
      // Pixels past the end repeat the last one; their results are not stored.
      std::copy_n(walker.taps(), taps, tp.begin() + static_cast<size_t>(p) * taps);
      if (p + 1 < np) walker.next();
    }
    for (int v = 0; v < nvec; ++v) {
      const int base = (v * L / CG) * CG;
      const int n_in = std::min(SPAN, C - base);
      const int8_t* w = weights_of(v);
      // (No split weights for a dot that takes bytes: an offset from an empty vector's
      // null data() is undefined.)
      const Weights* wsplit =
          S::Dot::kSplitsBytes ? split.data() + static_cast<size_t>(v) * taps * DQ : nullptr;
      I acc[P];
      __m128i rs[P];
      const I col = S::load(a.q.col_term + v * L);
      for (int p = 0; p < P; ++p) {
        acc[p] = col;
        rs[p] = _mm_setzero_si128();
      }
      for (int t = 0; t < taps; ++t) {
        I b[P];
        for (int p = 0; p < P; ++p) b[p] = S::bcast16(tp[p * taps + t] + base, n_in);
        if constexpr (ROW)
          for (int p = 0; p < P; ++p) rs[p] = S::row_dot(rs[p], b[p]);
        for (int d = 0; d < DQ; ++d) {
          Weights wd;
          if constexpr (S::Dot::kSplitsBytes) wd = wsplit[t * DQ + d];
          else wd = S::Dot::weights(S::load_raw(w + (t * DQ + d) * 64));
          for (int p = 0; p < P; ++p) {
            if constexpr (S::Dot::kSplitsBytes)
              acc[p] = S::Dot::dot_words(acc[p], S::shuffle_bytes(b[p], even_ctrl[d]),
                                         S::shuffle_bytes(b[p], odd_ctrl[d]), wd);
            else acc[p] = S::Dot::dot(acc[p], S::shuffle_bytes(b[p], ctrl[d]), wd);
          }
        }
      }
      const typename S::Lanes n_out(C - v * L);
      const typename S::F mult = S::loadf(a.q.mult + v * L);
      const typename S::F fbias = FBIAS ? S::loadf(a.q.fbias + v * L) : S::zerof();
      const I b_zp = ROW ? S::load(a.q.b_zp + v * L) : S::zeroi();
      for (int p = 0; p < np; ++p) {
        I raw = acc[p];
        if constexpr (ROW) {
          I row_sum = S::zeroi();
          const I sums = S::widen(rs[p]);
          for (int d = 0; d < DQ; ++d) row_sum = S::addi(row_sum, S::permute(sums, fold[d]));
          raw = S::subi(raw, S::mullo(b_zp, row_sum));
        }
        S::store(a.C + (px0 + p) * C + v * L, n_out, requantize<S, FBIAS>(raw, fbias, mult, a.q));
      }
    }
    if (px0 + P < a.pixel_end) walker.next();
  }
}

template <class S, int CG, int P>
void groupwise_flags(const DirectArgs& a) {
  const bool row = a.q.b_zp != nullptr, fbias = a.q.fbias != nullptr;
  if (row && fbias) groupwise_run<S, CG, P, true, true>(a);
  else if (row) groupwise_run<S, CG, P, true, false>(a);
  else if (fbias) groupwise_run<S, CG, P, false, true>(a);
  else groupwise_run<S, CG, P, false, false>(a);
}

template <class S, int P>
void groupwise_kernel(const DirectArgs& a) {
  switch (a.g->ic_per_group()) {
    case 8: groupwise_flags<S, 8, P>(a); break;
    default: groupwise_flags<S, 16, P>(a); break;
  }
}

}  // namespace
}  // namespace quire::conv
