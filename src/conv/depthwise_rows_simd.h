// What the depthwise row kernel of the ymm paths (depthwise_rows_s1.h over ConvAvx2,
// simd_conv_avx2.h) is made of: the parameters of each output block phase, the
// certified dot product of a kernel column, the requantization of a block, and the
// planes of column quads.
//
// The kernel consumes column quads (docs/convolution.md, "The row kernel"): a 32-bit lane
// holds bytes x0..x3 of four input rows at one position. An output row weighs three of
// them per kernel column: role 0 bytes x0..x2, role 1 bytes x1..x3, in the certified
// form: p = vpmaddubsw(quad, [w0, w1, w2, z]) (role 1: [z, w0, w1, w2]), then
// vpmaddwd(p, 1) and vpaddd: three instructions, exact when no int16 pair sum saturates,
// which holds for 7-bit activations whatever the weights when the B zero points fit a
// byte (pair sums at most 127 x 254 and at least 127 x -256: docs/kernel-contract.md,
// "The saturation certificate"); the caller runs the kernel only then
// (depthwise_rows_avx2.cpp). The fourth byte's z cancels against -z times the quad's
// byte sum (a vpmaddubsw with ones, three columns summed in int16, one vpmaddwd with
// -z), which leaves sum x_i (w_i - z): the zero-point correction. Internal linkage:
// included by the per-ISA kernels' files.
#pragma once

#include <algorithm>
#include <cstring>
#include <cstdint>
#include <numeric>
#include <vector>

#include "conv/activation_bound.h"
#include "conv/conv_requant.h"
#include "conv/depthwise_layout.h"
#include "conv/direct_params.h"

