// The argument records of the output-pipeline routines behind the ops of
// quire/OutputProcessing.h, and the library's entries that run them.
//
// An op's f<ISA>() resolves its parameters for one output block into one of the plain
// records below and calls the entry for its ISA, so the intrinsics and the per-ISA tables
// live only in src/epilogue (written once in epilogue_kernels.h over each ISA's
// vocabulary, simd_<isa>.h, and instantiated in epilogue_<isa>.cpp) and every routine
// computes exactly what quire::ref (ReferenceOutput.h) computes, bit for bit. The records
// are ABI records (detail/Abi.h): their layout is frozen.
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
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire::detail {

inline constexpr int kTensorColsPerGroup = INT_MAX;

inline namespace QUIRE_ABI_NAMESPACE {

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

}  // namespace QUIRE_ABI_NAMESPACE

// The routines of the path named by inst_set (that path's if the CPU has it, else the
// best the CPU has below it), one call per block.
void epilogue_requantize_u8(inst_set_t inst_set, const RequantizeU8Args& args);
void epilogue_requantize_f32(inst_set_t inst_set, const RequantizeF32Args& args);
void epilogue_copy_i32(inst_set_t inst_set, const Int32MapArgs& args);   // out = in
void epilogue_scale_i32(inst_set_t inst_set, const Int32MapArgs& args);  // out = in * value
void epilogue_relu_i32(inst_set_t inst_set, const Int32MapArgs& args);   // out = max(value, in)

}  // namespace quire::detail
QUIRE_API_END
