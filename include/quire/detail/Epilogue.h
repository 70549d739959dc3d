// The vectorized output-pipeline routines behind the ops of quire/OutputProcessing.h.
//
// An op's f<ISA>() resolves its parameters for one output block into one of the plain
// structs below and calls the routine of the ISA's EpilogueTable (detail::epilogue_for),
// so the intrinsics live only in src/epilogue (the vector routines are written once in
// epilogue_kernels.h over each ISA's vocabulary, simd_<isa>.h, and instantiated in
// epilogue_<isa>.cpp) and every routine computes exactly what quire::ref
// (ReferenceOutput.h) computes, bit for bit.
//
// Conventions shared by every routine:
//  - `in` and `out` point at the block's first element; element (r, c) of the block,
//    r in [0, rows), c in [0, cols), is in[r * ld_in + c] and out[r * ld_out + c].
//  - `in` may alias `out` at the same positions when both elements have the same size:
//    each element is read before it is written.
//  - Arrays indexed per column (col_offsets, bias) point at the block's first column.
//  - Arrays indexed per quantization group (multiplier, b_zero_point, b_scale,
//    act_times_w_scale) are indexed by q = (col_start + c) / cols_per_group, with
//    cols_per_group = 1 for OUT_CHANNEL, nCol / groups for GROUP and
//    kTensorColsPerGroup for TENSOR (so q is always 0).
#pragma once

#include <climits>
#include <cstdint>

#include "quire/Types.h"

namespace quire::detail {

inline constexpr int kTensorColsPerGroup = INT_MAX;

// The zero-point correction both requantizations apply to the raw int32 sum:
//   raw = in - a_zero_point * col_offsets[c] - b_zero_point[q] * row_offsets[r]
// computed modulo 2^32. col_offsets is null when a_zero_point is 0 and row_offsets is
// null when every b_zero_point the block uses is 0: the term is then skipped.
struct ZeroPointCorrection {
  int32_t a_zero_point;
  const int32_t* col_offsets;   // per block column
  const int32_t* b_zero_point;  // per quantization group
  const int32_t* row_offsets;   // per block row
  int col_start;                // absolute column of the block's first column
  int cols_per_group;           // see q above
};

enum class BiasKind : uint8_t { none, int32, float32 };

// Requantization to uint8:
//   int32 bias:   x = (float)(raw + bias_i32[c]) * multiplier[q]
//   float bias:   x = ((float)raw + bias_f32[c] / act_times_w_scale[q]) * multiplier[q]
//   no bias:      x = (float)raw * multiplier[q]
//   out = clamp(nearbyint(x) + c_zero_point, fuse_relu ? c_zero_point : 0, 255)
// with nearbyint rounding half to even; c_zero_point lies in [0, 255].
struct RequantizeU8Args {
  const int32_t* in;
  int64_t ld_in;
  uint8_t* out;
  int64_t ld_out;
  int rows;
  int cols;
  ZeroPointCorrection zp;
  const float* multiplier;         // per quantization group
  BiasKind bias_kind;
  const int32_t* bias_i32;         // per block column, when bias_kind == int32
  const float* bias_f32;           // per block column, when bias_kind == float32
  const float* act_times_w_scale;  // per quantization group, when bias_kind == float32
  int32_t c_zero_point;
  bool fuse_relu;
};

// Requantization to float:
//   out = (float)raw * (a_scale * b_scale[q])  [+ bias[c]]  [then max(0.0f, .) if fuse_relu]
struct RequantizeF32Args {
  const int32_t* in;
  int64_t ld_in;
  float* out;
  int64_t ld_out;
  int rows;
  int cols;
  ZeroPointCorrection zp;
  float a_scale;
  const float* b_scale;  // per quantization group
  const float* bias;     // per block column, or null
  bool fuse_relu;
};

// An element-wise int32 -> int32 map over a block (copy, scale, relu); `value` is the
// scaling factor or the relu floor.
struct Int32MapArgs {
  const int32_t* in;
  int64_t ld_in;
  int32_t* out;
  int64_t ld_out;
  int rows;
  int cols;
  int32_t value;
};

// Scalar forms of the formulas above, shared by the portable routines and the vector
// routines' remainders. Integer corrections wrap modulo 2^32 like the vector lanes do.
inline int32_t wrapping_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
inline int32_t wrapping_mul(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}

// raw for block element (r, c) in quantization group q.
inline int32_t corrected_raw(const ZeroPointCorrection& zp, int32_t in, int r, int c, int q) {
  uint32_t raw = static_cast<uint32_t>(in);
  if (zp.col_offsets != nullptr)
    raw -= static_cast<uint32_t>(zp.a_zero_point) * static_cast<uint32_t>(zp.col_offsets[c]);
  if (zp.row_offsets != nullptr)
    raw -= static_cast<uint32_t>(zp.b_zero_point[q]) * static_cast<uint32_t>(zp.row_offsets[r]);
  return static_cast<int32_t>(raw);
}

// clamp(nearbyint(x) + zero_point, lo, 255), computed as
//   nearbyint(clamp(x, lo - zero_point, 255 - zero_point)) + zero_point,
// the same value (the bounds are integers and rounding is monotonic) with the conversion
// defined for every x. The comparisons are ordered like vminps / vmaxps, so even a NaN
// maps the same way in the vector routines. nearbyint of |x| <= 255 is done by adding
// and subtracting 1.5 * 2^23: the sum lies in [2^23, 2^24), where floats are the
// integers, so the addition rounds x half to even (the default rounding mode, as
// vcvtps2dq) and the subtraction is exact.
inline uint8_t round_to_u8(float x, int32_t zero_point, int32_t lo) {
  const float hi_x = static_cast<float>(255 - zero_point);
  const float lo_x = static_cast<float>(lo - zero_point);
  x = x < hi_x ? x : hi_x;
  x = x > lo_x ? x : lo_x;
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23
  return static_cast<uint8_t>(static_cast<int32_t>((x + kRound) - kRound) + zero_point);
}

// std::max(0.0f, x), which is also what vmaxps(x, 0) gives (-0.0f and NaN become +0.0f).
inline float relu_f32(float x) { return x > 0.0f ? x : 0.0f; }

struct EpilogueTable {
  void (*requantize_u8)(const RequantizeU8Args&);
  void (*requantize_f32)(const RequantizeF32Args&);
  void (*copy_i32)(const Int32MapArgs&);   // out = in
  void (*scale_i32)(const Int32MapArgs&);  // out = in * value (modulo 2^32)
  void (*relu_i32)(const Int32MapArgs&);   // out = max(value, in)
};

extern const EpilogueTable kEpiloguePortable;
extern const EpilogueTable kEpilogueAvx2;
extern const EpilogueTable kEpilogueAvx512;

// The routines for an instruction set named in an op's template argument: that ISA's if
// the CPU has it, else the best the CPU has below it (src/cpu/dispatch.cpp).
const EpilogueTable& epilogue_for(inst_set_t inst_set);

}  // namespace quire::detail
