// The vectorized output-pipeline routines, written once over the vector vocabulary V
// (Avx2 in simd/vec_avx2.h, Avx512 in simd/vec_avx512.h) and compiled in each ISA's
// translation unit, which builds its table with make_epilogue_table<V>(). Formulas and conventions in quire/detail/Epilogue.h; every
// result is bit-identical to the portable routines (same operations in the same order,
// round half to even).
//
// The requantizations cut the block's columns into chunks of V::W and set up each chunk's
// per-column values (multipliers, zero-point and bias terms) once; then the rows stream
// through in memory order, one row of up to 256 columns (a panel) at a time. A contiguous
// block of fewer columns than V::W, dividing it (ld_in == ld_out == cols: N-wide GEMMs
// with many rows), is instead walked V::W elements at a time, several rows per vector,
// with the per-column values repeated across the vector. A block of 1..4 rows (small M)
// makes each chunk's values and uses them at once, storing none.
//
// Internal linkage throughout (see simd/vec_avx2.h).
#pragma once

#include <cstdint>

#include "epilogue/epilogue_table.h"
#include "simd/requantize.h"

namespace quire::detail {
namespace {

template <class V>
struct EpilogueKernels {
  using F = typename V::F;
  using I = typename V::I;
  using Lanes = typename V::Lanes;
  static constexpr int W = V::W;

  // Where the quantization groups of a chunk of n columns starting at block column c0 are.
  struct ChunkGroups {
    enum Kind { one_group, per_column, mixed } kind;
    int q0;  // group of the first column
    I idx;   // mixed: group of each lane
  };

  static ChunkGroups chunk_groups(const ZeroPointCorrection& zp, int c0, int n) {
    const int j0 = zp.col_start + c0;
    const int cpg = zp.cols_per_group;
    if (cpg == 1) return {ChunkGroups::per_column, j0, V::set1i(0)};
    const int q0 = j0 / cpg;
    if ((j0 + n - 1) / cpg == q0) return {ChunkGroups::one_group, q0, V::set1i(0)};
    // The chunk straddles a group boundary (groups narrower than W columns, or a chunk
    // across the edge of a wider one): list each lane's group, once per chunk.
    alignas(64) int32_t idx[W] = {};
    int q = q0;
    int pos = j0 - q0 * cpg;
    for (int lane = 0; lane < n; ++lane) {
      idx[lane] = q;
      if (++pos == cpg) {
        pos = 0;
        ++q;
      }
    }
    return {ChunkGroups::mixed, q0, V::lane_pattern(idx)};
  }

  // Lane i = a[q(c0 + i)] for a per-group array of float or int32 (0 in lanes past l.n).
  template <class T>
  static auto group(const T* a, const ChunkGroups& g, const Lanes& l) {
    switch (g.kind) {
      case ChunkGroups::per_column:
        return V::load(a + g.q0, l);
      case ChunkGroups::one_group:
        return V::broadcast(a[g.q0]);
      case ChunkGroups::mixed:
        break;
    }
    return V::gather(a, g.idx, l);
  }

  // Requantization of raw values to uint8 (see RequantizeU8Args): RequantizeStep of
  // x = (float)raw [+ fbias] and mult into [lo, 255], both bounds in float (the same as
  // round_to_u8): x_lo_ = lo - c_zp, x_hi_ = 255 - c_zp.
  class ToU8 {
   public:
    using OutT = uint8_t;
    struct Columns {  // per-column values of one chunk
      F mult, fbias;
    };

    explicit ToU8(const RequantizeU8Args& a)
        : a_(a),
          x_lo_(V::set1f(static_cast<float>((a.fuse_relu ? a.c_zero_point : 0) -
                                            a.c_zero_point))),
          x_hi_(V::set1f(static_cast<float>(255 - a.c_zero_point))),
          c_zp_(V::set1i(a.c_zero_point)),
          float_bias_(a.bias_kind == BiasKind::float32) {}

