// How a tile's output op reaches the kernels' output stage, slice by slice, or the
// epilogue routines (driver/tile_output.h).
#include "driver/tile_output.h"

namespace quire::detail {

namespace {

// The output op for block columns [c0, c0 + n) of a tile as a kernel output stage, or
// false when a per-group operand changes inside them (GROUP granularity with groups
// narrower than the slice): those slices go through the epilogue. A per-group operand is
// one scalar when the slice lies in one group, else (OUT_CHANNEL) one value per column;
// either way it starts at the slice's first group. The parts both outputs share:
bool stage_columns(const ZeroPointCorrection& zp, int c0, int n, StageOperand& per_group,
                   int& q0, OutputStage& stage, OutputStageArgs& args) {
  const int j0 = zp.col_start + c0;
  q0 = j0 / zp.cols_per_group;
  per_group = StageOperand::lanes;
  if (zp.cols_per_group != 1) {
    if ((j0 + n - 1) / zp.cols_per_group != q0) return false;
    per_group = StageOperand::scalar;
  }
  stage = OutputStage{};
  stage.requantize = true;
  stage.col_offsets = zp.col_offsets != nullptr;
  stage.b_zero_point = zp.row_offsets != nullptr ? per_group : StageOperand::absent;
  stage.multiplier = per_group;
  args = OutputStageArgs{};
  args.row_offsets = zp.row_offsets;
  if (stage.col_offsets) args.col_offsets = zp.col_offsets + c0;
  args.b_zero_point = zp.b_zero_point + q0;
  args.a_zero_point = zp.a_zero_point;
  return true;
}

bool stage_for_slice(const RequantizeU8Args& t, int c0, int n, OutputStage& stage,
                     OutputStageArgs& args) {
  StageOperand per_group;
  int q0;
  if (!stage_columns(t.zp, c0, n, per_group, q0, stage, args)) return false;
  stage.bias = t.bias_kind;
  if (t.bias_kind == BiasKind::float32) stage.act_times_w_scale = per_group;
  args.out = t.out + c0;
  args.ld_out = t.ld_out;
  args.multiplier = t.multiplier + q0;
  if (t.bias_kind == BiasKind::int32) args.bias_i32 = t.bias_i32 + c0;
  if (t.bias_kind == BiasKind::float32) {
    args.bias_f32 = t.bias_f32 + c0;
    args.act_times_w_scale = t.act_times_w_scale + q0;
  }
  args.c_zero_point = t.c_zero_point;
  args.hi = static_cast<float>(255 - t.c_zero_point);
  args.floor = t.fuse_relu ? t.c_zero_point : 0;
  return true;
}

bool stage_for_slice(const RequantizeF32Args& t, int c0, int n, OutputStage& stage,
                     OutputStageArgs& args) {
  StageOperand per_group;
  int q0;
  if (!stage_columns(t.zp, c0, n, per_group, q0, stage, args)) return false;
  stage.to_float = true;
  stage.relu = t.fuse_relu;
  stage.bias = t.bias != nullptr ? BiasKind::float32 : BiasKind::none;
  args.out = t.out + c0;
  args.ld_out = t.ld_out * static_cast<int64_t>(sizeof(float));
  args.multiplier = t.b_scale + q0;
  if (t.bias != nullptr) args.bias_f32 = t.bias + c0;
  args.a_scale = t.a_scale;
  return true;
}

// Rows [r0, r0 + rows) x columns [c0, c0 + cols) of a tile's output op.
template <class Args>
void narrow_to(Args& s, int r0, int rows, int c0, int cols) {
  s.in += int64_t{r0} * s.ld_in + c0;
  s.out += int64_t{r0} * s.ld_out + c0;
  s.rows = rows;
  s.cols = cols;
  s.zp.col_start += c0;
  if (s.zp.col_offsets != nullptr) s.zp.col_offsets += c0;
  if (s.zp.row_offsets != nullptr) s.zp.row_offsets += r0;
}

}  // namespace

bool stage_for_slice(const KernelOutputArgs& t, int c0, int n, OutputStage& stage,
                     OutputStageArgs& args) {
  return t.to_float ? stage_for_slice(t.f32, c0, n, stage, args)
                    : stage_for_slice(t.u8, c0, n, stage, args);
}

void run_epilogue(const TileRequantize& t, int r0, int rows, int c0, int cols) {
  if (t.args.to_float) {
    RequantizeF32Args s = t.args.f32;
    narrow_to(s, r0, rows, c0, cols);
    if (s.bias != nullptr) s.bias += c0;
    t.epilogue->requantize_f32(s);
  } else {
    RequantizeU8Args s = t.args.u8;
    narrow_to(s, r0, rows, c0, cols);
    if (s.bias_kind == BiasKind::int32) s.bias_i32 += c0;
    if (s.bias_kind == BiasKind::float32) s.bias_f32 += c0;
    t.epilogue->requantize_u8(s);
  }
}

void run_epilogue(const TileRequantize& t) {
  if (t.args.to_float) t.epilogue->requantize_f32(t.args.f32);
  else t.epilogue->requantize_u8(t.args.u8);
}

}  // namespace quire::detail
