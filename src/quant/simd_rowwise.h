// The row-wise code kernels, the 16-bit float conversions and the table of one ISA,
// written over the vector vocabulary V (see simd_kernels.h, which includes this file).
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <limits>

#include "quant/quant_kernels.h"

namespace quire::detail {
namespace {

// q = clamp(nearbyint((x - bias) * inv_scale), 0, 2^B - 1), NaN -> 0, as
// cvt(min(max(t, 0), 2^B - 1)): max(NaN, 0) = 0, and with integer bounds rounding after
// the clamp gives the integer rounding before it gives. Four vectors per step: their
// codes become 4 W bytes in one pack tree, then B-bit fields, element k at bit
// (k % per_byte) * B, through vpmaddubsw (adjacent bytes weighted 1 and 2^B) and, for
// B = 2, vpmaddwd (adjacent pairs weighted 1 and 2^4). The row's last partial step runs
// on a copy padded with NaN, so unused fields of the last byte are 0.
template <class V, int B>
void rowwise_quantize_bits(const float* in, int cols, float bias, float inv_scale, uint8_t* out) {
  constexpr int W = V::W, per_byte = 8 / B, step = 4 * W;
  const typename V::F b = V::set1f(bias), inv = V::set1f(inv_scale), zero = V::set1f(0.0f);
  const typename V::F top = V::set1f(static_cast<float>((1 << B) - 1));
  auto codes = [&](const float* x) QUIRE_ALWAYS_INLINE {
    return V::cvtfi(V::min(V::max(V::mul(V::sub(V::loadf(x), b), inv), zero), top));
  };
  auto body = [&](const float* x, uint8_t* o) QUIRE_ALWAYS_INLINE {
    const typename V::I bytes = V::pack_bytes(codes(x), codes(x + W), codes(x + 2 * W),
                                              codes(x + 3 * W));
    if constexpr (B == 8) {
      V::store_raw(o, bytes);
    } else if constexpr (B == 4) {
      V::store_words_as_bytes(o, V::maddubs(bytes, V::set1i(0x10011001)));
    } else {
      V::store(o, V::madd16(V::maddubs(bytes, V::set1i(0x04010401)), V::set1i(0x00100001)));
    }
  };
  int j = 0;
  for (; j + step <= cols; j += step) body(in + j, out + j / per_byte);
  if (j < cols) {
    const int n = cols - j;
    float x[step];
    uint8_t o[step / per_byte];
    for (float& v : x) v = std::numeric_limits<float>::quiet_NaN();
    std::memcpy(x, in + j, static_cast<size_t>(n) * sizeof(float));
    body(x, o);
    std::memcpy(out + j / per_byte, o, static_cast<size_t>((n + per_byte - 1) / per_byte));
  }
}

template <class V>
void rowwise_quantize(const float* in, int cols, int bit_rate, float bias, float inv_scale,
                      uint8_t* out) {
  switch (bit_rate) {
    case 2: return rowwise_quantize_bits<V, 2>(in, cols, bias, inv_scale, out);
    case 4: return rowwise_quantize_bits<V, 4>(in, cols, bias, inv_scale, out);
    default: return rowwise_quantize_bits<V, 8>(in, cols, bias, inv_scale, out);
  }
}

// The codes of 32 elements at B = 4 (16 bytes) or B = 2 (8 bytes) as one byte each, in
// element order: elements 0-15 in e0, 16-31 in e1. Each field is shifted down and masked
// over the whole register, then the fields are interleaved back into element order.
template <int B>
void spread_codes(const uint8_t* c, __m128i& e0, __m128i& e1) {
  const __m128i m = _mm_set1_epi8((1 << B) - 1);
  if constexpr (B == 4) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(c));
    const __m128i lo = _mm_and_si128(b, m), hi = _mm_and_si128(_mm_srli_epi16(b, 4), m);
    e0 = _mm_unpacklo_epi8(lo, hi);
    e1 = _mm_unpackhi_epi8(lo, hi);
  } else {
    const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(c));
    const __m128i f0 = _mm_and_si128(b, m), f1 = _mm_and_si128(_mm_srli_epi16(b, 2), m);
    const __m128i f2 = _mm_and_si128(_mm_srli_epi16(b, 4), m);
    const __m128i f3 = _mm_and_si128(_mm_srli_epi16(b, 6), m);
    const __m128i f01 = _mm_unpacklo_epi8(f0, f1), f23 = _mm_unpacklo_epi8(f2, f3);
    e0 = _mm_unpacklo_epi16(f01, f23);
    e1 = _mm_unpackhi_epi16(f01, f23);
  }
}

// x = fma(q, scale, bias), 32 elements per step (at B = 2 and 4 through spread_codes,
// whose bytes are widened W at a time); the source is prefetched. A partial last step runs on
// copies: zero codes in, the first elements out.
template <class V, int B>
void rowwise_dequantize_bits(const uint8_t* in, int cols, float scale, float bias, float* out) {
  constexpr int W = V::W, per_byte = 8 / B, step = 32, step_bytes = step / per_byte;
  const typename V::F s = V::set1f(scale), b = V::set1f(bias);
  auto widen = [&](__m128i e, float* o) QUIRE_ALWAYS_INLINE {
    for (int k = 0; k < 16; k += W) {
      V::storef(o + k, V::fmadd(V::cvtif(V::from_bytes(e)), s, b));
      e = _mm_unpackhi_epi64(e, e);
    }
  };
  auto body = [&](const uint8_t* c, float* o) QUIRE_ALWAYS_INLINE {
    if constexpr (B == 8) {
      for (int k = 0; k < step; k += W) V::storef(o + k, V::fmadd(V::cvtif(V::load(c + k)), s, b));
    } else {
      __m128i e0, e1;
      spread_codes<B>(c, e0, e1);
      widen(e0, o);
      widen(e1, o + 16);
    }
  };
  int j = 0;
  for (; j + step <= cols; j += step) body(in + j / per_byte, out + j);
  if (j < cols) {
    const int n = cols - j;
    uint8_t c[step_bytes] = {};
    float o[step];
    std::memcpy(c, in + j / per_byte, static_cast<size_t>((n + per_byte - 1) / per_byte));
    body(c, o);
    std::memcpy(out + j, o, static_cast<size_t>(n) * sizeof(float));
  }
}

