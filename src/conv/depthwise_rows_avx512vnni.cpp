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
#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "common/intrinsics.h"
#include "conv/depthwise_layout.h"
#include "conv/depthwise_rows.h"
#include "quire/Depthwise.h"
#include "quire/Utils.h"

namespace quire::conv {
namespace {

// One phase's lane parameters (chunk j covers bytes 16 L + 4 j + d of the block).
struct alignas(64) Phase {
  __m512i w[2][3][4];  // [row of the pair][kw][j]: [w0, w1, w2, z], [z, w0, w1, w2]
  __m512i nz[4];       // [-z, -z, -z, -z]
  __m512i col[4];      // col_term
  __m512 mult[4], fbias[4];
};

// The requantization parameters per channel, natural order, 16 channels per step: the
// formulas of ChannelParams (direct_params.cpp), with int32 arithmetic modulo 2^32.
struct Natural {
  std::vector<int32_t> col, z3, nz;
  std::vector<float> mult, fbias;
  bool any_zp = false;
};

Natural natural_params(const detail::DirectRequant& r, int C) {
  Natural n;
  n.col.resize(C);
  n.z3.resize(C);
  n.nz.resize(C);
  n.mult.resize(C);
  n.fbias.resize(C);
  const bool per_channel = r.channels_per_q == 1;
  const __m512i a_zp = _mm512_set1_epi32(r.a_zero_point);
  __m512i any = _mm512_setzero_si512();
  for (int c = 0; c < C; c += 16) {
    const int q = per_channel ? c : 0;
    const auto ld = [&](const int32_t* p, int i) {
      return per_channel ? _mm512_loadu_si512(p + i) : _mm512_set1_epi32(p[0]);
    };
    const auto ldf = [&](const float* p, int i) {
      return per_channel ? _mm512_loadu_ps(p + i) : _mm512_set1_ps(p[0]);
    };
    __m512i col = r.bias_kind == detail::BiasKind::int32 ? _mm512_loadu_si512(r.bias_i32 + c)
                                                         : _mm512_setzero_si512();
    if (r.col_offsets != nullptr)
      col = _mm512_sub_epi32(col, _mm512_mullo_epi32(a_zp, _mm512_loadu_si512(r.col_offsets + c)));
    const __m512i z = ld(r.b_zero_point, q);
    any = _mm512_or_si512(any, z);
    const __m512i nz = _mm512_mullo_epi32(
        _mm512_and_si512(_mm512_sub_epi32(_mm512_setzero_si512(), z), _mm512_set1_epi32(0xff)),
        _mm512_set1_epi32(0x01010101));
    _mm512_storeu_si512(n.z3.data() + c, _mm512_slli_epi32(z, 24));
    _mm512_storeu_si512(n.col.data() + c, col);
    _mm512_storeu_si512(n.nz.data() + c, nz);
    _mm512_storeu_ps(n.mult.data() + c, ldf(r.c_multiplier, q));
    const __m512 fbias =
        r.bias_kind == detail::BiasKind::float32
            ? _mm512_div_ps(_mm512_loadu_ps(r.bias_f32 + c), ldf(r.act_times_w_scale, q))
            : _mm512_setzero_ps();
    _mm512_storeu_ps(n.fbias.data() + c, fbias);
  }
  n.any_zp = _mm512_test_epi32_mask(any, any) != 0;
  return n;
}

// Chunk j's lane (L, d) gets v[16 group[L] + 4 j + d], for j = 0..3: four 16-byte
// pieces per chunk, or when the groups are consecutive (C a multiple of 64) a transpose
// of the 128-bit lanes of four vectors.
template <class T>
void lanes(const T* v, const int group[4], __m512i out[4]) {
  const auto at = [&](int L) { return reinterpret_cast<const int32_t*>(v + 16 * group[L]); };
  if (group[1] == group[0] + 1 && group[2] == group[0] + 2 && group[3] == group[0] + 3) {
    __m512i x[4];
    for (int L = 0; L < 4; ++L) x[L] = _mm512_loadu_si512(at(L));
    const __m512i lo01 = _mm512_shuffle_i32x4(x[0], x[1], 0x44);
    const __m512i lo23 = _mm512_shuffle_i32x4(x[2], x[3], 0x44);
    const __m512i hi01 = _mm512_shuffle_i32x4(x[0], x[1], 0xee);
    const __m512i hi23 = _mm512_shuffle_i32x4(x[2], x[3], 0xee);
    out[0] = _mm512_shuffle_i32x4(lo01, lo23, 0x88);
    out[1] = _mm512_shuffle_i32x4(lo01, lo23, 0xdd);
    out[2] = _mm512_shuffle_i32x4(hi01, hi23, 0x88);
    out[3] = _mm512_shuffle_i32x4(hi01, hi23, 0xdd);
    return;
  }
  for (int j = 0; j < 4; ++j) {
    const auto piece = [&](int L) {
      return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at(L) + 4 * j));
    };
    __m512i x = _mm512_castsi128_si512(piece(0));
    x = _mm512_inserti32x4(x, piece(1), 1);
    x = _mm512_inserti32x4(x, piece(2), 2);
    out[j] = _mm512_inserti32x4(x, piece(3), 3);
  }
}

