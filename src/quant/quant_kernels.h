// The vectorized array routines behind quire/QuantUtils.h, one table per ISA
// (IsaRecord::quant). Private to the library: clients call the public functions, never a
// table, so a table may gain a routine without changing quire's ABI.
//
// The public functions validate their arguments, resolve them into the plain structs
// below (and those of quire/detail/QuantFormulas.h) and call the routine of
// active_isa().quant. Each routine computes exactly the formula written here, operation by
// operation in float (the library is built with -ffp-contract=off, and no routine uses
// fused multiply-add), so every table gives the same bits as kQuantPortable.
//
// Conventions: len may be 0; src and dst never alias unless said; no alignment is
// required.
#pragma once

#include <cmath>
#include <cstdint>

#include "quire/FloatConversion.h"
#include "quire/detail/QuantFormulas.h"

namespace quire::detail {

// float -> integer quantization and int32 -> integer requantization: the formulas of
// QuantizeArgs and RequantizeArgs (quire/detail/QuantFormulas.h).
template <class T>
using QuantizeFn = void (*)(const float* src, T* dst, int64_t len, const QuantizeArgs& args);

// Quantization with one scale and zero point per element position (the channels of a
// KXC row): element i uses inv_scale[i] and zero_point[i] in the current formula above;
// args.inv_scale, args.zero_point and args.legacy are ignored.
template <class T>
using QuantizeChannelsFn = void (*)(const float* src, T* dst, int64_t len,
                                    const float* inv_scale, const float* zero_point,
                                    const QuantizeArgs& args);

// integer -> float: dst = scale * (float)((double)src - (double)zero_point).
// The difference is exact in double and rounded once to float.
template <class T>
using DequantizeFn = void (*)(const T* src, float* dst, int64_t len, float scale,
                              int32_t zero_point);

// Quantize with args (zero_point is (float)zero_point) to q, then dequantize:
//   dst = scale * (float)((double)q - (double)zero_point)
// args.legacy is false (FusedQuantizeDequantize has the current rounding only; the
// vector tables do not implement the legacy one here).
using FusedQuantizeDequantizeFn = void (*)(const float* src, float* dst, int64_t len,
                                           const QuantizeArgs& args, float scale,
                                           int32_t zero_point);

// The smallest and largest non-NaN element in IEEE order; a zero result is +0 (-0 and
// +0 compare equal, so which one a search meets first would depend on its order). With
// no non-NaN element: *min = +inf and *max = -inf.
using MinMaxFn = void (*)(const float* src, int64_t len, float* min, float* max);

template <class T>
using RequantizeFn = void (*)(const int32_t* src, T* dst, int64_t len,
                              const RequantizeArgs& args);

// int32 -> integer in fixed point, right_shift in [0, 63]:
//   p = (int64)src * multiplier
//   m = right_shift == 0 ? p : (p >> right_shift) + ((p >> (right_shift - 1)) & 1)
//       (round half up, i.e. floor((p + 2^(right_shift-1)) / 2^right_shift), no overflow)
//   out = clamp((int64)zero_point + m, qmin, qmax)
struct RequantizeFixedArgs {
  int32_t multiplier;
  int right_shift;
  int32_t zero_point;
  int32_t qmin;
  int32_t qmax;
};
template <class T>
using RequantizeFixedFn = void (*)(const int32_t* src, T* dst, int64_t len,
                                   const RequantizeFixedArgs& args);

// One row of a fused row-wise format (8-bit with float scale and bias; 2-, 4- or 8-bit
// with half scale and bias). The caller derives bias, scale and inv_scale from the row
// (see src/quant/rowwise.cpp) and stores them; these routines only convert the codes.
// Element j occupies bits [(j % per_byte) * bit_rate, + bit_rate) of byte j / per_byte,
// per_byte = 8 / bit_rate, so a row has ceil(cols / per_byte) code bytes.
//   quantize:   q = clamp(nearbyint((x - bias) * inv_scale), 0, 2^bit_rate - 1),
//               NaN -> 0 (float subtract, then multiply)
//   dequantize: x = fma(q, scale, bias), rounded once (FBGEMM's vfmadd; for a half
//               scale q * scale is exact, so this is also q * scale + bias in float)
using RowwiseQuantizeFn = void (*)(const float* in, int cols, int bit_rate, float bias,
                                   float inv_scale, uint8_t* out);
using RowwiseDequantizeFn = void (*)(const uint8_t* in, int cols, int bit_rate, float scale,
                                     float bias, float* out);

// The half scales and biases of a block of kRowBlock N-bit rows from their (min, max),
// FBGEMM's formulas (src/quant/rowwise.cpp), with the codes' bias and inv_scale, per row:
//   bias = half(lo) read back; range = hi - bias
//   scale = half(range == 0 ? 1 : range / (2^bit_rate - 1)) read back; 0 -> 1;
//   inv_scale = 1 / scale, and scale = inv_scale = 1 when that is infinite
// scale_bias is the row's stored 4 bytes as a little-endian word: half(scale) in the low
// 16 bits, half(lo) in the high. The vector tables compute the rows as the lanes of one
// vector (vcvtps2ph / vcvtph2ps have cpu_float2half_rn's and cpu_half2float's bits), where
// a row at a time the serial chain of five conversions and two divisions was most of a
// short row's time. Callers pad a partial block with lo = hi = 0.
constexpr int kRowBlock = 8;
struct NBitBlockParams {
  float bias[kRowBlock], inv_scale[kRowBlock];
  uint32_t scale_bias[kRowBlock];
};
inline void nbit_row_params(float lo, float hi, int bit_rate, NBitBlockParams& p, int row) {
  const float16 bias_h = cpu_float2half_rn(lo);
  const float bias = cpu_half2float(bias_h);
  const float range = hi - bias;
  const auto levels = static_cast<float>((1 << bit_rate) - 1);
  float scale = cpu_half2float(cpu_float2half_rn(range == 0.0f ? 1.0f : range / levels));
  if (scale == 0.0f) scale = 1.0f;
  float inv_scale = 1.0f / scale;
  if (std::isinf(inv_scale)) scale = inv_scale = 1.0f;
  p.bias[row] = bias;
  p.inv_scale[row] = inv_scale;
  p.scale_bias[row] = cpu_float2half_rn(scale).val | static_cast<uint32_t>(bias_h.val) << 16;
}
using NBitBlockParamsFn = void (*)(const float* lo, const float* hi, int bit_rate,
                                   NBitBlockParams* p);

struct QuantKernels {
  QuantizeFn<uint8_t> quantize_u8;
  QuantizeFn<int8_t> quantize_s8;
  QuantizeFn<uint16_t> quantize_u16;
  QuantizeFn<int16_t> quantize_s16;
  QuantizeFn<int32_t> quantize_s32;

