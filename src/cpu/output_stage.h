// The output stage a column micro-kernel may apply to its finished accumulators on the
// last K block instead of storing int32 (docs/kernel-contract.md, "The output stage"):
// ReQuantizeOutput's requantization to uint8, or ReQuantizeForFloat's to float, computed
// in registers and stored once. To uint8:
//   raw = acc [+ C]  + bias_i32[c] - a_zero_point * col_offsets[c]
//                    - b_zero_point[q] * row_offsets[r]                  (modulo 2^32)
//   x   = (float)raw [+ bias_f32[c] / act_times_w_scale[q]]
//   out = max(sat_u8(nearbyint(min(x * multiplier[q], hi)) + c_zero_point), floor)
// with hi = 255 - c_zero_point and sat_u8 the unsigned saturation of the packs: the same
// bytes as the epilogue routines (Epilogue.h), which clamp both ends in float. (The
// bounds are integers, so clamping before or after rounding agrees; min(x, hi) first
// maps NaN and huge x to 255 as they do, and vcvtps2dq's INT32_MIN for x below -2^31
// saturates to 0 like any negative.) To float (the epilogue's operations and order):
//   raw = acc [+ C] - a_zero_point * col_offsets[c] - b_zero_point[q] * row_offsets[r]
//   out = (float)raw * (a_scale * b_scale[q])  [+ bias_f32[c]]  [then max(., 0.0f)]
// OutputStage is part of a kernel's spec (what is generated); OutputStageArgs is what one
// call reads.
#pragma once

#include <cstdint>

#include "quire/detail/Epilogue.h"

namespace quire::detail {

// How a per-column or per-group operand reaches the kernel's slice of columns: not at all,
// one value for the whole slice (the slice lies in one quantization group), or one value
// per column (OUT_CHANNEL, or per-column arrays such as bias).
enum class StageOperand : uint8_t { absent, scalar, lanes };

struct OutputStage {
  bool requantize = false;                          // false: store int32 (every other field unused)
  bool to_float = false;                            // ReQuantizeForFloat's; else to uint8
  bool col_offsets = false;                         // a_zero_point != 0
  StageOperand b_zero_point = StageOperand::absent;  // the row term; absent without row offsets
  StageOperand multiplier = StageOperand::scalar;    // uint8: multiplier; float: b_scale
  BiasKind bias = BiasKind::none;                    // per column (float output: float32 or none)
  StageOperand act_times_w_scale = StageOperand::absent;  // uint8 with float bias: scalar or lanes
  bool relu = false;                                // float output: max(., 0.0f)

  // A compact, unique code of the stage (0 for the int32 store), for cache keys and names.
  constexpr uint32_t code() const {
    if (!requantize) return 0;
    return 1u | (uint32_t{col_offsets} << 1) | (uint32_t(b_zero_point) << 2) |
           (uint32_t(multiplier) << 4) | (uint32_t(bias) << 6) |
           (uint32_t(act_times_w_scale) << 8) | (uint32_t{to_float} << 10) |
           (uint32_t{relu} << 11);
  }
  friend constexpr bool operator==(const OutputStage& x, const OutputStage& y) {
    return x.code() == y.code();
  }
};

// One kernel call's operands of a requantizing stage. Per-column pointers point at the
// slice's first column; a scalar operand points at its group's one value.
struct OutputStageArgs {
  void* out;                       // C (uint8 or float) at the call's first row and slice's first column
  int64_t ld_out;                  // bytes between rows of out
  const int32_t* row_offsets;      // at the call's first row (b_zero_point not absent)
  const int32_t* col_offsets;      // col_offsets stage
  const int32_t* b_zero_point;
  const float* multiplier;         // float output: b_scale
  const int32_t* bias_i32;
  const float* bias_f32;
  const float* act_times_w_scale;
  int32_t a_zero_point;
  int32_t c_zero_point;
  float hi;        // 255 - c_zero_point
  int32_t floor;   // fuse_relu ? c_zero_point : 0
  float a_scale;   // float output
};

}  // namespace quire::detail
