// AVX-512 output-pipeline routines: 16 int32 lanes per zmm, block tails by lane masks.
// Formulas and conventions in quire/detail/Epilogue.h; every result is bit-identical to
// the portable routines (same operations in the same order, round half to even).
//
// The requantizations walk the block 16 columns at a time and, inside each such chunk,
// row by row: the per-column values (multiplier, zero-point and bias terms) are set up
// once per chunk and stay in registers while the rows stream through.
#include <cstdint>

// GCC 12's AVX-512 intrinsics start unmasked results from a self-initialized "undefined"
// vector, which -Wmaybe-uninitialized reports once inlined (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include "quire/detail/Epilogue.h"

namespace quire::detail {
namespace {

constexpr int kLanes = 16;

__mmask16 first_lanes(int n) {
  return static_cast<__mmask16>(n >= kLanes ? 0xFFFFu : (1u << n) - 1u);
}

// Where the quantization groups of a chunk of n columns starting at block column c0 are.
struct ChunkGroups {
  enum Kind { one_group, per_column, mixed } kind;
  int q0;       // group of the first column
  __m512i idx;  // mixed: group of each lane
};

ChunkGroups chunk_groups(const ZeroPointCorrection& zp, int c0, int n) {
  const int j0 = zp.col_start + c0;
  const int cpg = zp.cols_per_group;
  if (cpg == 1) return {ChunkGroups::per_column, j0, _mm512_setzero_si512()};
  const int q0 = j0 / cpg;
  if ((j0 + n - 1) / cpg == q0) return {ChunkGroups::one_group, q0, _mm512_setzero_si512()};
  // The chunk straddles a group boundary (groups narrower than 16 columns, or a chunk
  // across the edge of a wider one): list each lane's group, once per chunk.
  alignas(64) int32_t idx[kLanes] = {};
  int q = q0;
  int pos = j0 - q0 * cpg;
  for (int lane = 0; lane < n; ++lane) {
    idx[lane] = q;
    if (++pos == cpg) {
      pos = 0;
      ++q;
    }
  }
  return {ChunkGroups::mixed, q0, _mm512_load_si512(idx)};
}

// Lane l = a[q(c0 + l)] for a per-group array.
__m512 group_ps(const float* a, const ChunkGroups& g, __mmask16 m) {
  switch (g.kind) {
    case ChunkGroups::per_column:
      return _mm512_maskz_loadu_ps(m, a + g.q0);
    case ChunkGroups::one_group:
      return _mm512_set1_ps(a[g.q0]);
    case ChunkGroups::mixed:
      break;
  }
  return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), m, g.idx, a, 4);
}

__m512i group_epi32(const int32_t* a, const ChunkGroups& g, __mmask16 m) {
  switch (g.kind) {
    case ChunkGroups::per_column:
      return _mm512_maskz_loadu_epi32(m, a + g.q0);
    case ChunkGroups::one_group:
      return _mm512_set1_epi32(a[g.q0]);
    case ChunkGroups::mixed:
      break;
  }
  return _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m, g.idx, a, 4);
}

// How the row term b_zero_point[q] * row_offsets[r] is formed: absent (symmetric B),
// one zero point for the whole chunk (a scalar product per row), or one per lane.
enum class RowTerm { none, one_group, per_lane };

RowTerm row_term_kind(const ZeroPointCorrection& zp, const ChunkGroups& g) {
  if (zp.row_offsets == nullptr) return RowTerm::none;
  return g.kind == ChunkGroups::one_group ? RowTerm::one_group : RowTerm::per_lane;
}

// The zero-point corrections of one chunk, ready for the row loop:
//   raw[r] = in[r] + col_term - b_zp * row_offsets[r]
struct ChunkCorrection {
  __m512i col_term;  // -a_zero_point * col_offsets[c] (+ bias[c] when folded in)
  __m512i b_zp;      // per lane (RowTerm::per_lane)
  int32_t b_zp1;     // the chunk's zero point (RowTerm::one_group)
};

