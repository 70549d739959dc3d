// The scalar loops of the quantization routines (kQuantPortable), one element at a time
// through the formulas of quire/detail/QuantKernels.h.
#pragma once

#include <cstdint>

#include "quire/detail/QuantKernels.h"

namespace quire::detail::portable {

template <class T>
void quantize(const float* src, T* dst, int64_t len, const QuantizeArgs& args) {
  for (int64_t i = 0; i < len; ++i) dst[i] = static_cast<T>(quantize_one(src[i], args));
}

template <class T>
void quantize_channels(const float* src, T* dst, int64_t len, const float* inv_scale,
                       const float* zero_point, const QuantizeArgs& args) {
  QuantizeArgs a = args;
  a.legacy = true;
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

void fused_quantize_dequantize(const float* src, float* dst, int64_t len,
                               const QuantizeArgs& args, float scale, int32_t zero_point);
void find_min_max(const float* src, int64_t len, float* min, float* max);

template <class T>
void requantize(const int32_t* src, T* dst, int64_t len, const RequantizeArgs& args) {
  for (int64_t i = 0; i < len; ++i) dst[i] = static_cast<T>(requantize_one(src[i], args));
}

template <class T>
void requantize_fixed(const int32_t* src, T* dst, int64_t len, const RequantizeFixedArgs& args) {
  for (int64_t i = 0; i < len; ++i) dst[i] = static_cast<T>(requantize_fixed_one(src[i], args));
}

void rowwise_quantize(const float* in, int cols, int bit_rate, float bias, float inv_scale,
                      uint8_t* out);
void rowwise_dequantize(const uint8_t* in, int cols, int bit_rate, float scale, float bias,
                        float* out);

void float_to_half(const float* src, float16* dst, int64_t len);
void half_to_float(const float16* src, float* dst, int64_t len);
void float_to_bfloat16(const float* src, bfloat16* dst, int64_t len);

}  // namespace quire::detail::portable