template <class V>
void rowwise_dequantize(const uint8_t* in, int cols, int bit_rate, float scale, float bias,
                        float* out) {
  switch (bit_rate) {
    case 2: return rowwise_dequantize_bits<V, 2>(in, cols, scale, bias, out);
    case 4: return rowwise_dequantize_bits<V, 4>(in, cols, scale, bias, out);
    default: return rowwise_dequantize_bits<V, 8>(in, cols, scale, bias, out);
  }
}

// nbit_row_params with row i in lane i of a ymm (both vector tables have AVX2 and F16C):
// the same operations, the conditions as blends. A zero scale needs no blend of its own:
// 1 / +-0 is infinite, and the infinite case sets scale and inv_scale to 1 as well.
void nbit_block_params_f16c(const float* lo, const float* hi, int bit_rate, NBitBlockParams* p) {
  static_assert(kRowBlock == 8);
  constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT;
  const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
  const __m256 levels = _mm256_set1_ps(static_cast<float>((1 << bit_rate) - 1));
  const __m128i bias_h = _mm256_cvtps_ph(_mm256_loadu_ps(lo), kNearest);
  const __m256 bias = _mm256_cvtph_ps(bias_h);
  const __m256 range = _mm256_sub_ps(_mm256_loadu_ps(hi), bias);
  __m256 scale = _mm256_blendv_ps(_mm256_div_ps(range, levels), one,
                                  _mm256_cmp_ps(range, zero, _CMP_EQ_OQ));
  scale = _mm256_cvtph_ps(_mm256_cvtps_ph(scale, kNearest));
  __m256 inv_scale = _mm256_div_ps(one, scale);
  const __m256 abs_inv = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), inv_scale);
  const __m256 inf = _mm256_cmp_ps(abs_inv, _mm256_set1_ps(std::numeric_limits<float>::infinity()),
                                   _CMP_EQ_OQ);
  scale = _mm256_blendv_ps(scale, one, inf);
  inv_scale = _mm256_blendv_ps(inv_scale, one, inf);
  const __m128i scale_h = _mm256_cvtps_ph(scale, kNearest);
  _mm256_storeu_ps(p->bias, bias);
  _mm256_storeu_ps(p->inv_scale, inv_scale);
  auto* sb = reinterpret_cast<__m128i*>(p->scale_bias);
  _mm_storeu_si128(sb, _mm_unpacklo_epi16(scale_h, bias_h));
  _mm_storeu_si128(sb + 1, _mm_unpackhi_epi16(scale_h, bias_h));
}

template <class V>
void float_to_half(const float* src, float16* dst, int64_t len) {
  for_each_vector<V>(src, dst, len, 0.0f, [](const float* in, float16* out) QUIRE_ALWAYS_INLINE {
    V::store_half(out, V::loadf(in));
  });
}

template <class V>
void half_to_float(const float16* src, float* dst, int64_t len) {
  for_each_vector<V>(src, dst, len, float16{0},
                     [](const float16* in, float* out)
                         QUIRE_ALWAYS_INLINE { V::storef(out, V::load_half(in)); });
}

// cpu_float2bfloat16 per lane, FBGEMM's bits: (u + 0x8000) >> 16 (ties away from zero;
// NaN not special-cased, as in FBGEMM's scalar form that the row-wise dequantizers use).
template <class V>
void float_to_bfloat16(const float* src, bfloat16* dst, int64_t len) {
  const typename V::I half = V::set1i(0x8000);
  for_each_vector<V>(src, dst, len, 0.0f, [&](const float* in, bfloat16* out) QUIRE_ALWAYS_INLINE {
    const typename V::I u = V::bits(V::loadf(in));
    V::store_u16(reinterpret_cast<uint16_t*>(out), V::template srli<16>(V::addi(u, half)));
  });
}

template <class V>
constexpr QuantKernels make_quant_kernels() {
  return {
      quantize<V, uint8_t>,
      quantize<V, int8_t>,
      quantize<V, uint16_t>,
      quantize<V, int16_t>,
      quantize<V, int32_t>,
      quantize_channels<V, uint8_t>,
      quantize_channels<V, int8_t>,
      quantize_channels<V, int32_t>,
      dequantize<V, uint8_t>,
      dequantize<V, int8_t>,
      dequantize<V, uint16_t>,
      dequantize<V, int16_t>,
      dequantize<V, int32_t>,
      fused_quantize_dequantize<V>,
      find_min_max<V>,
      requantize<V, uint8_t>,
      requantize<V, int8_t>,
      requantize<V, uint16_t>,
      requantize<V, int16_t>,
      requantize<V, int32_t>,
      requantize_fixed<V, uint8_t>,
      requantize_fixed<V, int8_t>,
      requantize_fixed<V, uint16_t>,
      requantize_fixed<V, int16_t>,
      requantize_fixed<V, int32_t>,
      nbit_block_params_f16c,
      rowwise_quantize<V>,
      rowwise_dequantize<V>,
      float_to_half<V>,
      half_to_float<V>,
      float_to_bfloat16<V>,
  };
}

}  // namespace
}  // namespace quire::detail