    Columns columns(const ChunkGroups& g, int c0, const Lanes& l) const {
      // Lanes past l.n divide 0 by 0; their NaN is never stored.
      return {group(a_.multiplier, g, l),
              float_bias_ ? V::div(V::load(a_.bias_f32 + c0, l), group(a_.act_times_w_scale, g, l))
                          : V::set1f(0.0f)};
    }
    static Columns permute(const Columns& c, I idx) {
      return {V::permute(c.mult, idx), V::permute(c.fbias, idx)};
    }
    void store(uint8_t* out, const Lanes& l, I raw, const Columns& c) const {
      F x = V::cvtif(raw);
      if (float_bias_) x = V::add(x, c.fbias);
      V::store(out, l, RequantizeStep<V>::apply(x, c.mult, x_hi_, x_lo_, c_zp_));
    }

   private:
    const RequantizeU8Args& a_;
    F x_lo_, x_hi_;
    I c_zp_;
    bool float_bias_;
  };

  // Requantization of raw values to float (see RequantizeF32Args).
  class ToF32 {
   public:
    using OutT = float;
    struct Columns {  // per-column values of one chunk
      F scale, bias;
    };

    explicit ToF32(const RequantizeF32Args& a) : a_(a) {}

    Columns columns(const ChunkGroups& g, int c0, const Lanes& l) const {
      return {V::mul(V::set1f(a_.a_scale), group(a_.b_scale, g, l)),
              a_.bias != nullptr ? V::load(a_.bias + c0, l) : V::set1f(0.0f)};
    }
    static Columns permute(const Columns& c, I idx) {
      return {V::permute(c.scale, idx), V::permute(c.bias, idx)};
    }
    void store(float* out, const Lanes& l, I raw, const Columns& c) const {
      F x = V::mul(V::cvtif(raw), c.scale);
      if (a_.bias != nullptr) x = V::add(x, c.bias);
      if (a_.fuse_relu) x = V::max(x, V::set1f(0.0f));
      V::store(out, l, x);
    }

   private:
    const RequantizeF32Args& a_;
  };

  // Everything a chunk of W columns needs, set up once per call:
  //   raw = in + col_term - b_zp * row_offset,   then Out's per-column values.
  template <class Out>
  struct Chunk {
    I col_term;  // bias_i32[c] - a_zero_point * col_offsets[c] (modulo 2^32)
    I b_zp;      // b_zero_point[q(c)], or 0 when there is no row term
    typename Out::Columns cols;
  };

  template <class Out>
  static Chunk<Out> make_chunk(const ZeroPointCorrection& zp, const Out& o,
                               const int32_t* bias_i32, int c0, const Lanes& l) {
    const ChunkGroups g = chunk_groups(zp, c0, l.n);
    Chunk<Out> ch;
    ch.col_term = bias_i32 != nullptr ? V::load(bias_i32 + c0, l) : V::set1i(0);
    if (zp.col_offsets != nullptr) {
      const I col = V::load(zp.col_offsets + c0, l);
      ch.col_term = V::subi(ch.col_term, V::mullo(V::set1i(zp.a_zero_point), col));
    }
    ch.b_zp = zp.row_offsets != nullptr ? group(zp.b_zero_point, g, l) : V::set1i(0);
    ch.cols = o.columns(g, c0, l);
    return ch;
  }

  // How the row term b_zero_point[q] * row_offsets[r] is formed: absent (symmetric B),
  // one zero point for all the columns (a scalar product per row), or one per lane.
  enum class RowTerm { none, one_group, per_lane };

  // Columns per panel: the chunks' values (4 KB at most) stay in L1 while the panel's
  // rows stream through in memory order. (Walking a chunk down all rows instead would
  // stride by ld, which thrashes L1 sets when ld is a power of two.)
  static constexpr int kPanelChunks = 256 / W;

  template <RowTerm kRow, class Out>
  static void panel_rows(const Out& o, const Chunk<Out>* chunks, int nchunks,
                         const Lanes& last, const int32_t* in, int64_t ld_in,
                         typename Out::OutT* out, int64_t ld_out, int rows,
                         const int32_t* row_offsets, int32_t b_zp1) {
    const Lanes all(W);
    for (int r = 0; r < rows; ++r, in += ld_in, out += ld_out) {
      I row_term = V::set1i(0);
      if constexpr (kRow == RowTerm::one_group)
        row_term = V::set1i(wrapping_mul(b_zp1, row_offsets[r]));
      else if constexpr (kRow == RowTerm::per_lane)
        row_term = V::set1i(row_offsets[r]);
      for (int k = 0; k < nchunks; ++k) {
        const Lanes& l = k + 1 < nchunks ? all : last;
        const Chunk<Out>& ch = chunks[k];
        I raw = V::addi(V::load(in + k * W, l), ch.col_term);
        if constexpr (kRow == RowTerm::one_group)
          raw = V::subi(raw, row_term);
        else if constexpr (kRow == RowTerm::per_lane)
          raw = V::subi(raw, V::mullo(ch.b_zp, row_term));
        o.store(out + k * W, l, raw, ch.cols);
      }
    }
  }

