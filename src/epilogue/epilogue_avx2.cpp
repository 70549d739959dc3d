// AVX2 output-pipeline routines: 8 int32 lanes per ymm. Full vectors use plain loads
// and stores; block tails use maskload and exact-size stores. Formulas and conventions
// in quire/detail/Epilogue.h; every result is bit-identical to the portable routines
// (same operations in the same order, round half to even).
//
// The requantizations cut the block's columns into chunks of 8 and set up each chunk's
// per-column values (multipliers, zero-point and bias terms) once; then the rows stream
// through in memory order, one row of up to 256 columns (a panel) at a time. A
// contiguous block of 1, 2 or 4 columns (ld_in == ld_out == cols: N-wide GEMMs with many
// rows) is instead walked 8 elements at a time, several rows per vector, with the
// per-column values repeated across the vector.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "quire/detail/Epilogue.h"

namespace quire::detail {
namespace {

constexpr int kLanes = 8;

// The first n lanes of a vector (n in [1, 8]).
struct Lanes {
  int n;
  __m256i mask;  // all ones in lanes < n

  explicit Lanes(int count) : n(count < kLanes ? count : kLanes) {
    // A sliding window over {-1 x 8, 0 x 8}.
    alignas(64) static constexpr int32_t kTable[2 * kLanes] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                                                0,  0,  0,  0,  0,  0,  0,  0};
    mask = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kTable + kLanes - n));
  }
  bool full() const { return n == kLanes; }
};

__m256i load_i32(const int32_t* p, const Lanes& l) {
  return l.full() ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))
                  : _mm256_maskload_epi32(p, l.mask);
}

__m256 load_f32(const float* p, const Lanes& l) {
  return l.full() ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, l.mask);
}

// Stores the first l.n (< 8) lanes of v in exact-size pieces, never by one maskstore: in
// place (out == in), its 32-byte span would overlap the next row's first load, which
// then waits for the store to retire.
void store_partial_f32(float* p, const Lanes& l, __m256 v) {
  __m128 x = _mm256_castps256_ps128(v);
  if (l.n & 4) {
    _mm_storeu_ps(p, x);
    x = _mm256_extractf128_ps(v, 1);
    p += 4;
  }
  if (l.n & 2) {
    _mm_storel_pi(reinterpret_cast<__m64*>(p), x);
    x = _mm_movehl_ps(x, x);
    p += 2;
  }
  if (l.n & 1) _mm_store_ss(p, x);
}

// Small enough to inline into the loops; the partial case is out of line.
void store_f32(float* p, const Lanes& l, __m256 v) {
  if (l.full())
    _mm256_storeu_ps(p, v);
  else
    store_partial_f32(p, l, v);
}

void store_i32(int32_t* p, const Lanes& l, __m256i v) {
  store_f32(reinterpret_cast<float*>(p), l, _mm256_castsi256_ps(v));
}

// Where the quantization groups of a chunk of n columns starting at block column c0 are.
struct ChunkGroups {
  enum Kind { one_group, per_column, mixed } kind;
  int q0;       // group of the first column
  __m256i idx;  // mixed: group of each lane
};

ChunkGroups chunk_groups(const ZeroPointCorrection& zp, int c0, int n) {
  const int j0 = zp.col_start + c0;
  const int cpg = zp.cols_per_group;
  if (cpg == 1) return {ChunkGroups::per_column, j0, _mm256_setzero_si256()};
  const int q0 = j0 / cpg;
  if ((j0 + n - 1) / cpg == q0) return {ChunkGroups::one_group, q0, _mm256_setzero_si256()};
  // The chunk straddles a group boundary (groups narrower than 8 columns, or a chunk
  // across the edge of a wider one): list each lane's group, once per chunk.
  alignas(32) int32_t idx[kLanes] = {};
  int q = q0;
  int pos = j0 - q0 * cpg;
  for (int lane = 0; lane < n; ++lane) {
    idx[lane] = q;
    if (++pos == cpg) {
      pos = 0;
      ++q;
    }
  }
  return {ChunkGroups::mixed, q0, _mm256_load_si256(reinterpret_cast<const __m256i*>(idx))};
}

// Lane i = a[q(c0 + i)] for a per-group array (0 in lanes past l.n).
__m256 group_ps(const float* a, const ChunkGroups& g, const Lanes& l) {
  switch (g.kind) {
    case ChunkGroups::per_column:
      return load_f32(a + g.q0, l);
    case ChunkGroups::one_group:
      return _mm256_set1_ps(a[g.q0]);
    case ChunkGroups::mixed:
      break;
  }
  return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), a, g.idx, _mm256_castsi256_ps(l.mask),
                                  4);
}

