// The vector loops behind quire/FbgemmConvert.h, one set per instruction set
// (convert_avx2.cpp, convert_avx512.cpp). Each converts a whole array, remainder
// included, to the bits of the scalar definitions in quire/FbgemmConvert.h; convert.cpp
// checks the arguments and the CPU before calling them.
#pragma once

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

// The clip of FloatToFloat16 with do_clip, std::max(-65504.f, std::min(x, 65504.f)):
// std::min(x, m) returns x unless m < x, so NaN passes, and then std::max(-m, NaN)
// returns -m. The vector loops get the same with vminps(m, x) (which returns its second
// operand when either is NaN) followed by vmaxps(t, -m) (likewise: -m for NaN t).
inline constexpr float kFp16Max = 65504.0f;

}  // namespace quire::detail