// The weights of kernel column kw (depthwise_layout.h) carry z in their free byte.
template <bool ROW, bool FBIAS>
std::vector<Phase> gather_phases(const Natural& n, const int8_t* columns, int C, int phases) {
  std::vector<Phase> ph(phases);
  for (int p = 0; p < phases; ++p) {
    int group[4];  // the 16-channel group of each lane
    for (int L = 0; L < 4; ++L) group[L] = (64 * p + 16 * L) % C / 16;
    __m512i z3[4] = {}, mult[4];
    if constexpr (ROW) {
      lanes(n.z3.data(), group, z3);
      lanes(n.nz.data(), group, ph[p].nz);
    }
    lanes(n.col.data(), group, ph[p].col);
    lanes(n.mult.data(), group, mult);
    if constexpr (FBIAS) {
      __m512i fbias[4];
      lanes(n.fbias.data(), group, fbias);
      for (int j = 0; j < 4; ++j) ph[p].fbias[j] = _mm512_castsi512_ps(fbias[j]);
    }
    for (int j = 0; j < 4; ++j) {
      ph[p].mult[j] = _mm512_castsi512_ps(mult[j]);
      for (int kw = 0; kw < 3; ++kw) {
        const __m512i w =
            _mm512_or_si512(_mm512_load_si512(columns + depthwise_column_index(p, kw, j)), z3[j]);
        ph[p].w[0][kw][j] = w;
        ph[p].w[1][kw][j] = _mm512_rol_epi32(w, 8);
      }
    }
  }
  return ph;
}

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
    const __m512i u0 = _mm512_unpacklo_epi8(x[0], x[1]), u1 = _mm512_unpackhi_epi8(x[0], x[1]);
    const __m512i v0 = _mm512_unpacklo_epi8(x[2], x[3]), v1 = _mm512_unpackhi_epi8(x[2], x[3]);
    _mm512_storeu_si512(plane_[0] + f_, _mm512_unpacklo_epi16(u0, v0));
    _mm512_storeu_si512(plane_[1] + f_, _mm512_unpackhi_epi16(u0, v0));
    _mm512_storeu_si512(plane_[2] + f_, _mm512_unpacklo_epi16(u1, v1));
    _mm512_storeu_si512(plane_[3] + f_, _mm512_unpackhi_epi16(u1, v1));
    f_ += 64;
  }

  __m512i zp_;
  const uint8_t* rows_[4] = {};
  uint8_t* plane_[4] = {};
  int64_t f_ = 0, n_ = 0;
};

struct Requant {
  __m512 hi;
  __m512i zp16;
  __m512i lo8;
};

// 64 output bytes from an accumulator per chunk: ChannelRequant's formula; the in-lane
// packs restore byte order.
template <bool FBIAS>
__m512i requantize(const __m512i acc[4], const Phase& ph, const Requant& rq) {
  __m512i y[4];
  for (int j = 0; j < 4; ++j) {
    __m512 x = _mm512_cvtepi32_ps(acc[j]);
    if constexpr (FBIAS) x = _mm512_add_ps(x, ph.fbias[j]);
    // min(product, hi): NaN becomes hi, as in the reference.
    y[j] = _mm512_cvtps_epi32(_mm512_min_ps(_mm512_mul_ps(x, ph.mult[j]), rq.hi));
  }
  // The lower bound comes from the saturating packs (below 0 after adding the zero
  // point) and, with ReLU, the byte max with the zero point.
  const __m512i p01 = _mm512_add_epi16(_mm512_packs_epi32(y[0], y[1]), rq.zp16);
  const __m512i p23 = _mm512_add_epi16(_mm512_packs_epi32(y[2], y[3]), rq.zp16);
  return _mm512_max_epu8(_mm512_packus_epi16(p01, p23), rq.lo8);
}

void store_block(uint8_t* out, int64_t left, __m512i b) {
  if (left >= 64)
    _mm512_storeu_si512(out, b);
  else
    _mm512_mask_storeu_epi8(out, (1ull << left) - 1, b);
}

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
  const int C = g.out_channels, H = g.in[1], OH = g.out[1];
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
  // ChannelRequant's bounds: x_hi = 255 - c_zp; the lower one, c_zp with ReLU, 0
  // without, after adding the zero point.
  Requant rq;
  rq.hi = _mm512_set1_ps(static_cast<float>(255 - r.c_zero_point));
  rq.zp16 = _mm512_set1_epi16(static_cast<int16_t>(r.c_zero_point));
  rq.lo8 = _mm512_set1_epi8(static_cast<char>(r.fuse_relu ? r.c_zero_point : 0));
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
  PlaneBuilder builder(r.a_zero_point);
  const uint8_t* rows[4];
  bool pair = pair_at(a.row_begin, rows);
  builder.start(rows, n, plane[0]);
  builder.finish();
  int k = 0;
  for (int64_t row = a.row_begin; row < a.row_end; k ^= 1) {
    const int64_t next = row + (pair ? 2 : 1);
    const bool next_pair = next < a.row_end && pair_at(next, rows);
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
  const bool row = n.any_zp, fbias = a.r->bias_kind == detail::BiasKind::float32;
  if (row && fbias) rows_run<true, true>(a, n);
  else if (row) rows_run<true, false>(a, n);
  else if (fbias) rows_run<false, true>(a, n);
  else rows_run<false, false>(a, n);
}

}  // namespace quire::conv
