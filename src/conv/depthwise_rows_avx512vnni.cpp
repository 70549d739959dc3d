// The depthwise row kernel on AVX512-VNNI (see depthwise_rows.h and docs/convolution.md).
//
// An output row is a flat run of OW x C bytes, and so is each input row: with stride 1,
// output byte f of tap (kh, kw) reads input row oh - 1 + kh at flat byte f + (kw - 1) C.
// Per pair of output rows (oh, oh + 1) the kernel builds "column quads": for every input
// byte f, the bytes of input rows oh - 1 .. oh + 2 at f, interleaved by in-lane unpacks
// into four planes (plane j, 16-byte unit u: the quads of bytes 16 u + 4 j .. + 3). One
// vpdpbusd of a plane vector with [w(0,kw), w(1,kw), w(2,kw), .] per lane adds a whole
// kernel column to row oh, and with [., w(0,kw), w(1,kw), w(2,kw)] to row oh + 1. Each
// input byte is shuffled once per two output rows, not once per tap use; C is a
// multiple of 16, so the tap offsets (kw - 1) C are whole units and a plane vector is
// one unaligned load. The planes of the next pair are built while the current pair's
// dot products run (two plane sets).
//
// The lanes of output block f (64 flat bytes) hold channels (f + i) mod C, which repeat
// with a period of lcm(C, 64) bytes: the kernel gathers, once per call, the weights and
// requantization parameters of each "phase" (64-byte block of that period) and runs the
// blocks of a row phase by phase, with the phase's weights in registers. B zero points
// z go into the weights' free byte and one shared dot product (rows_out).
#include <cstring>
#include <vector>

#include "common/intrinsics.h"
#include "conv/depthwise_layout.h"
#include "conv/depthwise_row_sets.h"
#include "conv/depthwise_rows.h"
#include "conv/depthwise_rows_phase.h"
#include "quire/Depthwise.h"
#include "quire/Utils.h"

namespace quire::conv {
namespace {

// Builds the column quads of a row pair, input rows rows[0..3] (null: padding, the zero
// point), into four planes, one 64-byte block per step: the consume loop of the pair
// before steps it once per output block, so that the builder's stores overlap that
// loop's dot products.
class PlaneBuilder {
 public:
  explicit PlaneBuilder(int32_t zero_point)
      : zp_(_mm512_set1_epi8(static_cast<char>(zero_point))) {}

  void start(const uint8_t* const rows[4], int64_t n, uint8_t* const plane[4]) {
    for (int s = 0; s < 4; ++s) {
      rows_[s] = rows[s];
      plane_[s] = plane[s];
    }
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
    const __mmask64 m = n_ - f_ >= 64 ? ~0ull : (1ull << (n_ - f_)) - 1;
    __m512i x[4];
    for (int s = 0; s < 4; ++s)
      x[s] = rows_[s] == nullptr ? zp_ : _mm512_mask_loadu_epi8(zp_, m, rows_[s] + f_);
    store_quads(x, plane_, f_);
    f_ += 64;
  }

