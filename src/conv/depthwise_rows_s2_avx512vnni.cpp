// The depthwise row kernel at stride 2 on AVX512-VNNI (see depthwise_rows.h and
// docs/convolution.md).
//
// Output row oh reads input rows 2 oh - 1 .. 2 oh + 1, and output column x reads input
// columns 2 x - 1, 2 x, 2 x + 1. The kernel builds column quads of four input rows,
// set(oh) = rows 2 oh - 1 .. 2 oh + 2, with the stride-1 kernel's in-lane unpacks,
// de-interleaved as they are stored: an even plane set over input columns 0, 2, 4, ..
// (its column x is input column 2 x) and an odd set over columns -1, 1, 3, .. (column x
// is input column 2 x - 1, one column more). Output byte f takes kernel column 0 from
// odd byte f, column 1 from even byte f and column 2 from odd byte f + C: unaligned
// loads, no shuffle per tap, and the stride-1 kernel's phases (weights [w0, w1, w2, z],
// lane order, requantization). A pair of output rows (oh, oh + 1) reads set(oh) and
// set(oh + 2), which is also the next pair's first set, so each input row is shuffled
// once per two output rows. Row oh weighs set(oh)'s quads; row oh + 1 needs rows
// 2 oh + 1 .. 2 oh + 3, whose quads, with row 2 oh + 4 as the fourth byte, are the upper
// half of set(oh)'s and the lower half of set(oh + 2)'s: two shifts and an or per
// vector, then the same weights. As at stride 1, the fourth byte's weight z cancels
// against the dot product with -z in all four bytes, which supplies -z times the row
// sum (z: the B zero point; no such product when all are 0). The next set is built
// while a pair's dot products run (three plane sets in turn).
#include <algorithm>
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

// The quads of BYTES (64, 32 or 16) bytes of four rows at `at`, in-lane interleaved
// (the stride-1 kernel's order) into the four planes at `to`. The narrower widths end a
// column whose size is not a multiple of 64 (C % 16 == 0) at less cost than an
// overlapping 64-byte chunk.
template <int BYTES>
inline void quads(const uint8_t* const rows[4], int64_t at, uint8_t* const plane[4], int64_t to) {
  if constexpr (BYTES == 64) {
    __m512i x[4];
    for (int s = 0; s < 4; ++s) x[s] = _mm512_loadu_si512(rows[s] + at);
    store_quads(x, plane, to);
  } else if constexpr (BYTES == 32) {
    __m256i x[4];
    for (int s = 0; s < 4; ++s) x[s] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[s] + at));
    const __m256i u0 = _mm256_unpacklo_epi8(x[0], x[1]), u1 = _mm256_unpackhi_epi8(x[0], x[1]);
    const __m256i v0 = _mm256_unpacklo_epi8(x[2], x[3]), v1 = _mm256_unpackhi_epi8(x[2], x[3]);
    const __m256i q[4] = {_mm256_unpacklo_epi16(u0, v0), _mm256_unpackhi_epi16(u0, v0),
                          _mm256_unpacklo_epi16(u1, v1), _mm256_unpackhi_epi16(u1, v1)};
    for (int j = 0; j < 4; ++j) _mm256_storeu_si256(reinterpret_cast<__m256i*>(plane[j] + to), q[j]);
  } else {
    __m128i x[4];
    for (int s = 0; s < 4; ++s) x[s] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[s] + at));
    const __m128i u0 = _mm_unpacklo_epi8(x[0], x[1]), u1 = _mm_unpackhi_epi8(x[0], x[1]);
    const __m128i v0 = _mm_unpacklo_epi8(x[2], x[3]), v1 = _mm_unpackhi_epi8(x[2], x[3]);
    const __m128i q[4] = {_mm_unpacklo_epi16(u0, v0), _mm_unpackhi_epi16(u0, v0),
                          _mm_unpacklo_epi16(u1, v1), _mm_unpackhi_epi16(u1, v1)};
    for (int j = 0; j < 4; ++j) _mm_storeu_si128(reinterpret_cast<__m128i*>(plane[j] + to), q[j]);
  }
}

// Builds set(oh), input rows rows[0..3] (null: padding, read as a row of the zero
// point), into the even and odd plane sets, one input column at a time: de-interleaving
// is choosing the plane set and column each input column goes to. A column is whole
// 64-byte chunks, then 32 and 16 bytes as C needs. Columns past the input
// (the odd column past an odd width) are quads of the zero point, and the odd set's
// column 0, the padding column -1, is written once per call (zp_column). A few
// columns per step, so that the consume loop of the pair before, which steps once per
// output block, overlaps the builder's work with its dot products.
class PlaneBuilder {
 public:
  PlaneBuilder(int32_t zero_point, int C, int W, int OW, int64_t steps)
      : zp_row_(static_cast<size_t>(W) * C, static_cast<uint8_t>(zero_point)), C_(C), W_(W),
        columns_(2 * OW), per_step_(static_cast<int>((2 * OW + steps - 1) / steps)),
        next_(columns_) {}

  // The quads of the padding column: the zero point in every byte.
  void zp_column(uint8_t* const plane[4]) const {
    const uint8_t* const rows[4] = {zp_row_.data(), zp_row_.data(), zp_row_.data(), zp_row_.data()};
    column(rows, 0, plane, 0);
  }