  // Several rows per vector over a contiguous block of `cols` columns (cols divides W):
  // lane l holds column l % cols of row l / cols, and ch is permuted so.
  template <bool kRowTerm, class Out>
  static void packed_rows(const Out& o, const Chunk<Out>& ch, int cols, const int32_t* in,
                          typename Out::OutT* out, int rows, const int32_t* row_offsets) {
    const int rows_per_vec = W / cols;
    alignas(64) int32_t row_of_lane[W];
    for (int lane = 0; lane < W; ++lane) row_of_lane[lane] = lane / cols;
    const I row_idx = V::lane_pattern(row_of_lane);
    // The elements of rows r .. r + nr - 1 in the lanes of l, their row offsets in the
    // lanes of row_lanes (nr of them).
    auto step = [&](int r, const Lanes& l, const Lanes& row_lanes) {
      const int64_t e = int64_t{r} * cols;
      I raw = V::addi(V::load(in + e, l), ch.col_term);
      if constexpr (kRowTerm) {
        const I ro = V::permute(V::load(row_offsets + r, row_lanes), row_idx);
        raw = V::subi(raw, V::mullo(ch.b_zp, ro));
      }
      o.store(out + e, l, raw, ch.cols);
    };
    const Lanes all(W), all_rows(rows_per_vec);
    int r = 0;
    for (; r + rows_per_vec <= rows; r += rows_per_vec) step(r, all, all_rows);
    if (r < rows) step(r, Lanes((rows - r) * cols), Lanes(rows - r));
  }

  // A block of kRows <= 4 rows (M = 1..4 calls, the tail tiles of larger ones): each
  // chunk's values are made and used at once instead of being stored for a panel first
  // (measured on Zen 4: 1x1024x256 u8 whole calls 6-11% faster, 4x256x256 7%).
  template <int kRows, class Out, class Args>
  static void few_rows(const Args& args, const int32_t* bias_i32) {
    // Local copies: the byte stores could otherwise alias the arguments, and every chunk
    // would load them and take their branches again.
    const Args a = args;
    const Out o(a);
    if (a.zp.row_offsets != nullptr) few_rows_walk<kRows, true>(o, a, bias_i32);
    else few_rows_walk<kRows, false>(o, a, bias_i32);
  }

  // The whole chunks in a loop of their own (no lane masks), then the partial one.
  template <int kRows, bool kRowTerm, class Out, class Args>
  static void few_rows_walk(const Out& o, const Args& a, const int32_t* bias_i32) {
    const ZeroPointCorrection& zp = a.zp;
    I row_offset[kRows];
    for (int r = 0; r < kRows; ++r) row_offset[r] = V::set1i(kRowTerm ? zp.row_offsets[r] : 0);
    const auto chunk = [&](int c0, const Lanes& l) __attribute__((always_inline)) {
      const Chunk<Out> ch = make_chunk(zp, o, bias_i32, c0, l);
      for (int r = 0; r < kRows; ++r) {
        I raw = V::addi(V::load(a.in + r * a.ld_in + c0, l), ch.col_term);
        if constexpr (kRowTerm) raw = V::subi(raw, V::mullo(ch.b_zp, row_offset[r]));
        o.store(a.out + r * a.ld_out + c0, l, raw, ch.cols);
      }
    };
    const Lanes all(W);
    int c0 = 0;
    for (; c0 + W <= a.cols; c0 += W) chunk(c0, all);
    if (c0 < a.cols) chunk(c0, Lanes(a.cols - c0));
  }