  __m512i zp_;
  const uint8_t* rows_[4] = {};
  uint8_t* plane_[4] = {};
  int64_t f_ = 0, n_ = 0;
};

// The output rows of a pair (PAIR; else its first row only) from the planes. The first
// row weighs quad bytes 0..2 with [w0, w1, w2, z], the second bytes 1..3 with [z, w0,
// w1, w2] (z: the B zero point, 0 when symmetric), and one dot product per quad shared
// by both rows adds -z times all four bytes: x0 (w0 - z) + x1 (w1 - z) + x2 (w2 - z) +
// 0 x3 for the first row, the same over bytes 1..3 for the second. Three dot products
// per quad for both rows' weights and row sums; the first row's weights stay in
// registers, the second's are memory operands (a load rather than a rotate of each quad,
// which would take a vector pipe).
template <bool PAIR, bool ROW, bool FBIAS>
void rows_out(const std::vector<Phase>& phases, const uint8_t* const plane[4],
              int C, int64_t n, const Requant& rq, uint8_t* out, PlaneBuilder& next) {
  const int np = static_cast<int>(phases.size());
  const int64_t blocks = (n + 63) / 64;
  for (int p = 0; p < np && p < blocks; ++p) {
    const Phase& ph = phases[p];
    __m512i w[3][4];
    for (int j = 0; j < 4; ++j)
      for (int kw = 0; kw < 3; ++kw) w[kw][j] = ph.w[0][kw][j];
    for (int64_t f = 64 * int64_t{p}; f < n; f += 64 * int64_t{np}) {
      __m512i acc[4], acc2[4];
      for (int j = 0; j < 4; ++j) {
        // The shared zero-point term first, so that both rows start from it (no adds).
        __m512i v[3], sum = ph.col[j];
        for (int kw = 0; kw < 3; ++kw) {
          v[kw] = _mm512_loadu_si512(plane[j] + f + int64_t{kw} * C);
          if constexpr (ROW) sum = _mm512_dpbusd_epi32(sum, v[kw], ph.nz[j]);
        }
        acc[j] = acc2[j] = sum;
        for (int kw = 0; kw < 3; ++kw) {
          acc[j] = _mm512_dpbusd_epi32(acc[j], v[kw], w[kw][j]);
          if constexpr (PAIR) acc2[j] = _mm512_dpbusd_epi32(acc2[j], v[kw], ph.w[1][kw][j]);
        }
      }
      store_block(out + f, n - f, requantize<FBIAS>(acc, ph, rq));
      if constexpr (PAIR) store_block(out + n + f, n - f, requantize<FBIAS>(acc2, ph, rq));
      next.step();
    }
  }
}

template <bool ROW, bool FBIAS>
void rows_run(const DepthwiseRowsArgs& a, const Natural& natural) {
  const detail::ConvGeometry& g = *a.g;
  const detail::DirectRequant& r = *a.r;
  const int C = g.out_channels;
  const int64_t n = int64_t{g.in[2]} * C;  // flat bytes of a row (OW = W)
  const int np = depthwise_column_phases(C);
  const int8_t* columns = a.W + PackedDepthWiseConvMatrix::packedBytes(C, 9);
  const std::vector<Phase> phases = gather_phases<ROW, FBIAS>(natural, columns, C, np);
  // Two sets of four planes (the pair being consumed, the next being built), each plane
  // with C bytes of padding quads before the row and C + 64 after (the padding column,
  // and the last block's loads).
  const int64_t stride = (n + 2 * C + 64 + 63) / 64 * 64;
  const aligned_unique_ptr<uint8_t> owned(
      static_cast<uint8_t*>(fbgemmAlignedAlloc(64, static_cast<size_t>(8 * stride), true)));
  uint8_t* buf = owned.get();
  uint8_t* plane[2][4];
  const uint8_t* read[2][4];  // plane byte f + kw C: input f + (kw - 1) C
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 4; ++j) {
      uint8_t* base = buf + (4 * k + j) * stride;
      plane[k][j] = base + C;
      read[k][j] = base;
      std::memset(base, r.a_zero_point, C);
      std::memset(base + C + n, r.a_zero_point, static_cast<size_t>(stride - C - n));
    }
  const Requant rq = make_requant(r);
  PlaneBuilder builder(r.a_zero_point);
  const uint8_t* rows[4];
  bool pair = stride1_pair(a, a.row_begin, rows);
  builder.start(rows, n, plane[0]);
  builder.finish();
  int k = 0;
  for (int64_t row = a.row_begin; row < a.row_end; k ^= 1) {
    const int64_t next = row + (pair ? 2 : 1);
    const bool next_pair = next < a.row_end && stride1_pair(a, next, rows);
    if (next < a.row_end) builder.start(rows, n, plane[k ^ 1]);
    uint8_t* out = a.C + row * n;
    if (pair) rows_out<true, ROW, FBIAS>(phases, read[k], C, n, rq, out, builder);
    else rows_out<false, ROW, FBIAS>(phases, read[k], C, n, rq, out, builder);
    builder.finish();
    row = next;
    pair = next_pair;
  }
}

}  // namespace

void depthwise_rows_avx512vnni(const DepthwiseRowsArgs& a) {
  const Natural n = natural_params(*a.r, a.g->out_channels);
  with_row_and_bias(n, *a.r, [&]<bool ROW, bool FBIAS>() { rows_run<ROW, FBIAS>(a, n); });
}

}  // namespace quire::conv
