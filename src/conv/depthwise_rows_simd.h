// What the depthwise row kernels written over a vector vocabulary S share (stride 1:
// depthwise_rows_s1.h, stride 2: depthwise_rows_s2.h; S: simd_conv_avx2.h): the
// parameters of each output block phase in both dot-product forms, the certificate that
// picks the form, the two forms' column dot products, and the requantization of a block.
//
// The kernels consume column quads (docs/convolution.md, "The row kernel"): a 32-bit lane
// holds bytes x0..x3 of four input rows at one position. An output row weighs three of
// them per kernel column: role 0 bytes x0..x2, role 1 bytes x1..x3. Two forms:
//  - certified: p = vpmaddubsw(quad, [w0, w1, w2, z]) (role 1: [z, w0, w1, w2]), then
//    vpmaddwd(p, 1) and vpaddd: three instructions, exact when no int16 pair sum
//    saturates. The fourth byte's z cancels against -z times the quad's byte sum (a
//    vpmaddubsw with ones, three columns summed in int16, one vpmaddwd with -z), which
//    leaves sum x_i (w_i - z): the zero-point correction.
//  - exact: the quad's even and odd bytes as words, two vpmaddwd with the weights
//    w' = w - z as int16 (z folded in: no zero-point term at all), exact for any data.
// Internal linkage: included by the per-ISA kernels' files.
#pragma once

#include <algorithm>
#include <cstring>
#include <cstdint>
#include <numeric>
#include <vector>

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
  I even[2][3][4];  // words for quad bytes (x0, x2): (w0', w2') / (0, w1')    (w' = w - z)
  I odd[2][3][4];   // words for quad bytes (x1, x3): (w1', 0) / (w0', w2')
  I second[2][3][4];  // stride 2's second row on the blend of two sets (depthwise_rows_s2.h):
                      // [0] bytes [w2, z, w0, w1], [1] words (w2', w0')
  I nz[4];          // (-z, -z) as int16: the certified form's zero-point term
  I col[4];         // col_term
  F mult[4], fbias[4];
  // The certificate: the certified form is exact for activations up to `limit` (-1:
  // never, a B zero point outside a byte). Over every vpmaddubsw pair (b0, b1) of cert,
  // with P = max(b0, 0) + max(b1, 0) and N = min(b0, 0) + min(b1, 0) at their extremes,
  // a pair sum of activations in [0, a] lies in [a N, a P] (docs/kernel-contract.md,
  // "The saturation certificate"), so limit = min(255, 32767 / P, 32768 / -N).
  int limit;
  // Left uninitialized: gather_row_phases writes every member, and zeroing the phases
  // (3.6 KB each, 30 for 960 channels) cost a small layer's call a few percent.
  RowPhase() {}
};

template <class S>
using RowPhases = std::vector<RowPhase<S>>;

inline int row_phase_count(int C, int bytes) { return C / std::gcd(C, bytes); }

// The phases of a layer: column weights from the packed matrix's column layout
// (depthwise_layout.h, whose 64-byte phases hold [w0, w1, w2, 0] per lane), the rest
// from the natural-order parameters, 16 channels per 128-bit lane. z_bytes: every B zero
// point fits a byte (else no phase is certified).
template <class S>
RowPhases<S> gather_row_phases(const ChannelParams& n, const int8_t* columns, int C,
                               bool z_bytes) {
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
    I pmax = S::zeroi(), nmin = S::zeroi();
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
        const I e = S::template srai16<8>(S::template slli16<8>(w));  // (w0, w2)
        const I o = S::template srai16<8>(w);                          // (w1, 0)
        p.even[0][kw][j] = S::sub16(e, zz);
        p.odd[0][kw][j] = S::sub16(o, S::andi(z, word));
        p.even[1][kw][j] = S::sub16(S::template slli32<16>(o), S::template slli32<16>(z));
        p.odd[1][kw][j] = p.even[0][kw][j];
        const auto swap = [](I v) { return S::ori(S::template srli32<16>(v), S::template slli32<16>(v)); };
        p.second[0][kw][j] = swap(c0);
        p.second[1][kw][j] = swap(p.even[0][kw][j]);
        for (int role = 0; role < 2; ++role) {
          const I c = p.cert[role][kw][j];
          const I ce = S::template srai16<8>(S::template slli16<8>(c)), co = S::template srai16<8>(c);
          const I zero = S::zeroi();
          pmax = S::max16(pmax, S::add16(S::max16(ce, zero), S::max16(co, zero)));
          nmin = S::min16(nmin, S::add16(S::min16(ce, zero), S::min16(co, zero)));
        }
      }
    }
    const int P = S::hmax16(pmax), N = -S::hmin16(nmin);
    p.limit = z_bytes ? std::min({255, P > 0 ? 32767 / P : 255, N > 0 ? 32768 / N : 255}) : -1;
  }
  return ph;
}

// The certified form: acc += the pair sums of quad v and weights w (role r of a phase).
template <class S>
typename S::I dot_certified(typename S::I acc, typename S::I v, typename S::I w) {
  return S::addi(acc, S::madd16(S::maddubs16(v, w), S::set1_16(1)));
}

// The exact form: v split into even and odd bytes (ev, od) once per quad.
template <class S>
typename S::I dot_exact(typename S::I acc, typename S::I ev, typename S::I od, typename S::I we,
                        typename S::I wo) {
  return S::addi(acc, S::addi(S::madd16(ev, we), S::madd16(od, wo)));
}