__m256i group_epi32(const int32_t* a, const ChunkGroups& g, const Lanes& l) {
  switch (g.kind) {
    case ChunkGroups::per_column:
      return load_i32(a + g.q0, l);
    case ChunkGroups::one_group:
      return _mm256_set1_epi32(a[g.q0]);
    case ChunkGroups::mixed:
      break;
  }
  return _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), a, g.idx, l.mask, 4);
}

// The low bytes of the 8 lanes of v (all in [0, 255]) as 8 consecutive bytes: packus
// 32 -> 16 -> 8 works within 128-bit halves, so the halves' 4 bytes are joined after.
__m128i narrow_u8(__m256i v) {
  __m256i p = _mm256_packus_epi32(v, v);
  p = _mm256_packus_epi16(p, p);
  return _mm_unpacklo_epi32(_mm256_castsi256_si128(p), _mm256_extracti128_si256(p, 1));
}

// Stores the first n (< 8) bytes of `bytes` with fixed-size moves.
void store_bytes(uint8_t* out, int n, __m128i bytes) {
  auto word = static_cast<uint64_t>(_mm_cvtsi128_si64(bytes));
  if (n & 4) {
    const auto w = static_cast<uint32_t>(word);
    std::memcpy(out, &w, 4);
    word >>= 32;
    out += 4;
  }
  if (n & 2) {
    const auto w = static_cast<uint16_t>(word);
    std::memcpy(out, &w, 2);
    word >>= 16;
    out += 2;
  }
  if (n & 1) *out = static_cast<uint8_t>(word);
}

// Requantization of raw values to uint8 (see RequantizeU8Args):
// x = (float)raw [+ fbias] * mult, clamped to [lo - c_zp, 255 - c_zp] in float (as in
// round_to_u8), then rounded half to even and shifted by c_zp into [lo, 255].
class ToU8 {
 public:
  using OutT = uint8_t;
  struct Columns {  // per-column values of one chunk
    __m256 mult, fbias;
  };

  explicit ToU8(const RequantizeU8Args& a)
      : a_(a),
        x_lo_(_mm256_set1_ps(static_cast<float>((a.fuse_relu ? a.c_zero_point : 0) -
                                                a.c_zero_point))),
        x_hi_(_mm256_set1_ps(static_cast<float>(255 - a.c_zero_point))),
        c_zp_(_mm256_set1_epi32(a.c_zero_point)),
        float_bias_(a.bias_kind == BiasKind::float32) {}

  Columns columns(const ChunkGroups& g, int c0, const Lanes& l) const {
    // Lanes past l.n divide 0 by 0; their NaN is never stored.
    return {group_ps(a_.multiplier, g, l),
            float_bias_ ? _mm256_div_ps(load_f32(a_.bias_f32 + c0, l),
                                        group_ps(a_.act_times_w_scale, g, l))
                        : _mm256_setzero_ps()};
  }
  static Columns permute(const Columns& c, __m256i idx) {
    return {_mm256_permutevar8x32_ps(c.mult, idx), _mm256_permutevar8x32_ps(c.fbias, idx)};
  }
  void store(uint8_t* out, const Lanes& l, __m256i raw, const Columns& c) const {
    __m256 x = _mm256_cvtepi32_ps(raw);
    if (float_bias_) x = _mm256_add_ps(x, c.fbias);
    x = _mm256_mul_ps(x, c.mult);
    x = _mm256_max_ps(_mm256_min_ps(x, x_hi_), x_lo_);
    const __m128i bytes = narrow_u8(_mm256_add_epi32(_mm256_cvtps_epi32(x), c_zp_));
    if (l.full())
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out), bytes);
    else
      store_bytes(out, l.n, bytes);
  }

 private:
  const RequantizeU8Args& a_;
  __m256 x_lo_, x_hi_;
  __m256i c_zp_;
  bool float_bias_;
};

// Requantization of raw values to float (see RequantizeF32Args).
class ToF32 {
 public:
  using OutT = float;
  struct Columns {  // per-column values of one chunk
    __m256 scale, bias;
  };

  explicit ToF32(const RequantizeF32Args& a) : a_(a) {}

  Columns columns(const ChunkGroups& g, int c0, const Lanes& l) const {
    return {_mm256_mul_ps(_mm256_set1_ps(a_.a_scale), group_ps(a_.b_scale, g, l)),
            a_.bias != nullptr ? load_f32(a_.bias + c0, l) : _mm256_setzero_ps()};
  }
  static Columns permute(const Columns& c, __m256i idx) {
    return {_mm256_permutevar8x32_ps(c.scale, idx), _mm256_permutevar8x32_ps(c.bias, idx)};
  }
  void store(float* out, const Lanes& l, __m256i raw, const Columns& c) const {
    __m256 x = _mm256_mul_ps(_mm256_cvtepi32_ps(raw), c.scale);
    if (a_.bias != nullptr) x = _mm256_add_ps(x, c.bias);
    if (a_.fuse_relu) x = _mm256_max_ps(x, _mm256_setzero_ps());
    store_f32(out, l, x);
  }

