// The depthwise row kernel at stride 1 over a vector vocabulary S (depthwise_rows.h,
// docs/convolution.md): the AVX512-VNNI kernel's design (depthwise_rows_avx512vnni.cpp)
// with the two dot-product forms of depthwise_rows_simd.h, chosen per phase and pair of
// rows by the certificate.
//
// Per pair of output rows (oh, oh + 1) the builder interleaves input rows oh - 1 .. oh + 2
// into column quads, four planes (plane j, 16-byte unit u: the quads of bytes 16 u + 4 j
// .. + 3), and tracks their largest byte when a phase's form depends on it. Output byte
// f of kernel column kw is then the quad at plane byte f + kw C (C % 16 == 0: whole
// units), one unaligned load, weighed by role 0 for row oh and role 1 for row oh + 1. The
// next pair's planes are built while the current pair's dot products run.
#pragma once

#include <cstring>

#include "conv/depthwise_rows.h"
#include "conv/depthwise_rows_simd.h"
#include "quire/Depthwise.h"
#include "quire/Utils.h"

namespace quire::conv {
namespace {

// Four rows' bytes x[0..3] as column quads, plane j the j-th of the in-lane unpacks.
template <class S>
void store_quads(const typename S::I x[4], uint8_t* const plane[4], int64_t at) {
  using I = typename S::I;
  const I u0 = S::unpacklo8(x[0], x[1]), u1 = S::unpackhi8(x[0], x[1]);
  const I v0 = S::unpacklo8(x[2], x[3]), v1 = S::unpackhi8(x[2], x[3]);
  S::store_raw(plane[0] + at, S::unpacklo16(u0, v0));
  S::store_raw(plane[1] + at, S::unpackhi16(u0, v0));
  S::store_raw(plane[2] + at, S::unpacklo16(u1, v1));
  S::store_raw(plane[3] + at, S::unpackhi16(u1, v1));
}

// Builds a pair's quads from input rows rows[0..3] (null: padding, the zero point), one
// block per step; n % 16 == 0, so a last partial block is 16 bytes.
template <class S>
class QuadBuilder {
 public:
  QuadBuilder(int32_t zero_point, bool track_max)
      : zp_(S::set1_8(static_cast<int8_t>(zero_point))), max_(zp_), track_(track_max) {}

  void start(const uint8_t* const rows[4], int64_t n, uint8_t* const plane[4]) {
    for (int s = 0; s < 4; ++s) {
      rows_[s] = rows[s];
      plane_[s] = plane[s];
    }
    f_ = 0;
    n_ = n;
    max_ = zp_;
  }
  void step() {
    if (f_ < n_) block();
  }
  void finish() {
    while (f_ < n_) block();
  }
  // The largest byte of the quads built (the zero point included), or 255 untracked.
  int amax() const { return track_ ? S::hmax_u8(max_) : 255; }

 private:
  void block() {
    const bool half = n_ - f_ < S::kBytes;
    typename S::I x[4];
    for (int s = 0; s < 4; ++s) {
      x[s] = rows_[s] == nullptr ? zp_
             : half              ? S::load_low16(rows_[s] + f_, zp_)
                                 : S::load_raw(rows_[s] + f_);
      if (track_) max_ = S::maxu8(max_, x[s]);
    }
    store_quads<S>(x, plane_, f_);
    f_ += S::kBytes;
  }

