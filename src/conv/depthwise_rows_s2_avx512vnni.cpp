// The depthwise row kernel at stride 2 on AVX512-VNNI (see depthwise_rows.h and
// docs/convolution.md).
//
// Output row oh reads input rows 2 oh - 1 .. 2 oh + 1, and output column x reads input
// columns 2 x - 1, 2 x, 2 x + 1. Per output row the kernel builds column quads [row
// 2 oh - 1, 2 oh, 2 oh + 1, 0] with the stride-1 kernel's in-lane unpacks, de-interleaved
// as they are stored: an even plane set over input columns 0, 2, 4, .. (its column x is
// input column 2 x) and an odd set over columns -1, 1, 3, .. (column x is input column
// 2 x - 1, one column more). Output byte f then takes kernel column 0 from odd byte f,
// column 1 from even byte f and column 2 from odd byte f + C: three unaligned loads per
// plane, no shuffle per tap, and the stride-1 kernel's phases (weights [w0, w1, w2, z],
// lane order, requantization) unchanged. The quads' fourth byte is 0, so the weights' z
// byte adds nothing and the -z dot product sums the three rows. The next row's planes
// are built while the current row's dot products run (two plane sets).
#include <algorithm>
#include <cstring>
#include <vector>

#include "common/intrinsics.h"
#include "conv/depthwise_layout.h"
#include "conv/depthwise_rows.h"
#include "conv/depthwise_rows_phase.h"
#include "quire/Depthwise.h"
#include "quire/Utils.h"

namespace quire::conv {
namespace {

// Builds the quads of one output row, input rows rows[0..2] (null: padding), into the
// even and odd plane sets in one pass over the input row, 64 bytes per chunk: input
// byte f of column pair p (columns 2 p, 2 p + 1; f = 2 p C + c, 0 <= c < 2 C) goes to
// plane byte f - p C of the even set when c < C (column 2 p is even column p) and of
// the odd set otherwise (column 2 p + 1 is odd column p + 1), so a chunk is one store
// per plane, or masked stores where it crosses from even to odd or to the next pair.
// Bytes past the input row read the zero point (the odd column past an odd width);
// the odd set's column 0, the padding column -1, is written once per call (zp_column).
// A few chunks per step, so that the consume loop of the row before, which steps once
// per output block, overlaps the builder's stores with its dot products.
class PlaneBuilder {
 public:
  PlaneBuilder(int32_t zero_point, int C, int W, int OW, int64_t steps)
      : zp_(_mm512_set1_epi8(static_cast<char>(zero_point))), C_(C),
        in_bytes_(int64_t{W} * C), n_(int64_t{2} * OW * C),
        per_step_(static_cast<int>(((n_ + 63) / 64 + steps - 1) / steps)) {}

  // The quads of the padding column: [zp, zp, zp, 0].
  void zp_column(uint8_t* const plane[4]) const {
    const __m512i q = _mm512_and_si512(zp_, _mm512_set1_epi32(0x00ffffff));
    for (int j = 0; j < 4; ++j)
      for (int c = 0; c < C_; c += 16)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(plane[j] + c), _mm512_castsi512_si128(q));
  }

  // planes[0]: the even set, planes[1]: the odd set.
  void start(const uint8_t* const rows[3], uint8_t* const planes[2][4]) {
    for (int s = 0; s < 3; ++s) rows_[s] = rows[s];
    for (int par = 0; par < 2; ++par)
      for (int j = 0; j < 4; ++j) plane_[par][j] = planes[par][j];
    f_ = pair_ = piece_end_ = 0;
    par_ = 0;
  }
  void step() {
    for (int i = 0; i < per_step_ && f_ < n_; ++i) chunk();
  }
  void finish() {
    while (f_ < n_) chunk();
  }