 private:
  const RequantizeF32Args& a_;
};

// Everything a chunk of 8 columns needs, set up once per call:
//   raw = in + col_term - b_zp * row_offset,   then Out's per-column values.
template <class Out>
struct Chunk {
  __m256i col_term;  // bias_i32[c] - a_zero_point * col_offsets[c] (modulo 2^32)
  __m256i b_zp;      // b_zero_point[q(c)], or 0 when there is no row term
  typename Out::Columns cols;
};

template <class Out>
Chunk<Out> make_chunk(const ZeroPointCorrection& zp, const Out& o, const int32_t* bias_i32,
                      int c0, const Lanes& l) {
  const ChunkGroups g = chunk_groups(zp, c0, l.n);
  Chunk<Out> ch;
  ch.col_term = bias_i32 != nullptr ? load_i32(bias_i32 + c0, l) : _mm256_setzero_si256();
  if (zp.col_offsets != nullptr) {
    const __m256i col = load_i32(zp.col_offsets + c0, l);
    ch.col_term = _mm256_sub_epi32(
        ch.col_term, _mm256_mullo_epi32(_mm256_set1_epi32(zp.a_zero_point), col));
  }
  ch.b_zp = zp.row_offsets != nullptr ? group_epi32(zp.b_zero_point, g, l)
                                      : _mm256_setzero_si256();
  ch.cols = o.columns(g, c0, l);
  return ch;
}

// How the row term b_zero_point[q] * row_offsets[r] is formed: absent (symmetric B),
// one zero point for all the columns (a scalar product per row), or one per lane.
enum class RowTerm { none, one_group, per_lane };

// Columns per panel: the chunks' values (4 KB at most) stay in L1 while the panel's rows
// stream through in memory order. (Walking a chunk down all rows instead would stride
// by ld, which thrashes L1 sets when ld is a power of two.)
constexpr int kPanelChunks = 32;

template <RowTerm kRow, class Out>
void panel_rows(const Out& o, const Chunk<Out>* chunks, int nchunks, const Lanes& last,
                const int32_t* in, int64_t ld_in, typename Out::OutT* out, int64_t ld_out,
                int rows, const int32_t* row_offsets, int32_t b_zp1) {
  const Lanes all(kLanes);
  for (int r = 0; r < rows; ++r, in += ld_in, out += ld_out) {
    __m256i row_term = _mm256_setzero_si256();
    if constexpr (kRow == RowTerm::one_group)
      row_term = _mm256_set1_epi32(wrapping_mul(b_zp1, row_offsets[r]));
    else if constexpr (kRow == RowTerm::per_lane)
      row_term = _mm256_set1_epi32(row_offsets[r]);
    for (int k = 0; k < nchunks; ++k) {
      const Lanes& l = k + 1 < nchunks ? all : last;
      const Chunk<Out>& ch = chunks[k];
      __m256i raw = _mm256_add_epi32(load_i32(in + k * kLanes, l), ch.col_term);
      if constexpr (kRow == RowTerm::one_group)
        raw = _mm256_sub_epi32(raw, row_term);
      else if constexpr (kRow == RowTerm::per_lane)
        raw = _mm256_sub_epi32(raw, _mm256_mullo_epi32(ch.b_zp, row_term));
      o.store(out + k * kLanes, l, raw, ch.cols);
    }
  }
}

// Several rows per vector over a contiguous block of `cols` columns (cols divides 8):
// lane l holds column l % cols of row l / cols, and ch is permuted so.
template <bool kRowTerm, class Out>
void packed_rows(const Out& o, const Chunk<Out>& ch, int cols, const int32_t* in,
                 typename Out::OutT* out, int rows, const int32_t* row_offsets) {
  const int rows_per_vec = kLanes / cols;
  alignas(32) int32_t row_of_lane[kLanes];
  for (int lane = 0; lane < kLanes; ++lane) row_of_lane[lane] = lane / cols;
  const __m256i row_idx = _mm256_load_si256(reinterpret_cast<const __m256i*>(row_of_lane));
  // nr rows from row r, in the first nr * cols lanes.
  auto step = [&](int r, int nr, const Lanes& l) {
    const int64_t e = int64_t{r} * cols;
    __m256i raw = _mm256_add_epi32(load_i32(in + e, l), ch.col_term);
    if constexpr (kRowTerm) {
      const __m256i ro = _mm256_permutevar8x32_epi32(
          _mm256_maskload_epi32(row_offsets + r, Lanes(nr).mask), row_idx);
      raw = _mm256_sub_epi32(raw, _mm256_mullo_epi32(ch.b_zp, ro));
    }
    o.store(out + e, l, raw, ch.cols);
  };
  const Lanes all(kLanes);
  int r = 0;
  for (; r + rows_per_vec <= rows; r += rows_per_vec) step(r, rows_per_vec, all);
  if (r < rows) step(r, rows - r, Lanes((rows - r) * cols));
}

