#include <algorithm>

#include "cpu/isa_record.h"
#include "driver/driver.h"

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

bool stage_for_slice(const KernelOutputArgs& t, int c0, int n, OutputStage& stage,
                     OutputStageArgs& args) {
  return t.to_float ? stage_for_slice(t.f32, c0, n, stage, args)
                    : stage_for_slice(t.u8, c0, n, stage, args);
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

}  // namespace

void compute_block(KernelSet& kernels, const uint8_t* a, int64_t lda, int mc,
                   const PackedBLayout& b, const int8_t* b_group, int k0, int kc, int n0, int nc,
                   int32_t* c, int64_t ldc, bool accumulate, const uint8_t* pair_safe,
                   const TileRequantize* requantize) {
  const int mr = kernels.mr(), full_panels = mc / mr, tail_rows = mc % mr;
  const int width = b.panel_width;
  // Panels no K pair of which can saturate vpmaddubsw run the path's pair-safe kernels
  // where it has them; every other panel runs the path's own (exact) kernels.
  const auto kernel = [&](int rows, int cols, int panel, bool narrow, const OutputStage& stage) {
    if (pair_safe != nullptr && pair_safe[panel] != 0)
      if (MicroKernelFn fn = kernels.pair_safe(rows, cols, narrow, stage)) return fn;
    return kernels.get(rows, cols, narrow, stage);
  };
  MicroKernelArgs args{};
  args.k4_steps = (kc + 3) / 4;
  args.lda = lda;
  args.b_step = int64_t{width} * 4;
  args.ldc_bytes = ldc * static_cast<int64_t>(sizeof(int32_t));
  args.accumulate = accumulate;
  // A narrow output (3..8 columns, the whole group, within one B panel) runs the kernels
  // that pack several rows per vector, over tiles of `tile` rows; the epilogue then
  // requantizes the tile.
  if (const int tile = kernels.narrow_rows(nc); tile > 0 && n0 == 0 && nc == b.n && nc <= width) {
    args.b = b_group + int64_t{k0} * width;
    args.nr = nc;
    for (int row = 0; row < mc;) {
      const int rows = mc - row >= tile ? tile : mc - row;
      const int panels = mc - row >= tile ? (mc - row) / tile : 1;
      args.a = a + row * lda;
      args.c = c + int64_t{row} * ldc;
      args.a_panel_stride = rows * lda;
      args.m_panels = panels;
      args.mr = rows;
      kernel(rows, nc, 0, true, {})(&args);
      row += rows * panels;
    }
    if (requantize != nullptr) run_epilogue(*requantize);
    return;
  }
  // The stage forms its column vectors once per kernel call: with fewer rows than one
  // panel that costs more than the tile epilogue saves (measured on Zen 4: 1 row 9%
  // slower, 2 rows 10%, 4 rows 1.5%), so such tiles, and paths without stage kernels,
  // store int32 and are requantized by one epilogue call after the loop.
  const bool tile_epilogue = requantize != nullptr && (!kernels.has_output_stage() || mc < mr);
  const TileRequantize* slice_requantize = tile_epilogue ? nullptr : requantize;
  // jr: column slices of at most the kernel's NR that never straddle a B panel.
  for (int col = n0; col < n0 + nc;) {
    const int panel = col / width, offset = col % width;
    const int nr = std::min({kernels.nr(), width - offset, n0 + nc - col});
    args.b = b_group + panel * b.panel_bytes() + int64_t{k0} * width + offset * 4;
    args.nr = nr;
    OutputStage stage;
    OutputStageArgs stage_args;  // filled by stage_for_slice
    const bool staged = slice_requantize != nullptr &&
                        stage_for_slice(slice_requantize->args, col - n0, nr, stage, stage_args);
    // ir: the kernel walks `panels` MR-row panels itself from row r0; with a requantizing
    // stage it writes uint8, else int32 (requantized here when the tile asks for it).
    const auto run = [&](int r0, int rows, int panels) {
      args.a = a + int64_t{r0} * lda;
      args.c = c + int64_t{r0} * ldc + (col - n0);
      args.a_panel_stride = rows * lda;
      args.m_panels = panels;
      args.mr = rows;
      if (staged) {
        if (MicroKernelFn fn = kernel(rows, nr, panel, false, stage)) {
          OutputStageArgs call_stage = stage_args;
          call_stage.out = static_cast<char*>(call_stage.out) + int64_t{r0} * call_stage.ld_out;
          if (call_stage.row_offsets != nullptr) call_stage.row_offsets += r0;
          args.stage = &call_stage;
          fn(&args);
          args.stage = nullptr;
          return;
        }
      }
      kernel(rows, nr, panel, false, {})(&args);
      if (slice_requantize != nullptr)  // a slice across quantization groups
        run_epilogue(*slice_requantize, r0, rows * panels, col - n0, nr);
    };
    if (full_panels > 0) run(0, mr, full_panels);
    if (tail_rows > 0) run(full_panels * mr, tail_rows, 1);
    col += nr;
  }
  if (tile_epilogue) run_epilogue(*requantize);
}

}  // namespace quire::detail