 private:
  void chunk() {
    const int64_t f = f_;
    __m512i x[3];
    if (f + 64 <= in_bytes_) {
      for (int s = 0; s < 3; ++s) x[s] = rows_[s] == nullptr ? zp_ : _mm512_loadu_si512(rows_[s] + f);
    } else {
      const __mmask64 in = f < in_bytes_ ? (1ull << (in_bytes_ - f)) - 1 : 0;
      for (int s = 0; s < 3; ++s)
        x[s] = rows_[s] == nullptr || in == 0 ? zp_ : _mm512_mask_loadu_epi8(zp_, in, rows_[s] + f);
    }
    const __m512i zero = _mm512_setzero_si512();
    const __m512i u0 = _mm512_unpacklo_epi8(x[0], x[1]), u1 = _mm512_unpackhi_epi8(x[0], x[1]);
    const __m512i v0 = _mm512_unpacklo_epi8(x[2], zero), v1 = _mm512_unpackhi_epi8(x[2], zero);
    const __m512i q[4] = {_mm512_unpacklo_epi16(u0, v0), _mm512_unpackhi_epi16(u0, v0),
                          _mm512_unpacklo_epi16(u1, v1), _mm512_unpackhi_epi16(u1, v1)};
    f_ = f + 64;
    if (f_ <= piece_end_) {  // the whole chunk in one column
      uint8_t* const* plane = plane_[par_];
      for (int j = 0; j < 4; ++j) _mm512_storeu_si512(plane[j] + f - pair_ * C_, q[j]);
      return;
    }
    const int64_t two_c = 2 * int64_t{C_}, valid = std::min<int64_t>(64, n_ - f);
    for (int64_t i = 0; i < valid;) {
      while ((pair_ + 1) * two_c <= f + i) ++pair_;
      par_ = f + i - pair_ * two_c >= C_ ? 1 : 0;
      piece_end_ = pair_ * two_c + (par_ + 1) * int64_t{C_};
      const int64_t end = std::min(valid, piece_end_ - f);
      const __mmask64 m = (end == 64 ? ~0ull : (1ull << end) - 1) & ~((1ull << i) - 1);
      uint8_t* const* plane = plane_[par_];
      for (int j = 0; j < 4; ++j) _mm512_mask_storeu_epi8(plane[j] + f - pair_ * C_, m, q[j]);
      i = end;
    }
  }