ChunkCorrection chunk_correction(const ZeroPointCorrection& zp, const ChunkGroups& g,
                                 int c0, __mmask16 m, const int32_t* bias) {
  ChunkCorrection cc;
  cc.col_term = bias != nullptr ? _mm512_maskz_loadu_epi32(m, bias + c0)
                                : _mm512_setzero_si512();
  if (zp.col_offsets != nullptr) {
    const __m512i col = _mm512_maskz_loadu_epi32(m, zp.col_offsets + c0);
    cc.col_term = _mm512_sub_epi32(
        cc.col_term, _mm512_mullo_epi32(_mm512_set1_epi32(zp.a_zero_point), col));
  }
  cc.b_zp = zp.row_offsets != nullptr ? group_epi32(zp.b_zero_point, g, m)
                                      : _mm512_setzero_si512();
  cc.b_zp1 = zp.row_offsets != nullptr ? zp.b_zero_point[g.q0] : 0;
  return cc;
}

template <RowTerm kRow>
__m512i corrected_raw(const ZeroPointCorrection& zp, const ChunkCorrection& cc,
                      __m512i in, int r) {
  __m512i v = _mm512_add_epi32(in, cc.col_term);
  if constexpr (kRow == RowTerm::one_group) {
    v = _mm512_sub_epi32(v, _mm512_set1_epi32(wrapping_mul(cc.b_zp1, zp.row_offsets[r])));
  } else if constexpr (kRow == RowTerm::per_lane) {
    v = _mm512_sub_epi32(v, _mm512_mullo_epi32(cc.b_zp, _mm512_set1_epi32(zp.row_offsets[r])));
  }
  return v;
}

// x = (float)raw [+ float_bias] * multiplier; out = clamp(nearbyint(x) + zp, lo, 255).
template <RowTerm kRow>
void requantize_u8_chunk(const RequantizeU8Args& a, const ChunkGroups& g, int c0, int n) {
  const __mmask16 m = first_lanes(n);
  const ChunkCorrection cc =
      chunk_correction(a.zp, g, c0, m, a.bias_kind == BiasKind::int32 ? a.bias_i32 : nullptr);
  const __m512 mult = group_ps(a.multiplier, g, m);
  const bool float_bias = a.bias_kind == BiasKind::float32;
  const __m512 fbias = float_bias ? _mm512_div_ps(_mm512_maskz_loadu_ps(m, a.bias_f32 + c0),
                                                  group_ps(a.act_times_w_scale, g, m))
                                  : _mm512_setzero_ps();
  const __m512 x_hi = _mm512_set1_ps(1024.0f), x_lo = _mm512_set1_ps(-1024.0f);
  const __m512i c_zp = _mm512_set1_epi32(a.c_zero_point);
  const __m512i lo = _mm512_set1_epi32(a.fuse_relu ? a.c_zero_point : 0);
  const int32_t* in = a.in + c0;
  uint8_t* out = a.out + c0;
  for (int r = 0; r < a.rows; ++r) {
    const __m512i raw =
        corrected_raw<kRow>(a.zp, cc, _mm512_maskz_loadu_epi32(m, in + r * a.ld_in), r);
    __m512 x = _mm512_cvtepi32_ps(raw);
    if (float_bias) x = _mm512_add_ps(x, fbias);
    x = _mm512_mul_ps(x, mult);
    // Clamped first so that out-of-range values saturate instead of turning into
    // INT32_MIN; min/max operand order as in round_to_u8.
    x = _mm512_max_ps(_mm512_min_ps(x, x_hi), x_lo);
    __m512i v = _mm512_add_epi32(_mm512_cvtps_epi32(x), c_zp);
    v = _mm512_max_epi32(v, lo);
    // v >= 0 now; the unsigned saturating narrowing does the min(., 255).
    _mm512_mask_cvtusepi32_storeu_epi8(out + r * a.ld_out, m, v);
  }
}

