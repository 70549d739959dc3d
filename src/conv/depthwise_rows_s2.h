// The depthwise row kernel at stride 2 over a vector vocabulary S (depthwise_rows.h,
// docs/convolution.md): the AVX512-VNNI kernel's design (depthwise_rows_s2_avx512vnni.cpp)
// with the two dot-product forms of depthwise_rows_simd.h, chosen per phase and pair of
// rows by the certificate.
//
// set(oh) holds the column quads of input rows 2 oh - 1 .. 2 oh + 2, de-interleaved as
// they are built: an even plane set over input columns 0, 2, .. and an odd one over
// columns -1, 1, 3, .. (its column 0 the padding column). Output byte f takes kernel
// column 0 from odd byte f, column 1 from even byte f, column 2 from odd byte f + C. Row
// oh weighs set(oh)'s quads with role 0; row oh + 1 needs rows 2 oh + 1 .. 2 oh + 4, the
// upper half of set(oh)'s quads and the lower half of set(oh + 2)'s, one word blend
// (the same for the exact form's even words), weighed with the role-0 weights' two
// halves swapped. set(oh + 2) is the next pair's first set: each input row is
// interleaved once per two output rows, the next set while a pair's dot products run.
#pragma once

#include <cstring>
#include <vector>

#include "conv/depthwise_row_sets.h"
#include "conv/depthwise_rows.h"
#include "conv/depthwise_rows_s1.h"
#include "conv/depthwise_rows_simd.h"
#include "quire/Depthwise.h"
#include "quire/Utils.h"

namespace quire::conv {
namespace {

// Builds set(oh) from input rows rows[0..3] (null: padding) into the even and odd plane
// sets, one input column at a time (de-interleaving is choosing where a column goes), a
// few columns per step. A column is whole vectors, then 16 bytes whose planes spill 16
// bytes of zero-point quads into the next column of the plane (built later) or past the
// last one (read only by lanes past the row's end). Columns past the input are quads of
// the zero point; the odd set's column 0 is written once per call (zp_column). A set
// gets the planes of the forms its own largest byte calls for; a pair reads two sets and
// takes the forms the larger of their largest bytes allows, so a set may lack the exact
// form's planes a pair needs, and is then built again with them (force_words).
template <class S>
class ColumnBuilder {
 public:
  ColumnBuilder(int32_t zero_point, int C, int W, int OW, int64_t steps, const PlaneForms& forms)
      : zp_row_(static_cast<size_t>(W) * C, static_cast<uint8_t>(zero_point)),
        zp_(S::set1_8(static_cast<int8_t>(zero_point))), zero_point_(zero_point), C_(C), W_(W),
        columns_(2 * OW), per_step_(static_cast<int>((2 * OW + steps - 1) / steps)),
        next_(columns_), forms_(forms) {}

  void zp_column(const QuadPlanes& odd) {
    const uint8_t* const rows[4] = {zp_row_.data(), zp_row_.data(), zp_row_.data(), zp_row_.data()};
    quads_ = words_ = true;
    column(rows, 0, odd, 0);
  }
  // planes[0]: the even set, planes[1]: the odd set.
  void start(const uint8_t* const rows[4], const QuadPlanes planes[2], bool force_words) {
    for (int s = 0; s < 4; ++s) rows_[s] = rows[s] != nullptr ? rows[s] : zp_row_.data();
    plane_[0] = planes[0];
    plane_[1] = planes[1];
    next_ = 0;
    amax_ = forms_.track ? activation_max<S>(rows, int64_t{W_} * C_, zero_point_) : 255;
    quads_ = forms_.quads(amax_);
    words_ = force_words || forms_.words(amax_);
  }
  void step() {
    for (int i = 0; i < per_step_ && next_ < columns_; ++i) build(next_++);
  }
  void finish() {
    while (next_ < columns_) build(next_++);
  }
  int amax() const { return amax_; }
  bool words() const { return words_; }

 private:
  // Input column ic: even column ic / 2, or odd column (ic + 1) / 2.
  void build(int ic) {
    const int par = ic & 1;
    const int64_t to = int64_t{(ic + par) / 2} * C_;
    if (ic < W_) {
      column(rows_, int64_t{ic} * C_, plane_[par], to);
    } else {
      const uint8_t* const zp[4] = {zp_row_.data(), zp_row_.data(), zp_row_.data(), zp_row_.data()};
      column(zp, 0, plane_[par], to);
    }
  }
  void column(const uint8_t* const rows[4], int64_t at, const QuadPlanes& plane, int64_t to) {
    typename S::I x[4];
    for (int c = 0; c < C_; c += S::kBytes) {
      const bool half = C_ - c < S::kBytes;
      for (int s = 0; s < 4; ++s)
        x[s] = half ? S::load_low16(rows[s] + at + c, zp_) : S::load_raw(rows[s] + at + c);
      store_quads<S>(x, plane, to + c, quads_, words_);
    }
  }