  __m512i zp_;
  int C_;
  int64_t in_bytes_, n_;  // the input row's bytes; the bytes of OW column pairs
  int per_step_;
  const uint8_t* rows_[3] = {};
  uint8_t* plane_[2][4] = {};
  // The next chunk; the column pair, parity and end of the piece the last one ended in.
  int64_t f_ = 0, pair_ = 0, piece_end_ = 0;
  int par_ = 0;
};

// One output row from its planes: per chunk j, kernel column kw's quads are one load
// and one dot product with [w0, w1, w2, z], and (ROW) one with -z in every byte.
template <bool ROW, bool FBIAS>
void row_out(const std::vector<Phase>& phases, const uint8_t* const planes[2][4], int C,
             int64_t n, const Requant& rq, uint8_t* out, PlaneBuilder& next) {
  const int np = static_cast<int>(phases.size());
  const int64_t blocks = (n + 63) / 64;
  for (int p = 0; p < np && p < blocks; ++p) {
    const Phase& ph = phases[p];
    __m512i w[3][4];
    for (int j = 0; j < 4; ++j)
      for (int kw = 0; kw < 3; ++kw) w[kw][j] = ph.w[0][kw][j];
    for (int64_t f = 64 * int64_t{p}; f < n; f += 64 * int64_t{np}) {
      __m512i acc[4];
      for (int j = 0; j < 4; ++j) {
        const __m512i v[3] = {_mm512_loadu_si512(planes[1][j] + f),
                              _mm512_loadu_si512(planes[0][j] + f),
                              _mm512_loadu_si512(planes[1][j] + f + C)};
        acc[j] = ph.col[j];
        if constexpr (ROW)
          for (int kw = 0; kw < 3; ++kw) acc[j] = _mm512_dpbusd_epi32(acc[j], v[kw], ph.nz[j]);
        for (int kw = 0; kw < 3; ++kw) acc[j] = _mm512_dpbusd_epi32(acc[j], v[kw], w[kw][j]);
      }
      store_block(out + f, n - f, requantize<FBIAS>(acc, ph, rq));
      next.step();
    }
  }
}

template <bool ROW, bool FBIAS>
void rows_run(const DepthwiseRowsArgs& a, const Natural& natural) {
  const detail::ConvGeometry& g = *a.g;
  const detail::DirectRequant& r = *a.r;
  const int C = g.out_channels, H = g.in[1], W = g.in[2], OH = g.out[1];
  const int64_t in_row = int64_t{W} * C;
  const int64_t n = int64_t{g.out[2]} * C;  // flat bytes of an output row
  const int np = depthwise_column_phases(C);
  const int8_t* columns = a.W + PackedDepthWiseConvMatrix::packedBytes(C, 9);
  const std::vector<Phase> phases = gather_phases<ROW, FBIAS>(natural, columns, C, np);
  // Two sets (the row being consumed, the next being built) of eight planes, each n + C
  // bytes (the odd planes' length) rounded up to whole blocks, and a block more for the
  // last block's loads at f + C. The bytes the builder never writes: the odd planes'
  // padding column, and the tails, which only lanes past the row's end read.
  const int64_t stride = (n + C + 63) / 64 * 64 + 64;
  const aligned_unique_ptr<uint8_t> owned(
      static_cast<uint8_t*>(fbgemmAlignedAlloc(64, static_cast<size_t>(16 * stride), true)));
  uint8_t* buf = owned.get();
  PlaneBuilder builder(r.a_zero_point, C, W, g.out[2], (n + 63) / 64);
  uint8_t* planes[2][2][4];
  for (int k = 0; k < 2; ++k) {
    for (int par = 0; par < 2; ++par)
      for (int j = 0; j < 4; ++j) {
        planes[k][par][j] = buf + ((k * 2 + par) * 4 + j) * stride;
        const int64_t end = n + par * C;
        std::memset(planes[k][par][j] + end, 0, static_cast<size_t>(stride - end));
      }
    builder.zp_column(planes[k][1]);
  }
  const Requant rq = make_requant(r);
  const auto rows_at = [&](int64_t row, const uint8_t* rows[3]) {
    const int64_t image = row / OH;
    const int oh = static_cast<int>(row % OH);
    for (int s = 0; s < 3; ++s) {
      const int ih = 2 * oh - 1 + s;
      rows[s] = ih >= 0 && ih < H ? a.A + (image * H + ih) * in_row : nullptr;
    }
  };
  const uint8_t* rows[3];
  rows_at(a.row_begin, rows);
  builder.start(rows, planes[0]);
  builder.finish();
  int k = 0;
  for (int64_t row = a.row_begin; row < a.row_end; ++row, k ^= 1) {
    if (row + 1 < a.row_end) {
      rows_at(row + 1, rows);
      builder.start(rows, planes[k ^ 1]);
    }
    row_out<ROW, FBIAS>(phases, planes[k], C, n, rq, a.C + row * n, builder);
    builder.finish();
  }
}

}  // namespace

void depthwise_rows_s2_avx512vnni(const DepthwiseRowsArgs& a) {
  const Natural n = natural_params(*a.r, a.g->out_channels);
  const bool row = n.any_zp, fbias = a.r->bias_kind == detail::BiasKind::float32;
  if (row && fbias) rows_run<true, true>(a, n);
  else if (row) rows_run<true, false>(a, n);
  else if (fbias) rows_run<false, true>(a, n);
  else rows_run<false, false>(a, n);
}

}  // namespace quire::conv