  // The walk shared by both requantizations; Out is ToU8 or ToF32.
  template <class Out, class Args>
  static void requantize(const Args& a, const int32_t* bias_i32) {
    const ZeroPointCorrection& zp = a.zp;
    const Out o(a);
    const bool contiguous = a.ld_in == a.cols && a.ld_out == a.cols;
    if (contiguous && a.cols < W && W % a.cols == 0 && a.rows > 1) {
      alignas(64) int32_t col_of_lane[W];
      for (int lane = 0; lane < W; ++lane) col_of_lane[lane] = lane % a.cols;
      const I idx = V::lane_pattern(col_of_lane);
      Chunk<Out> ch = make_chunk(zp, o, bias_i32, 0, Lanes(a.cols));
      ch.col_term = V::permute(ch.col_term, idx);
      ch.b_zp = V::permute(ch.b_zp, idx);
      ch.cols = Out::permute(ch.cols, idx);
      if (zp.row_offsets != nullptr)
        packed_rows<true>(o, ch, a.cols, a.in, a.out, a.rows, zp.row_offsets);
      else
        packed_rows<false>(o, ch, a.cols, a.in, a.out, a.rows, zp.row_offsets);
      return;
    }
    switch (a.rows) {  // small M: each chunk's values used as they are made
      case 1: return few_rows<1, Out>(a, bias_i32);
      case 2: return few_rows<2, Out>(a, bias_i32);
      case 3: return few_rows<3, Out>(a, bias_i32);
      case 4: return few_rows<4, Out>(a, bias_i32);
      default: break;
    }
    for (int p0 = 0; p0 < a.cols; p0 += kPanelChunks * W) {
      const int pcols = a.cols - p0 < kPanelChunks * W ? a.cols - p0 : kPanelChunks * W;
      const int nchunks = (pcols + W - 1) / W;
      Chunk<Out> chunks[kPanelChunks];
      for (int k = 0; k < nchunks; ++k) {
        const int c0 = p0 + k * W;
        chunks[k] = make_chunk(zp, o, bias_i32, c0, Lanes(a.cols - c0));
      }
      const Lanes last(pcols - (nchunks - 1) * W);
      const int32_t* in = a.in + p0;
      auto* out = a.out + p0;
      const int j0 = zp.col_start + p0;
      const int q0 = j0 / zp.cols_per_group;
      if (zp.row_offsets == nullptr)
        panel_rows<RowTerm::none>(o, chunks, nchunks, last, in, a.ld_in, out, a.ld_out,
                                  a.rows, zp.row_offsets, 0);
      else if ((j0 + pcols - 1) / zp.cols_per_group == q0)
        panel_rows<RowTerm::one_group>(o, chunks, nchunks, last, in, a.ld_in, out, a.ld_out,
                                       a.rows, zp.row_offsets, zp.b_zero_point[q0]);
      else
        panel_rows<RowTerm::per_lane>(o, chunks, nchunks, last, in, a.ld_in, out, a.ld_out,
                                      a.rows, zp.row_offsets, 0);
    }
  }

  static void requantize_u8(const RequantizeU8Args& a) {
    requantize<ToU8>(a, a.bias_kind == BiasKind::int32 ? a.bias_i32 : nullptr);
  }

  static void requantize_f32(const RequantizeF32Args& a) { requantize<ToF32>(a, nullptr); }

  // Applies op to every element, W lanes at a time; the row's last partial vector masked.
  template <class Op>
  static void map_i32(const Int32MapArgs& a, Op op) {
    for (int r = 0; r < a.rows; ++r) {
      const int32_t* in = a.in + r * a.ld_in;
      int32_t* out = a.out + r * a.ld_out;
      for (int c0 = 0; c0 < a.cols; c0 += W) {
        const Lanes l(a.cols - c0);
        V::store(out + c0, l, op(V::load(in + c0, l)));
      }
    }
  }

  static void copy_i32(const Int32MapArgs& a) {
    map_i32(a, [](I v) { return v; });
  }

  static void scale_i32(const Int32MapArgs& a) {
    const I s = V::set1i(a.value);
    map_i32(a, [s](I v) { return V::mullo(v, s); });
  }

  static void relu_i32(const Int32MapArgs& a) {
    const I floor = V::set1i(a.value);
    map_i32(a, [floor](I v) { return V::maxi(v, floor); });
  }
};

template <class V>
constexpr EpilogueTable make_epilogue_table() {
  using K = EpilogueKernels<V>;
  return {K::requantize_u8, K::requantize_f32, K::copy_i32, K::scale_i32, K::relu_i32};
}

}  // namespace
}  // namespace quire::detail