  // planes[0]: the even set, planes[1]: the odd set.
  void start(const uint8_t* const rows[4], uint8_t* const planes[2][4]) {
    for (int s = 0; s < 4; ++s) rows_[s] = rows[s] != nullptr ? rows[s] : zp_row_.data();
    for (int par = 0; par < 2; ++par)
      for (int j = 0; j < 4; ++j) plane_[par][j] = planes[par][j];
    next_ = 0;
  }
  void step() {
    for (int i = 0; i < per_step_ && next_ < columns_; ++i) build(next_++);
  }
  void finish() {
    while (next_ < columns_) build(next_++);
  }

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
  void column(const uint8_t* const rows[4], int64_t at, uint8_t* const plane[4], int64_t to) const {
    int c = 0;
    for (; c + 64 <= C_; c += 64) quads<64>(rows, at + c, plane, to + c);
    if (c + 32 <= C_) {
      quads<32>(rows, at + c, plane, to + c);
      c += 32;
    }
    if (c < C_) quads<16>(rows, at + c, plane, to + c);
  }

  std::vector<uint8_t> zp_row_;
  int C_, W_;
  int columns_, per_step_;
  const uint8_t* rows_[4] = {};
  uint8_t* plane_[2][4] = {};
  int next_;  // the next input column (none before the first start)
};

// One set's three kernel columns for output block f (planes[0]: even, [1]: odd).
inline void columns_at(const uint8_t* const planes[2][4], int j, int64_t f, int C, __m512i v[3]) {
  v[0] = _mm512_loadu_si512(planes[1][j] + f);
  v[1] = _mm512_loadu_si512(planes[0][j] + f);
  v[2] = _mm512_loadu_si512(planes[1][j] + f + C);
}

// The output rows of a pair (PAIR; else its first row only) from set(oh) `first` and
// set(oh + 2) `second`: row oh weighs set(oh)'s quads, row oh + 1 the quads of rows
// 2 oh + 1 .. 2 oh + 4, which two shifts and an or form from both sets' quads.
template <bool PAIR, bool ROW, bool FBIAS>
void rows_out(const std::vector<Phase>& phases, const uint8_t* const first[2][4],
              const uint8_t* const second[2][4], int C, int64_t n, const Requant& rq,
              uint8_t* out, PlaneBuilder& next) {
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
        __m512i a[3];
        columns_at(first, j, f, C, a);
        acc[j] = ph.col[j];
        if constexpr (ROW)
          for (int kw = 0; kw < 3; ++kw) acc[j] = _mm512_dpbusd_epi32(acc[j], a[kw], ph.nz[j]);
        for (int kw = 0; kw < 3; ++kw) acc[j] = _mm512_dpbusd_epi32(acc[j], a[kw], w[kw][j]);
        if constexpr (PAIR) {
          __m512i b[3];
          columns_at(second, j, f, C, b);
          for (int kw = 0; kw < 3; ++kw)
            b[kw] = _mm512_or_si512(_mm512_srli_epi32(a[kw], 16), _mm512_slli_epi32(b[kw], 16));
          acc2[j] = ph.col[j];
          if constexpr (ROW)
            for (int kw = 0; kw < 3; ++kw) acc2[j] = _mm512_dpbusd_epi32(acc2[j], b[kw], ph.nz[j]);
          for (int kw = 0; kw < 3; ++kw) acc2[j] = _mm512_dpbusd_epi32(acc2[j], b[kw], w[kw][j]);
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
  const int C = g.out_channels, W = g.in[2];
  const int64_t n = int64_t{g.out[2]} * C;  // flat bytes of an output row
  const int np = depthwise_column_phases(C);
  const int8_t* columns = a.W + PackedDepthWiseConvMatrix::packedBytes(C, 9);
  const std::vector<Phase> phases = gather_phases<ROW, FBIAS>(natural, columns, C, np);
  // Three sets of eight planes, each n + C bytes (the odd planes' length) rounded up to
  // whole blocks, and a block more for the last block's loads at f + C. The bytes the
  // builder never writes: the odd planes' padding column, and the tails, which only
  // lanes past the row's end read.
  const int64_t stride = (n + C + 63) / 64 * 64 + 64;
  const aligned_unique_ptr<uint8_t> owned(
      static_cast<uint8_t*>(fbgemmAlignedAlloc(64, static_cast<size_t>(24 * stride), true)));
  PlaneBuilder builder(r.a_zero_point, C, W, g.out[2], (n + 63) / 64);
  uint8_t* planes[3][2][4];
  for (int k = 0; k < 3; ++k) {
    for (int par = 0; par < 2; ++par)
      for (int j = 0; j < 4; ++j) {
        planes[k][par][j] = owned.get() + ((k * 2 + par) * 4 + j) * stride;
        const int64_t end = n + par * C;
        std::memset(planes[k][par][j] + end, 0, static_cast<size_t>(stride - end));
      }
    builder.zp_column(planes[k][1]);
  }
  const auto start = [&](const SetTag& t, int slot) {
    const uint8_t* rows[4];
    set_rows(a, t, rows);
    builder.start(rows, planes[slot]);
  };
  const Requant rq = make_requant(r);
  const auto run = [&](int64_t row, bool pair, int s0, int s1) {
    uint8_t* out = a.C + row * n;
    if (pair) rows_out<true, ROW, FBIAS>(phases, planes[s0], planes[s1], C, n, rq, out, builder);
    else rows_out<false, ROW, FBIAS>(phases, planes[s0], planes[s0], C, n, rq, out, builder);
  };
  walk_set_pairs(
      a, start, [&] { builder.finish(); }, [](const SetTag*, const int*) {}, run);
}

}  // namespace

void depthwise_rows_s2_avx512vnni(const DepthwiseRowsArgs& a) {
  const Natural n = natural_params(*a.r, a.g->out_channels);
  with_row_and_bias(n, *a.r, [&]<bool ROW, bool FBIAS>() { rows_run<ROW, FBIAS>(a, n); });
}

}  // namespace quire::conv