namespace quire::conv {
namespace {

// One block phase: output block f (S::kBytes flat bytes) holds channels (f + i) mod C,
// so its lane parameters repeat every lcm(C, kBytes) bytes. Accumulator j, 128-bit lane
// L, dword d holds channel (f + 16 L + 4 j + d) mod C (the in-lane unpacks' order).
template <class S>
struct RowPhase {
  using I = typename S::I;
  using F = typename S::F;
  I cert[2][3][4];  // [role][kw][j]: bytes [w0, w1, w2, z] / [z, w0, w1, w2] (w = tap (r, kw))
  I nz[4];          // (-z, -z) as int16: the zero-point term
  I col[4];         // col_term
  F mult[4], fbias[4];
  // Left uninitialized: gather_row_phases writes every member, and zeroing the phases
  // (30 for 960 channels) cost a small layer's call a few percent.
  RowPhase() {}
};

template <class S>
using RowPhases = std::vector<RowPhase<S>>;

inline int row_phase_count(int C, int bytes) { return C / std::gcd(C, bytes); }

// The phases of a layer: column weights from the packed matrix's column layout
// (depthwise_layout.h, whose 64-byte phases hold [w0, w1, w2, 0] per lane), the rest
// from the natural-order parameters, 16 channels per 128-bit lane. Every B zero point
// fits a byte.
template <class S>
RowPhases<S> gather_row_phases(const ChannelParams& n, const int8_t* columns, int C) {
  using I = typename S::I;
  constexpr int B = S::kBytes;
  RowPhases<S> ph(row_phase_count(C, B));
  const I byte = S::set1i(0xff), word = S::set1i(0xffff);
  for (size_t b = 0; b < ph.size(); ++b) {
    RowPhase<S>& p = ph[b];
    const int64_t f = int64_t{B} * static_cast<int64_t>(b);
    int group[B / 16];  // the 16-channel group of each 128-bit lane
    for (int L = 0; L < B / 16; ++L) group[L] = static_cast<int>((f + 16 * L) % C / 16);
    const auto lanes = [&](const auto* v, int j) {
      return S::load_lanes(v + 16 * group[0] + 4 * j, v + 16 * group[1] + 4 * j);
    };
    for (int j = 0; j < 4; ++j) {
      const I z = lanes(n.b_zp.data(), j);
      p.col[j] = lanes(n.col_term.data(), j);
      p.mult[j] = S::castf(lanes(n.mult.data(), j));
      p.fbias[j] = n.fbias.empty() ? S::zerof() : S::castf(lanes(n.fbias.data(), j));
      const I zz = S::ori(S::andi(z, word), S::template slli32<16>(z));  // (z, z) words
      p.nz[j] = S::sub16(S::zeroi(), zz);
      const I z3 = S::template slli32<24>(S::andi(z, byte));
      for (int kw = 0; kw < 3; ++kw) {
        const I w = S::load_raw(columns + depthwise_column_index(static_cast<int>(f / 64), kw, j) +
                                f % 64);
        const I c0 = S::ori(w, z3);
        p.cert[0][kw][j] = c0;
        p.cert[1][kw][j] = S::ori(S::template slli32<8>(c0), S::template srli32<24>(c0));
      }
    }
  }
  return ph;
}

// The certified form: acc += the pair sums of quad v and weights w (role r of a phase).
template <class S>
typename S::I dot_certified(typename S::I acc, typename S::I v, typename S::I w) {
  return S::addi(acc, S::madd16(S::maddubs16(v, w), S::set1_16(1)));
}

// ChannelRequant's bounds as the row kernels apply them: x_hi = 255 - c_zp in float;
// the lower one, after adding the zero point in int16, from the saturating packs (0) and
// with ReLU a byte max with c_zp.
template <class S>
struct RowRequant {
  typename S::F hi;
  typename S::I zp16, lo8;
  bool relu;
  explicit RowRequant(const ChannelRequant& q)
      : hi(S::set1f(q.x_hi)), zp16(S::set1_16(static_cast<int16_t>(q.c_zero_point))),
        lo8(S::set1_8(static_cast<int8_t>(q.c_zero_point))), relu(q.x_lo > -q.c_zero_point) {}
};

// ChannelRequant's formula on one accumulator, operation for operation up to the
// rounding: float, bias, multiply, min with hi, round (the packs that follow give the
// lower bound). Shared by the row and tap-pair kernels.
template <class S, bool FBIAS>
typename S::I requantize_to_int(typename S::I acc, typename S::F fbias, typename S::F mult,
                                const RowRequant<S>& rq) {
  typename S::F x = S::cvtif(acc);
  if constexpr (FBIAS) x = S::add(x, fbias);
  // min(product, hi): NaN becomes hi, as in the reference.
  return S::cvtfi(S::min(S::mul(x, mult), rq.hi));
}

// One block of a row: the four accumulators requantized and packed to channel order; a
// block of 16 bytes (the row's last when n % 32 == 16) stores the low half.
template <class S, bool FBIAS>
void store_row_block(const RowPhase<S>& p, typename S::I acc[4], const RowRequant<S>& rq,
                     uint8_t* out, int64_t left) {
  typename S::I y[4];
  for (int j = 0; j < 4; ++j) y[j] = requantize_to_int<S, FBIAS>(acc[j], p.fbias[j], p.mult[j], rq);
  typename S::I b = S::pack_interleaved_zp(y, rq.zp16);
  if (rq.relu) b = S::maxu8(b, rq.lo8);
  if (left >= S::kBytes) S::store_raw(out, b);
  else S::store_low16(out, b);
}

// The planes of a set of column quads, each at the row's byte -C (padding before the
// row).
struct QuadPlanes {
  uint8_t* q[4];
};

// The quads of four rows' bytes x[0..3] (plane j: the j-th of the in-lane unpacks).
// Always inlined: a call passes x through memory and reloads the plane pointers.
template <class S>
__attribute__((always_inline)) inline void store_quads(const typename S::I x[4],
                                                       const QuadPlanes& pl, int64_t at) {
  using I = typename S::I;
  const I u0 = S::unpacklo8(x[0], x[1]), u1 = S::unpackhi8(x[0], x[1]);
  const I v0 = S::unpacklo8(x[2], x[3]), v1 = S::unpackhi8(x[2], x[3]);
  S::store_raw(pl.q[0] + at, S::unpacklo16(u0, v0));
  S::store_raw(pl.q[1] + at, S::unpackhi16(u0, v0));
  S::store_raw(pl.q[2] + at, S::unpacklo16(u1, v1));
  S::store_raw(pl.q[3] + at, S::unpackhi16(u1, v1));
}

// The padding of a plane set's bytes [from, to): quads of the zero point.
inline void fill_padding(const QuadPlanes& pl, int64_t from, int64_t to, int32_t zp) {
  for (int j = 0; j < 4; ++j) std::memset(pl.q[j] + from, zp, static_cast<size_t>(to - from));
}


}  // namespace
}  // namespace quire::conv