// The walk shared by both requantizations; Out is ToU8 or ToF32.
template <class Out, class Args>
void requantize(const Args& a, const int32_t* bias_i32) {
  const ZeroPointCorrection& zp = a.zp;
  const Out o(a);
  const bool contiguous = a.ld_in == a.cols && a.ld_out == a.cols;
  if (contiguous && a.cols < kLanes && kLanes % a.cols == 0 && a.rows > 1) {
    alignas(32) int32_t col_of_lane[kLanes];
    for (int lane = 0; lane < kLanes; ++lane) col_of_lane[lane] = lane % a.cols;
    const __m256i idx = _mm256_load_si256(reinterpret_cast<const __m256i*>(col_of_lane));
    Chunk<Out> ch = make_chunk(zp, o, bias_i32, 0, Lanes(a.cols));
    ch.col_term = _mm256_permutevar8x32_epi32(ch.col_term, idx);
    ch.b_zp = _mm256_permutevar8x32_epi32(ch.b_zp, idx);
    ch.cols = Out::permute(ch.cols, idx);
    if (zp.row_offsets != nullptr)
      packed_rows<true>(o, ch, a.cols, a.in, a.out, a.rows, zp.row_offsets);
    else
      packed_rows<false>(o, ch, a.cols, a.in, a.out, a.rows, zp.row_offsets);
    return;
  }
  for (int p0 = 0; p0 < a.cols; p0 += kPanelChunks * kLanes) {
    const int pcols = a.cols - p0 < kPanelChunks * kLanes ? a.cols - p0 : kPanelChunks * kLanes;
    const int nchunks = (pcols + kLanes - 1) / kLanes;
    Chunk<Out> chunks[kPanelChunks];
    for (int k = 0; k < nchunks; ++k) {
      const int c0 = p0 + k * kLanes;
      chunks[k] = make_chunk(zp, o, bias_i32, c0, Lanes(a.cols - c0));
    }
    const Lanes last(pcols - (nchunks - 1) * kLanes);
    const int32_t* in = a.in + p0;
    auto* out = a.out + p0;
    const int j0 = zp.col_start + p0;
    const int q0 = j0 / zp.cols_per_group;
    if (zp.row_offsets == nullptr)
      panel_rows<RowTerm::none>(o, chunks, nchunks, last, in, a.ld_in, out, a.ld_out, a.rows,
                                zp.row_offsets, 0);
    else if ((j0 + pcols - 1) / zp.cols_per_group == q0)
      panel_rows<RowTerm::one_group>(o, chunks, nchunks, last, in, a.ld_in, out, a.ld_out,
                                     a.rows, zp.row_offsets, zp.b_zero_point[q0]);
    else
      panel_rows<RowTerm::per_lane>(o, chunks, nchunks, last, in, a.ld_in, out, a.ld_out,
                                    a.rows, zp.row_offsets, 0);
  }
}

void requantize_u8(const RequantizeU8Args& a) {
  requantize<ToU8>(a, a.bias_kind == BiasKind::int32 ? a.bias_i32 : nullptr);
}

void requantize_f32(const RequantizeF32Args& a) { requantize<ToF32>(a, nullptr); }

// Applies op to every element, 8 lanes at a time; the row's last partial vector masked.
template <class Op>
void map_i32(const Int32MapArgs& a, Op op) {
  for (int r = 0; r < a.rows; ++r) {
    const int32_t* in = a.in + r * a.ld_in;
    int32_t* out = a.out + r * a.ld_out;
    for (int c0 = 0; c0 < a.cols; c0 += kLanes) {
      const Lanes l(a.cols - c0);
      store_i32(out + c0, l, op(load_i32(in + c0, l)));
    }
  }
}

void copy_i32(const Int32MapArgs& a) {
  map_i32(a, [](__m256i v) { return v; });
}

void scale_i32(const Int32MapArgs& a) {
  const __m256i s = _mm256_set1_epi32(a.value);
  map_i32(a, [s](__m256i v) { return _mm256_mullo_epi32(v, s); });
}

void relu_i32(const Int32MapArgs& a) {
  const __m256i floor = _mm256_set1_epi32(a.value);
  map_i32(a, [floor](__m256i v) { return _mm256_max_epi32(v, floor); });
}

}  // namespace

const EpilogueTable kEpilogueAvx2 = {requantize_u8, requantize_f32, copy_i32, scale_i32,
                                     relu_i32};

}  // namespace quire::detail
