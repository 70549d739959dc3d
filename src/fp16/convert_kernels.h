// The vector loops behind quire/FbgemmConvert.h, one set per instruction set
// (convert_avx2.cpp, convert_avx512.cpp). Each converts a whole array, remainder
// included, to the bits of the scalar definitions in quire/FbgemmConvert.h; convert.cpp
// checks the arguments and the CPU before calling them.
#pragma once

#include <cmath>
#include <cstddef>

#include "quire/FloatConversion.h"

namespace quire::detail {

struct ConvertKernels {
  void (*float_to_half)(const float* src, float16* dst, size_t size, bool do_clip);
  void (*half_to_float)(const float16* src, float* dst, size_t size);
  void (*float_to_bf16)(const float* src, bfloat16* dst, size_t size);
  void (*bf16_to_float)(const bfloat16* src, float* dst, size_t size);
};

extern const ConvertKernels kConvertAvx2;
extern const ConvertKernels kConvertAvx512;

inline constexpr float kFp16Max = 65504.0f;

// FloatToFloat16 with do_clip clamps x to [-65504, 65504] before rounding. For NaN,
// FBGEMM's result depends on where the element sits in the call: its vector loops
// (8 floats at a time with AVX2, 16 then 8 with AVX-512: the same split) compute
// vmaxps(-m, vminps(x, m)), and vminps returns its second operand m for NaN, so NaN
// becomes +65504; they leave the last size % 8 elements to the scalar _ref, whose
// std::max(-m, std::min(x, m)) passes NaN through min and turns it into -65504 in max.
// The same on AVX2 and AVX-512 CPUs. kClipVectorAlign is that 8.
inline constexpr size_t kClipVectorAlign = 8;

// The first clip_vector_part(size) elements of a call are FBGEMM's vector part.
constexpr size_t clip_vector_part(size_t size) { return size - size % kClipVectorAlign; }

// The scalar form of both clips: in_vector_part picks NaN's result.
inline float clip_to_fp16_range(float x, bool in_vector_part) {
  if (std::isnan(x)) return in_vector_part ? kFp16Max : -kFp16Max;
  return x < -kFp16Max ? -kFp16Max : (x > kFp16Max ? kFp16Max : x);
}

}  // namespace quire::detail
