// The depthwise row kernel at stride 1 over a vector vocabulary S (depthwise_rows.h,
// docs/convolution.md): the AVX512-VNNI kernel's design (depthwise_rows_avx512vnni.cpp)
// with the certified dot product of depthwise_rows_simd.h, for 7-bit activations.
//
// Per pair of output rows (oh, oh + 1) the builder interleaves input rows oh - 1 .. oh + 2
// into column quads, four planes (plane j, 16-byte unit u: the quads of bytes 16 u + 4 j
// .. + 3). Output byte f of kernel column kw is then the quad at plane byte f + kw C
// (C % 16 == 0: whole units), one unaligned load, weighed by role 0 for row oh and role 1
// for row oh + 1. The next pair's planes are built while the current pair's dot
// products run.
#pragma once

#include <cstring>

#include "conv/depthwise_row_sets.h"
#include "conv/depthwise_rows.h"
#include "conv/depthwise_rows_simd.h"
#include "quire/Depthwise.h"
#include "quire/Utils.h"

namespace quire::conv {
namespace {

// Builds a pair's planes from input rows rows[0..3] (null: padding, the zero point), one
// block per step; n % 16 == 0, so a last partial block is 16 bytes.
template <class S>
class QuadBuilder {
 public:
  explicit QuadBuilder(int32_t zero_point) : zp_(S::set1_8(static_cast<int8_t>(zero_point))) {}

  void start(const uint8_t* const rows[4], int64_t n, const QuadPlanes& planes, int64_t at) {
    for (int s = 0; s < 4; ++s) rows_[s] = rows[s];
    planes_ = planes;
    at_ = at;
    f_ = 0;
    n_ = n;
  }
  void step() {
    if (f_ < n_) block();
  }
  void finish() {
    while (f_ < n_) block();
  }

 private:
  void block() {
    const bool half = n_ - f_ < S::kBytes;
    typename S::I x[4];
    for (int s = 0; s < 4; ++s)
      x[s] = rows_[s] == nullptr ? zp_
             : half              ? S::load_low16(rows_[s] + f_, zp_)
                                 : S::load_raw(rows_[s] + f_);
    store_quads<S>(x, planes_, at_ + f_);
    f_ += S::kBytes;
  }

  typename S::I zp_;
  const uint8_t* rows_[4] = {};
  QuadPlanes planes_ = {};
  int64_t at_ = 0, f_ = 0, n_ = 0;
};

// The blocks of one phase (f = f0, f0 + step, ..) of a pair's rows (PAIR; else its first
// only). The zero-point term is shared by both rows.
template <class S, bool PAIR, bool ROW, bool FBIAS>
void s1_phase(const RowPhase<S>& ph, const QuadPlanes& pl, int C, int64_t n, int64_t f0,
              int64_t step, const RowRequant<S>& rq, uint8_t* out, QuadBuilder<S>& next) {
  using I = typename S::I;
  for (int64_t f = f0; f < n; f += step) {
    I acc0[4], acc1[4];
    for (int j = 0; j < 4; ++j) {
      I a0 = ph.col[j], a1 = ph.col[j], zs = S::zeroi();
      for (int kw = 0; kw < 3; ++kw) {
        const I v = S::load_raw(pl.q[j] + f + int64_t{kw} * C);
        a0 = dot_certified<S>(a0, v, ph.cert[0][kw][j]);
        if constexpr (PAIR) a1 = dot_certified<S>(a1, v, ph.cert[1][kw][j]);
        if constexpr (ROW) zs = S::add16(zs, S::maddubs16(v, S::set1_8(1)));
      }
      if constexpr (ROW) {
        const I t = S::madd16(zs, ph.nz[j]);  // -z times the 12 bytes, at most 1524 each
        a0 = S::addi(a0, t);
        a1 = S::addi(a1, t);
      }
      acc0[j] = a0;
      acc1[j] = a1;
    }
    store_row_block<S, FBIAS>(ph, acc0, rq, out + f, n - f);
    if constexpr (PAIR) store_row_block<S, FBIAS>(ph, acc1, rq, out + n + f, n - f);
    next.step();
  }
}

template <class S, bool PAIR, bool ROW, bool FBIAS>
void s1_rows(const RowPhases<S>& phases, const QuadPlanes& pl, int C, int64_t n,
             const RowRequant<S>& rq, uint8_t* out, QuadBuilder<S>& next) {
  const int64_t blocks = (n + S::kBytes - 1) / S::kBytes;
  const int64_t np = static_cast<int64_t>(phases.size()), step = np * S::kBytes;
  for (int64_t b = 0; b < np && b < blocks; ++b)
    s1_phase<S, PAIR, ROW, FBIAS>(phases[b], pl, C, n, b * S::kBytes, step, rq, out, next);
}

template <class S, bool ROW, bool FBIAS>
void s1_run(const DepthwiseRowsArgs& a, const RowPhases<S>& phases, const ChannelRequant& q) {
  const detail::ConvGeometry& g = *a.g;
  const int C = g.out_channels;
  const int32_t zp = a.r->a_zero_point;
  const int64_t n = int64_t{g.in[2]} * C;  // flat bytes of a row (OW = W)
  // Two sets of four planes, each with C bytes of padding before the row and C + kBytes
  // after (the padding column, and the last block's loads).
  const int64_t stride = (n + 2 * C + 2 * S::kBytes - 1) / S::kBytes * S::kBytes;
  const aligned_unique_ptr<uint8_t> owned(
      static_cast<uint8_t*>(fbgemmAlignedAlloc(64, static_cast<size_t>(8 * stride), true)));
  QuadPlanes set[2];
  for (int k = 0; k < 2; ++k) {
    for (int j = 0; j < 4; ++j) set[k].q[j] = owned.get() + (4 * k + j) * stride;
    fill_padding(set[k], 0, C, zp);
    fill_padding(set[k], C + n, stride, zp);
  }
  const RowRequant<S> rq(q);
  QuadBuilder<S> builder(zp);
  const uint8_t* rows[4];
  bool pair = stride1_pair(a, a.row_begin, rows);
  builder.start(rows, n, set[0], C);
  builder.finish();
  for (int64_t row = a.row_begin, k = 0; row < a.row_end; k ^= 1) {
    const int64_t next = row + (pair ? 2 : 1);
    const bool next_pair = next < a.row_end && stride1_pair(a, next, rows);
    if (next < a.row_end) builder.start(rows, n, set[k ^ 1], C);
    uint8_t* out = a.C + row * n;
    if (pair) s1_rows<S, true, ROW, FBIAS>(phases, set[k], C, n, rq, out, builder);
    else s1_rows<S, false, ROW, FBIAS>(phases, set[k], C, n, rq, out, builder);
    builder.finish();
    row = next;
    pair = next_pair;
  }
}

}  // namespace
}  // namespace quire::conv