  QuantizeChannelsFn<uint8_t> quantize_channels_u8;
  QuantizeChannelsFn<int8_t> quantize_channels_s8;
  QuantizeChannelsFn<int32_t> quantize_channels_s32;

  DequantizeFn<uint8_t> dequantize_u8;
  DequantizeFn<int8_t> dequantize_s8;
  DequantizeFn<uint16_t> dequantize_u16;
  DequantizeFn<int16_t> dequantize_s16;
  DequantizeFn<int32_t> dequantize_s32;

  FusedQuantizeDequantizeFn fused_quantize_dequantize;
  MinMaxFn find_min_max;

  RequantizeFn<uint8_t> requantize_u8;
  RequantizeFn<int8_t> requantize_s8;
  RequantizeFn<uint16_t> requantize_u16;
  RequantizeFn<int16_t> requantize_s16;
  RequantizeFn<int32_t> requantize_s32;

  RequantizeFixedFn<uint8_t> requantize_fixed_u8;
  RequantizeFixedFn<int8_t> requantize_fixed_s8;
  RequantizeFixedFn<uint16_t> requantize_fixed_u16;
  RequantizeFixedFn<int16_t> requantize_fixed_s16;
  RequantizeFixedFn<int32_t> requantize_fixed_s32;

  NBitBlockParamsFn nbit_block_params;
  RowwiseQuantizeFn rowwise_quantize;
  RowwiseDequantizeFn rowwise_dequantize;

  // Array conversions with the bits of the scalar FBGEMM names (quire/FloatConversion.h):
  // cpu_float2half_rn / cpu_half2float (round to nearest even, NaN and inf preserved) and
  // cpu_float2bfloat16 ((bits + 0x8000) >> 16).
  void (*float_to_half)(const float* src, float16* dst, int64_t len);
  void (*half_to_float)(const float16* src, float* dst, int64_t len);
  void (*float_to_bfloat16)(const float* src, bfloat16* dst, int64_t len);
};

// The formulas for one element: the scalar public API and kQuantPortable use these and
// those of QuantFormulas.h, the vector tables mirror them lane by lane.
inline int32_t saturate_quantized(float r, const QuantizeArgs& a) {
  if (!(r >= a.qmin_f)) return a.qmin;  // also NaN
  if (r > a.qmax_f) return a.qmax;
  return static_cast<int32_t>(r);
}

inline int32_t rowwise_quantize_one(float x, float bias, float inv_scale, float qmax) {
  const float r = std::nearbyint((x - bias) * inv_scale);
  if (!(r >= 0.0f)) return 0;  // also NaN
  return static_cast<int32_t>(r > qmax ? qmax : r);
}

inline int64_t rounding_mul_shift(int32_t a, int32_t b, int right_shift) {
  const int64_t p = static_cast<int64_t>(a) * b;
  if (right_shift == 0) return p;
  return (p >> right_shift) + ((p >> (right_shift - 1)) & 1);
}

inline int32_t requantize_fixed_one(int32_t src, const RequantizeFixedArgs& a) {
  const int64_t v = a.zero_point + rounding_mul_shift(src, a.multiplier, a.right_shift);
  return static_cast<int32_t>(v < a.qmin ? a.qmin : v > a.qmax ? a.qmax : v);
}

extern const QuantKernels kQuantPortable;
extern const QuantKernels kQuantAvx2;
extern const QuantKernels kQuantAvx512;

}  // namespace quire::detail