void requantize_u8(const RequantizeU8Args& a) {
  for (int c0 = 0; c0 < a.cols; c0 += kLanes) {
    const int n = a.cols - c0 < kLanes ? a.cols - c0 : kLanes;
    const ChunkGroups g = chunk_groups(a.zp, c0, n);
    switch (row_term_kind(a.zp, g)) {
      case RowTerm::none:
        requantize_u8_chunk<RowTerm::none>(a, g, c0, n);
        break;
      case RowTerm::one_group:
        requantize_u8_chunk<RowTerm::one_group>(a, g, c0, n);
        break;
      case RowTerm::per_lane:
        requantize_u8_chunk<RowTerm::per_lane>(a, g, c0, n);
        break;
    }
  }
}

// out = (float)raw * (a_scale * b_scale[q]) [+ bias] [max(., 0)]
template <RowTerm kRow>
void requantize_f32_chunk(const RequantizeF32Args& a, const ChunkGroups& g, int c0, int n) {
  const __mmask16 m = first_lanes(n);
  const ChunkCorrection cc = chunk_correction(a.zp, g, c0, m, nullptr);
  const __m512 scale = _mm512_mul_ps(_mm512_set1_ps(a.a_scale), group_ps(a.b_scale, g, m));
  const bool has_bias = a.bias != nullptr;
  const __m512 bias = has_bias ? _mm512_maskz_loadu_ps(m, a.bias + c0) : _mm512_setzero_ps();
  const int32_t* in = a.in + c0;
  float* out = a.out + c0;
  for (int r = 0; r < a.rows; ++r) {
    const __m512i raw =
        corrected_raw<kRow>(a.zp, cc, _mm512_maskz_loadu_epi32(m, in + r * a.ld_in), r);
    __m512 x = _mm512_mul_ps(_mm512_cvtepi32_ps(raw), scale);
    if (has_bias) x = _mm512_add_ps(x, bias);
    if (a.fuse_relu) x = _mm512_max_ps(x, _mm512_setzero_ps());
    _mm512_mask_storeu_ps(out + r * a.ld_out, m, x);
  }
}

void requantize_f32(const RequantizeF32Args& a) {
  for (int c0 = 0; c0 < a.cols; c0 += kLanes) {
    const int n = a.cols - c0 < kLanes ? a.cols - c0 : kLanes;
    const ChunkGroups g = chunk_groups(a.zp, c0, n);
    switch (row_term_kind(a.zp, g)) {
      case RowTerm::none:
        requantize_f32_chunk<RowTerm::none>(a, g, c0, n);
        break;
      case RowTerm::one_group:
        requantize_f32_chunk<RowTerm::one_group>(a, g, c0, n);
        break;
      case RowTerm::per_lane:
        requantize_f32_chunk<RowTerm::per_lane>(a, g, c0, n);
        break;
    }
  }
}

// Applies op to every element, 16 lanes at a time, masked at the row's end.
template <class Op>
void map_i32(const Int32MapArgs& a, Op op) {
  for (int r = 0; r < a.rows; ++r) {
    const int32_t* in = a.in + r * a.ld_in;
    int32_t* out = a.out + r * a.ld_out;
    for (int c0 = 0; c0 < a.cols; c0 += kLanes) {
      const __mmask16 m = first_lanes(a.cols - c0);
      _mm512_mask_storeu_epi32(out + c0, m, op(_mm512_maskz_loadu_epi32(m, in + c0)));
    }
  }
}

void copy_i32(const Int32MapArgs& a) {
  map_i32(a, [](__m512i v) { return v; });
}

void scale_i32(const Int32MapArgs& a) {
  const __m512i s = _mm512_set1_epi32(a.value);
  map_i32(a, [s](__m512i v) { return _mm512_mullo_epi32(v, s); });
}

void relu_i32(const Int32MapArgs& a) {
  const __m512i floor = _mm512_set1_epi32(a.value);
  map_i32(a, [floor](__m512i v) { return _mm512_max_epi32(v, floor); });
}

}  // namespace

const EpilogueTable kEpilogueAvx512 = {requantize_u8, requantize_f32, copy_i32, scale_i32,
                                       relu_i32};

}  // namespace quire::detail