template <class S>
typename S::I even_bytes(typename S::I v) {
  return S::andi(v, S::set1i(0x00ff00ff));
}
template <class S>
typename S::I odd_bytes(typename S::I v) {
  return S::template srli16<8>(v);
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

// One block of a row: the four accumulators requantized (ChannelRequant's formula,
// operation for operation: float, bias, multiply, min with hi, round) and packed to
// channel order; a block of 16 bytes (the row's last when n % 32 == 16) stores the low
// half.
template <class S, bool FBIAS>
void store_row_block(const RowPhase<S>& p, typename S::I acc[4], const RowRequant<S>& rq,
                     uint8_t* out, int64_t left) {
  typename S::I y[4];
  for (int j = 0; j < 4; ++j) {
    typename S::F x = S::cvtif(acc[j]);
    if constexpr (FBIAS) x = S::add(x, p.fbias[j]);
    // min(product, hi): NaN becomes hi, as in the reference.
    y[j] = S::cvtfi(S::min(S::mul(x, p.mult[j]), rq.hi));
  }
  typename S::I b = S::pack_interleaved_zp(y, rq.zp16);
  if (rq.relu) b = S::maxu8(b, rq.lo8);
  if (left >= S::kBytes) S::store_raw(out, b);
  else S::store_low16(out, b);
}

// The planes of a set of column quads, each at the row's byte -C (padding before the
// row): the quads for the certified form, their even and odd bytes as words for the
// exact form. A builder writes the forms the phases may need.
struct QuadPlanes {
  uint8_t* q[4];
  uint8_t* e[4];
  uint8_t* o[4];
};

// Which planes a set's builder writes, from the phases' limits and the largest byte of
// the set's activations (the zero point included).
struct PlaneForms {
  int lo = 255, hi = -1;  // the smallest and largest limit
  bool track = false;     // whether the form depends on the largest byte
  template <class S>
  explicit PlaneForms(const RowPhases<S>& ph) {
    for (const RowPhase<S>& p : ph) {
      lo = std::min(lo, p.limit);
      hi = std::max(hi, p.limit);
      track = track || (p.limit >= 0 && p.limit < 255);
    }
  }
  bool quads(int amax) const { return amax <= hi; }
  bool words(int amax) const { return amax > lo; }
};

// The quads of four rows' bytes x[0..3] (plane j: the j-th of the in-lane unpacks),
// stored as the forms ask. Always inlined: a call passes x through memory and reloads
// the plane pointers (a fifth of a small stride-2 layer's time in a profile).
template <class S>
__attribute__((always_inline)) inline void store_quads(const typename S::I x[4], const QuadPlanes& pl, int64_t at, bool quads,
                 bool words) {
  using I = typename S::I;
  const I u0 = S::unpacklo8(x[0], x[1]), u1 = S::unpackhi8(x[0], x[1]);
  const I v0 = S::unpacklo8(x[2], x[3]), v1 = S::unpackhi8(x[2], x[3]);
  const I q[4] = {S::unpacklo16(u0, v0), S::unpackhi16(u0, v0), S::unpacklo16(u1, v1),
                  S::unpackhi16(u1, v1)};
  for (int j = 0; j < 4; ++j) {
    if (quads) S::store_raw(pl.q[j] + at, q[j]);
    if (words) {
      S::store_raw(pl.e[j] + at, even_bytes<S>(q[j]));
      S::store_raw(pl.o[j] + at, odd_bytes<S>(q[j]));
    }
  }
}

// The padding of a plane set's bytes [from, to) (both even): quads of the zero point,
// and the zero point as words.
inline void fill_padding(const QuadPlanes& pl, int64_t from, int64_t to, int32_t zp) {
  const size_t bytes = static_cast<size_t>(to - from);
  std::vector<uint8_t> words(bytes, 0);
  for (size_t i = 0; i < bytes; i += 2) words[i] = static_cast<uint8_t>(zp);
  for (int j = 0; j < 4; ++j) {
    std::memset(pl.q[j] + from, zp, bytes);
    std::memcpy(pl.e[j] + from, words.data(), bytes);
    std::memcpy(pl.o[j] + from, words.data(), bytes);
  }
}

// The largest byte a set of four input rows gives its quads: rows[s] of n bytes (n % 16
// == 0; null: padding), the zero point included.
template <class S>
int activation_max(const uint8_t* const rows[4], int64_t n, int32_t zp) {
  const typename S::I z = S::set1_8(static_cast<int8_t>(zp));
  typename S::I m = z;
  for (int s = 0; s < 4; ++s) {
    if (rows[s] == nullptr) continue;
    int64_t f = 0;
    for (; f + S::kBytes <= n; f += S::kBytes) m = S::maxu8(m, S::load_raw(rows[s] + f));
    if (f < n) m = S::maxu8(m, S::load_low16(rows[s] + f, z));
  }
  return S::hmax_u8(m);
}

// Whether every byte of p[0, n) (n % 16 == 0) is at most lim; stops at the first KiB
// that holds a larger one.
template <class S>
bool bytes_at_most(const uint8_t* p, int64_t n, int lim) {
  for (int64_t f = 0; f < n;) {
    typename S::I m = S::zeroi();
    const int64_t end = std::min(n, f + 1024);
    for (; f + S::kBytes <= end; f += S::kBytes) m = S::maxu8(m, S::load_raw(p + f));
    if (f < end) {
      m = S::maxu8(m, S::load_low16(p + f, S::zeroi()));
      f += 16;
    }
    if (S::hmax_u8(m) > lim) return false;
  }
  return true;
}

}  // namespace
}  // namespace quire::conv
