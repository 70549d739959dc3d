// The parts the depthwise row kernels share (depthwise_rows.h; stride 1 and stride 2,
// AVX512-VNNI): per-channel requantization parameters in natural order, their gather
// into the output blocks' lane order per phase with the column weights, and the
// requantization of 64 output bytes. Internal linkage: included by the kernels' files.
#pragma once

#include <cstdint>
#include <vector>

#include "common/intrinsics.h"
#include "conv/depthwise_layout.h"
#include "quire/detail/ConvDirect.h"
#include "simd/requantize.h"
#include "simd/vec_avx512.h"

namespace quire::conv {
namespace {

// Four rows' 64 bytes x[0..3] as 4-byte column quads (byte s of a quad from row s), in
// the in-lane order both row kernels read: plane j gets the j-th of the four unpacks.
inline void store_quads(const __m512i x[4], uint8_t* const plane[4], int64_t at) {
  const __m512i u0 = _mm512_unpacklo_epi8(x[0], x[1]), u1 = _mm512_unpackhi_epi8(x[0], x[1]);
  const __m512i v0 = _mm512_unpacklo_epi8(x[2], x[3]), v1 = _mm512_unpackhi_epi8(x[2], x[3]);
  _mm512_storeu_si512(plane[0] + at, _mm512_unpacklo_epi16(u0, v0));
  _mm512_storeu_si512(plane[1] + at, _mm512_unpackhi_epi16(u0, v0));
  _mm512_storeu_si512(plane[2] + at, _mm512_unpacklo_epi16(u1, v1));
  _mm512_storeu_si512(plane[3] + at, _mm512_unpackhi_epi16(u1, v1));
}

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

// ChannelRequant's bounds and zero point as vectors (x_hi = 255 - c_zp; x_lo = 0 with
// ReLU, else -c_zp).
struct Requant {
  __m512 hi, lo;
  __m512i zp;
};

// 64 output bytes from an accumulator per chunk: ChannelRequant's formula by the one
// requantize step (simd/requantize.h); each int32 is then in [0, 255], so the packs
// saturate nothing, and being in-lane they restore byte order.
template <bool FBIAS>
__m512i requantize(const __m512i acc[4], const Phase& ph, const Requant& rq) {
  __m512i y[4];
  for (int j = 0; j < 4; ++j) {
    __m512 x = _mm512_cvtepi32_ps(acc[j]);
    if constexpr (FBIAS) x = _mm512_add_ps(x, ph.fbias[j]);
    y[j] = detail::RequantizeStep<detail::Avx512>::apply(x, ph.mult[j], rq.hi, rq.lo, rq.zp);
  }
  return _mm512_packus_epi16(_mm512_packs_epi32(y[0], y[1]), _mm512_packs_epi32(y[2], y[3]));
}

void store_block(uint8_t* out, int64_t left, __m512i b) {
  if (left >= 64)
    _mm512_storeu_si512(out, b);
  else
    _mm512_mask_storeu_epi8(out, (1ull << left) - 1, b);
}

Requant make_requant(const detail::DirectRequant& r) {
  const int32_t zp = r.c_zero_point;
  return Requant{_mm512_set1_ps(static_cast<float>(255 - zp)),
                 _mm512_set1_ps(static_cast<float>((r.fuse_relu ? zp : 0) - zp)),
                 _mm512_set1_epi32(zp)};
}

// Runs run.template operator()<ROW, FBIAS>() for the layer: ROW when some B zero point
// is nonzero (the row-sum dot products), FBIAS for a float bias.
template <class Run>
void with_row_and_bias(const Natural& n, const detail::DirectRequant& r, Run&& run) {
  const bool row = n.any_zp, fbias = r.bias_kind == detail::BiasKind::float32;
  if (row && fbias) run.template operator()<true, true>();
  else if (row) run.template operator()<true, false>();
  else if (fbias) run.template operator()<false, true>();
  else run.template operator()<false, false>();
}

}  // namespace
}  // namespace quire::conv