  typename S::I zp_, max_;
  bool track_;
  const uint8_t* rows_[4] = {};
  uint8_t* plane_[4] = {};
  int64_t f_ = 0, n_ = 0;
};

// The blocks of one phase (f = f0, f0 + step, ..) of a pair's rows (PAIR; else its first
// only). The certified form's zero-point term is shared by both rows.
template <class S, bool CERT, bool PAIR, bool ROW, bool FBIAS>
void s1_phase(const RowPhase<S>& ph, const uint8_t* const plane[4], int C, int64_t n, int64_t f0,
              int64_t step, const ChannelRequant& q, uint8_t* out, QuadBuilder<S>& next) {
  using I = typename S::I;
  for (int64_t f = f0; f < n; f += step) {
    I acc0[4], acc1[4];
    for (int j = 0; j < 4; ++j) {
      I a0 = ph.col[j], a1 = ph.col[j], zs = S::zeroi();
      for (int kw = 0; kw < 3; ++kw) {
        const I v = S::load_raw(plane[j] + f + int64_t{kw} * C);
        if constexpr (CERT) {
          a0 = dot_certified<S>(a0, v, ph.cert[0][kw][j]);
          if constexpr (PAIR) a1 = dot_certified<S>(a1, v, ph.cert[1][kw][j]);
          if constexpr (ROW) zs = S::add16(zs, S::maddubs16(v, S::set1_8(1)));
        } else {
          const I ev = even_bytes<S>(v), od = odd_bytes<S>(v);
          a0 = dot_exact<S>(a0, ev, od, ph.even[0][kw][j], ph.odd[0][kw][j]);
          if constexpr (PAIR) a1 = dot_exact<S>(a1, ev, od, ph.even[1][kw][j], ph.odd[1][kw][j]);
        }
      }
      if constexpr (CERT && ROW) {
        const I t = S::madd16(zs, ph.nz[j]);  // -z times the 12 bytes, at most 3060 each
        a0 = S::addi(a0, t);
        a1 = S::addi(a1, t);
      }
      acc0[j] = a0;
      acc1[j] = a1;
    }
    store_row_block<S, FBIAS>(ph, acc0, q, out + f, n - f);
    if constexpr (PAIR) store_row_block<S, FBIAS>(ph, acc1, q, out + n + f, n - f);
    next.step();
  }
}

template <class S, bool PAIR, bool ROW, bool FBIAS>
void s1_rows(const RowPhases<S>& phases, int amax, const uint8_t* const plane[4], int C, int64_t n,
             const ChannelRequant& q, uint8_t* out, QuadBuilder<S>& next) {
  const int64_t blocks = (n + S::kBytes - 1) / S::kBytes;
  const int64_t np = static_cast<int64_t>(phases.size()), step = np * S::kBytes;
  for (int64_t b = 0; b < np && b < blocks; ++b) {
    const RowPhase<S>& ph = phases[b];
    if (amax <= ph.limit)
      s1_phase<S, true, PAIR, ROW, FBIAS>(ph, plane, C, n, b * S::kBytes, step, q, out, next);
    else
      s1_phase<S, false, PAIR, ROW, FBIAS>(ph, plane, C, n, b * S::kBytes, step, q, out, next);
  }
}

template <class S, bool ROW, bool FBIAS>
void s1_run(const DepthwiseRowsArgs& a, const RowPhases<S>& phases, const ChannelRequant& q) {
  const detail::ConvGeometry& g = *a.g;
  const int C = g.out_channels, H = g.in[1], OH = g.out[1];
  const int64_t n = int64_t{g.in[2]} * C;  // flat bytes of a row (OW = W)
  // Two sets of four planes, each with C bytes of padding quads before the row and
  // C + kBytes after (the padding column, and the last block's loads).
  const int64_t stride = (n + 2 * C + 2 * S::kBytes - 1) / S::kBytes * S::kBytes;
  const aligned_unique_ptr<uint8_t> owned(
      static_cast<uint8_t*>(fbgemmAlignedAlloc(64, static_cast<size_t>(8 * stride), true)));
  uint8_t* plane[2][4];
  const uint8_t* read[2][4];  // plane byte f + kw C: input f + (kw - 1) C
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 4; ++j) {
      uint8_t* base = owned.get() + (4 * k + j) * stride;
      plane[k][j] = base + C;
      read[k][j] = base;
      std::memset(base, a.r->a_zero_point, C);
      std::memset(base + C + n, a.r->a_zero_point, static_cast<size_t>(stride - C - n));
    }
  // The input rows of the pair at `row` (a single row when its image or the share ends).
  const auto pair_at = [&](int64_t row, const uint8_t* rows[4]) {
    const int64_t image = row / OH;
    const int oh = static_cast<int>(row % OH);
    const bool pair = row + 1 < a.row_end && oh + 1 < OH;
    for (int s = 0; s < 4; ++s) {
      const int ih = oh - 1 + s;
      rows[s] = ih >= 0 && ih < H && (s < 3 || pair) ? a.A + (image * H + ih) * n : nullptr;
    }
    return pair;
  };
  QuadBuilder<S> builder(a.r->a_zero_point, needs_activation_max(phases));
  const uint8_t* rows[4];
  bool pair = pair_at(a.row_begin, rows);
  builder.start(rows, n, plane[0]);
  builder.finish();
  int amax = builder.amax(), k = 0;
  for (int64_t row = a.row_begin; row < a.row_end; k ^= 1) {
    const int64_t next = row + (pair ? 2 : 1);
    const bool next_pair = next < a.row_end && pair_at(next, rows);
    if (next < a.row_end) builder.start(rows, n, plane[k ^ 1]);
    uint8_t* out = a.C + row * n;
    if (pair) s1_rows<S, true, ROW, FBIAS>(phases, amax, read[k], C, n, q, out, builder);
    else s1_rows<S, false, ROW, FBIAS>(phases, amax, read[k], C, n, q, out, builder);
    builder.finish();
    amax = builder.amax();
    row = next;
    pair = next_pair;
  }
}

}  // namespace
}  // namespace quire::conv