  std::vector<uint8_t> zp_row_;
  typename S::I zp_;
  int32_t zero_point_;
  int C_, W_;
  int columns_, per_step_;
  const uint8_t* rows_[4] = {};
  QuadPlanes plane_[2] = {};
  int next_;  // the next input column (none before the first start)
  PlaneForms forms_;
  int amax_ = 255;
  bool quads_ = true, words_ = true;
};

// The three kernel columns of one plane of a set (FORM 0: quads, 1: even words, 2: odd
// words; even columns in planes[0], odd in planes[1]) for output block f.
template <int FORM>
void s2_planes(const QuadPlanes planes[2], int j, int64_t f, int C, const uint8_t* p[3]) {
  const auto plane = [&](const QuadPlanes& s) {
    return FORM == 0 ? s.q[j] : FORM == 1 ? s.e[j] : s.o[j];
  };
  p[0] = plane(planes[1]) + f;
  p[1] = plane(planes[0]) + f;
  p[2] = plane(planes[1]) + f + C;
}

// The certified form of a row: col_term plus the three columns' quads v weighed by w
// (with the zero-point term when ROW: -z times each quad's four bytes).
template <class S, bool ROW>
typename S::I s2_certified(const RowPhase<S>& ph, int j, const typename S::I v[3],
                           const typename S::I (&w)[3][4]) {
  typename S::I acc = ph.col[j], zs = S::zeroi();
  for (int kw = 0; kw < 3; ++kw) {
    acc = dot_certified<S>(acc, v[kw], w[kw][j]);
    if constexpr (ROW) zs = S::add16(zs, S::maddubs16(v[kw], S::set1_8(1)));
  }
  if constexpr (ROW) acc = S::addi(acc, S::madd16(zs, ph.nz[j]));
  return acc;
}

// The exact form: the columns' even and odd words ev, od weighed by role 0.
template <class S>
typename S::I s2_exact(const RowPhase<S>& ph, int j, const typename S::I ev[3],
                       const typename S::I od[3]) {
  typename S::I acc = ph.col[j];
  for (int kw = 0; kw < 3; ++kw)
    acc = dot_exact<S>(acc, ev[kw], od[kw], ph.even[0][kw][j], ph.odd[0][kw][j]);
  return acc;
}

template <class S, bool CERT, bool PAIR, bool ROW, bool FBIAS>
void s2_phase(const RowPhase<S>& ph, const QuadPlanes first[2], const QuadPlanes second[2], int C,
              int64_t n, int64_t f0, int64_t step, const RowRequant<S>& rq, uint8_t* out,
              ColumnBuilder<S>& next) {
  using I = typename S::I;
  for (int64_t f = f0; f < n; f += step) {
    I acc0[4], acc1[4];
    for (int j = 0; j < 4; ++j) {
      const uint8_t* p[3];
      const uint8_t* p2[3];
      if constexpr (CERT) {
        I a[3], b[3];
        s2_planes<0>(first, j, f, C, p);
        for (int kw = 0; kw < 3; ++kw) a[kw] = S::load_raw(p[kw]);
        acc0[j] = s2_certified<S, ROW>(ph, j, a, ph.cert[0]);
        if constexpr (PAIR) {
          // Bytes (y0, y1, x2, x3): rows 2 oh + 3, 2 oh + 4 from set(oh + 2)'s lower
          // word, rows 2 oh + 1, 2 oh + 2 from set(oh)'s upper word.
          s2_planes<0>(second, j, f, C, p2);
          for (int kw = 0; kw < 3; ++kw) b[kw] = S::blend_words(S::load_raw(p2[kw]), a[kw]);
          acc1[j] = s2_certified<S, ROW>(ph, j, b, ph.second[0]);
        }
      } else {
        I ev[3], od[3];
        s2_planes<1>(first, j, f, C, p);
        s2_planes<2>(first, j, f, C, p2);
        for (int kw = 0; kw < 3; ++kw) {
          ev[kw] = S::load_raw(p[kw]);
          od[kw] = S::load_raw(p2[kw]);
        }
        acc0[j] = s2_exact<S>(ph, j, ev, od);
        if constexpr (PAIR) {
          // Row 2 oh + 2 is the upper word of set(oh)'s odd plane; rows 2 oh + 3 and
          // 2 oh + 1 the words (y0, x2) of set(oh + 2)'s and set(oh)'s even planes.
          s2_planes<1>(second, j, f, C, p);
          I acc = ph.col[j];
          for (int kw = 0; kw < 3; ++kw) {
            const I e = S::blend_words(S::load_raw(p[kw]), ev[kw]);
            acc = dot_exact<S>(acc, e, od[kw], ph.second[1][kw][j], ph.even[1][kw][j]);
          }
          acc1[j] = acc;
        }
      }
    }
    store_row_block<S, FBIAS>(ph, acc0, rq, out + f, n - f);
    if constexpr (PAIR) store_row_block<S, FBIAS>(ph, acc1, rq, out + n + f, n - f);
    next.step();
  }
}

template <class S, bool PAIR, bool ROW, bool FBIAS>
void s2_rows(const RowPhases<S>& phases, int amax, const QuadPlanes first[2],
             const QuadPlanes second[2], int C, int64_t n, const RowRequant<S>& rq, uint8_t* out,
             ColumnBuilder<S>& next) {
  const int64_t blocks = (n + S::kBytes - 1) / S::kBytes;
  const int64_t np = static_cast<int64_t>(phases.size()), step = np * S::kBytes;
  for (int64_t b = 0; b < np && b < blocks; ++b) {
    const RowPhase<S>& ph = phases[b];
    if (amax <= ph.limit)
      s2_phase<S, true, PAIR, ROW, FBIAS>(ph, first, second, C, n, b * S::kBytes, step, rq, out, next);
    else
      s2_phase<S, false, PAIR, ROW, FBIAS>(ph, first, second, C, n, b * S::kBytes, step, rq, out, next);
  }
}

template <class S, bool ROW, bool FBIAS>
void s2_run(const DepthwiseRowsArgs& a, const RowPhases<S>& phases, const ChannelRequant& q) {
  const RowRequant<S> rq(q);
  const detail::ConvGeometry& g = *a.g;
  const int C = g.out_channels, W = g.in[2];
  const int64_t n = int64_t{g.out[2]} * C;  // flat bytes of an output row
  // Three sets of 2 x 12 planes, each n + C bytes (the odd planes' length) rounded up to
  // whole vectors, and a vector more for the last block's loads at f + C and the spill.
  const int64_t stride = (n + C + S::kBytes - 1) / S::kBytes * S::kBytes + S::kBytes;
  const aligned_unique_ptr<uint8_t> owned(
      static_cast<uint8_t*>(fbgemmAlignedAlloc(64, static_cast<size_t>(72 * stride), true)));
  const PlaneForms forms(phases);
  ColumnBuilder<S> builder(a.r->a_zero_point, C, W, g.out[2], (n + S::kBytes - 1) / S::kBytes,
                           forms);
  QuadPlanes planes[3][2];
  for (int k = 0; k < 3; ++k) {
    for (int par = 0; par < 2; ++par) {
      for (int j = 0; j < 4; ++j) {
        uint8_t* base = owned.get() + (((k * 2 + par) * 4 + j) * 3) * stride;
        planes[k][par].q[j] = base;
        planes[k][par].e[j] = base + stride;
        planes[k][par].o[j] = base + 2 * stride;
        const int64_t end = n + par * C;
        for (int form = 0; form < 3; ++form)
          std::memset(base + form * stride + end, 0, static_cast<size_t>(stride - end));
      }
    }
    builder.zp_column(planes[k][1]);
  }
  int pending = -1;  // the slot the builder is filling
  int amax[3] = {};    // each slot's largest byte
  bool words[3] = {};  // whether the slot has the exact form's planes
  const auto finish = [&] {
    builder.finish();
    if (pending >= 0) {
      amax[pending] = builder.amax();
      words[pending] = builder.words();
    }
    pending = -1;
  };
  const auto start_with = [&](const SetTag& t, int slot, bool force_words) {
    const uint8_t* rows[4];
    set_rows(a, t, rows);
    builder.start(rows, planes[slot], force_words);
    pending = slot;
  };
  const auto start = [&](const SetTag& t, int slot) { start_with(t, slot, false); };
  // A pair takes the forms the larger of its sets' largest bytes allows: a set built
  // without the exact form's planes is built again with them.
  int pair_amax = 0;
  const auto ready = [&](const SetTag need[2], const int slot[2]) {
    pair_amax = std::max(amax[slot[0]], amax[slot[1]]);
    for (int i = 0; i < 2; ++i)
      if (forms.words(pair_amax) && !words[slot[i]]) {
        start_with(need[i], slot[i], true);
        finish();
      }
  };
  const auto run = [&](int64_t row, bool pair, int s0, int s1) {
    uint8_t* out = a.C + row * n;
    if (pair)
      s2_rows<S, true, ROW, FBIAS>(phases, pair_amax, planes[s0], planes[s1], C, n, rq, out,
                                   builder);
    else
      s2_rows<S, false, ROW, FBIAS>(phases, pair_amax, planes[s0], planes[s0], C, n, rq, out,
                                    builder);
  };
  walk_set_pairs(a, start, finish, ready, run);
}

}  // namespace
}  // namespace quire::conv
