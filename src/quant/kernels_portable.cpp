// kQuantPortable: the scalar loops, for CPUs without AVX2 and as the reference every
// vector table must match bit for bit.
#include <cmath>
#include <cstdint>
#include <limits>

#include "quant/quant_kernels.h"

namespace quire::detail {

int32_t quantize_one(float src, const QuantizeArgs& a) {
  const float t = src * a.inv_scale;
  const float r = a.legacy ? std::nearbyint(t + a.zero_point) : std::nearbyint(t) + a.zero_point;
  return saturate_quantized(r, a);
}

namespace {

template <class T>
void quantize(const float* src, T* dst, int64_t len, const QuantizeArgs& args) {
  for (int64_t i = 0; i < len; ++i) dst[i] = static_cast<T>(quantize_one(src[i], args));
}

template <class T>
void quantize_channels(const float* src, T* dst, int64_t len, const float* inv_scale,
                       const float* zero_point, const QuantizeArgs& args) {
  QuantizeArgs a = args;
  a.legacy = false;
  for (int64_t i = 0; i < len; ++i) {
    a.inv_scale = inv_scale[i];
    a.zero_point = zero_point[i];
    dst[i] = static_cast<T>(quantize_one(src[i], a));
  }
}

template <class T>
void dequantize(const T* src, float* dst, int64_t len, float scale, int32_t zero_point) {
  for (int64_t i = 0; i < len; ++i) dst[i] = dequantize_one(src[i], scale, zero_point);
}

template <class T>
void requantize(const int32_t* src, T* dst, int64_t len, const RequantizeArgs& args) {
  for (int64_t i = 0; i < len; ++i) dst[i] = static_cast<T>(requantize_one(src[i], args));
}

template <class T>
void requantize_fixed(const int32_t* src, T* dst, int64_t len, const RequantizeFixedArgs& args) {
  for (int64_t i = 0; i < len; ++i) dst[i] = static_cast<T>(requantize_fixed_one(src[i], args));
}

void fused_quantize_dequantize(const float* src, float* dst, int64_t len,
                               const QuantizeArgs& args, float scale, int32_t zero_point) {
  for (int64_t i = 0; i < len; ++i) {
    dst[i] = dequantize_one(quantize_one(src[i], args), scale, zero_point);
  }
}

// `x < lo` is false for NaN, so NaN elements never replace a bound.
void find_min_max(const float* src, int64_t len, float* min, float* max) {
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (int64_t i = 0; i < len; ++i) {
    if (src[i] < lo) lo = src[i];
    if (src[i] > hi) hi = src[i];
  }
  *min = lo + 0.0f;  // -0 -> +0
  *max = hi + 0.0f;
}

void rowwise_quantize(const float* in, int cols, int bit_rate, float bias, float inv_scale,
                      uint8_t* out) {
  const int per_byte = 8 / bit_rate;
  const auto qmax = static_cast<float>((1 << bit_rate) - 1);
  for (int j0 = 0; j0 < cols; j0 += per_byte) {
    int byte = 0;
    for (int k = 0; k < per_byte && j0 + k < cols; ++k) {
      byte |= rowwise_quantize_one(in[j0 + k], bias, inv_scale, qmax) << (k * bit_rate);
    }
    out[j0 / per_byte] = static_cast<uint8_t>(byte);
  }
}

void rowwise_dequantize(const uint8_t* in, int cols, int bit_rate, float scale, float bias,
                        float* out) {
  const int per_byte = 8 / bit_rate, mask = (1 << bit_rate) - 1;
  for (int j = 0; j < cols; ++j) {
    const int q = (in[j / per_byte] >> ((j % per_byte) * bit_rate)) & mask;
    out[j] = std::fma(static_cast<float>(q), scale, bias);
  }
}

void float_to_half(const float* src, float16* dst, int64_t len) {
  for (int64_t i = 0; i < len; ++i) dst[i] = cpu_float2half_rn(src[i]);
}

void nbit_block_params(const float* lo, const float* hi, int bit_rate, NBitBlockParams* p) {
  for (int i = 0; i < kRowBlock; ++i) nbit_row_params(lo[i], hi[i], bit_rate, *p, i);
}

void half_to_float(const float16* src, float* dst, int64_t len) {
  for (int64_t i = 0; i < len; ++i) dst[i] = cpu_half2float(src[i]);
}

void float_to_bfloat16(const float* src, bfloat16* dst, int64_t len) {
  for (int64_t i = 0; i < len; ++i) dst[i] = cpu_float2bfloat16(src[i]);
}

}  // namespace

constinit const QuantKernels kQuantPortable = {
    quantize<uint8_t>, quantize<int8_t>, quantize<uint16_t>, quantize<int16_t>,
    quantize<int32_t>,
    quantize_channels<uint8_t>, quantize_channels<int8_t>, quantize_channels<int32_t>,
    dequantize<uint8_t>, dequantize<int8_t>, dequantize<uint16_t>, dequantize<int16_t>,
    dequantize<int32_t>,
    fused_quantize_dequantize, find_min_max,
    requantize<uint8_t>, requantize<int8_t>, requantize<uint16_t>, requantize<int16_t>,
    requantize<int32_t>,
    requantize_fixed<uint8_t>, requantize_fixed<int8_t>, requantize_fixed<uint16_t>,
    requantize_fixed<int16_t>, requantize_fixed<int32_t>,
    nbit_block_params, rowwise_quantize, rowwise_dequantize,
    float_to_half, half_to_float, float_to_bfloat16,
};

}  // namespace quire::detail
