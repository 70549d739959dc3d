#include <algorithm>

#include "cpu/isa_record.h"
#include "driver/driver.h"
#include "driver/tile_output.h"

namespace quire::detail {

namespace {

// One column slice [c0, c0 + nr) of a tile with an output op: each call (the full panels
// of `tile` rows, then the row tail) runs the kernel (column or narrow) ending in the op's
// stage, or, where the slice or the tile gives it none, stores int32 and requantizes that
// block with the epilogue. row_sums (narrow only): the kernels also write the rows' A sums
// there, and a stage's row term takes them from registers, so it runs only where the op's
// row offsets are that buffer. Inlined into both callers: called out of line (with the
// row loop below), the column path's small tiles ran 1.5% slower (6 x 1024 x 256).
__attribute__((always_inline)) inline void run_staged_slice(KernelSet& kernels, MicroKernelArgs& args, const TileRequantize* t, int c0,
                      int nr, int panel, const uint8_t* pair_safe, const uint8_t* a, int64_t lda,
                      int32_t* c, int64_t ldc, int tile, int full_panels, int tail_rows,
                      bool narrow, int32_t* row_sums) {
  OutputStage stage;
  OutputStageArgs stage_args;  // filled by stage_for_slice
  bool in_stage = stage_for_slice(t->args, c0, nr, stage, stage_args);
  const bool sums = row_sums != nullptr;
  if (sums && stage.b_zero_point != StageOperand::absent && stage_args.row_offsets != row_sums)
    in_stage = false;
  const bool safe_panel = pair_safe != nullptr && pair_safe[panel] != 0 && !sums;
  const auto run = [&](int r0, int rows, int panels) __attribute__((always_inline)) {
    args.a = a + int64_t{r0} * lda;
    args.c = c + int64_t{r0} * ldc + c0;
    args.a_panel_stride = rows * lda;
    args.m_panels = panels;
    args.mr = rows;
    args.row_sums = sums ? row_sums + r0 : nullptr;
    if (in_stage) {
      MicroKernelFn fn = safe_panel ? kernels.staged(rows, nr, true, stage, narrow) : nullptr;
      if (fn == nullptr) fn = kernels.staged(rows, nr, false, stage, narrow, sums);
      if (fn != nullptr) {
        OutputStageArgs call_stage = stage_args;
        call_stage.out = static_cast<char*>(call_stage.out) + int64_t{r0} * call_stage.ld_out;
        if (call_stage.row_offsets != nullptr) call_stage.row_offsets += r0;
        args.stage = &call_stage;
        fn(&args);
        args.stage = nullptr;
        return;
      }
    }
    MicroKernelFn fn = safe_panel ? kernels.pair_safe(rows, nr, narrow) : nullptr;
    if (fn == nullptr) fn = kernels.get(rows, nr, narrow, sums);
    fn(&args);
    run_epilogue(*t, r0, rows * panels, c0, nr);
  };
  if (full_panels > 0) run(0, tile, full_panels);
  if (tail_rows > 0) run(full_panels * tile, tail_rows, 1);
}

}  // namespace

bool narrow_block(const KernelSet& kernels, const PackedBLayout& b, int n0, int nc) {
  return kernels.narrow_rows(nc) > 0 && n0 == 0 && nc == b.n && nc <= b.panel_width;
}

void compute_block(KernelSet& kernels, const uint8_t* a, int64_t lda, int mc,
                   const PackedBLayout& b, const int8_t* b_group, int k0, int kc, int n0, int nc,
                   int32_t* c, int64_t ldc, bool accumulate, const uint8_t* pair_safe,
                   const TileRequantize* requantize, int32_t* row_sums) {
  const int mr = kernels.mr(), full_panels = mc / mr, tail_rows = mc % mr;
  const int width = b.panel_width;
  // Panels no K pair of which can saturate vpmaddubsw run the path's pair-safe kernels
  // where it has them; every other panel runs the path's own (exact) kernels.
  const auto kernel = [&](int rows, int cols, int panel, bool narrow) {
    if (pair_safe != nullptr && pair_safe[panel] != 0)
      if (MicroKernelFn fn = kernels.pair_safe(rows, cols, narrow)) return fn;
    return kernels.get(rows, cols, narrow);
  };
  MicroKernelArgs args{};
  args.k4_steps = (kc + 3) / 4;
  args.lda = lda;
  args.b_step = int64_t{width} * 4;
  args.ldc_bytes = ldc * static_cast<int64_t>(sizeof(int32_t));
  args.accumulate = accumulate;
  // A narrow output (3..8 columns, the whole group, within one B panel) runs the kernels
  // that pack several rows per vector, over tiles of `tile` rows, ending in the output
  // op's stage where it has one (and forming the rows' A sums when asked).
  if (const int tile = kernels.narrow_rows(nc); narrow_block(kernels, b, n0, nc)) {
    args.b = b_group + int64_t{k0} * width;
    args.nr = nc;
    if (requantize != nullptr) {
      run_staged_slice(kernels, args, requantize, 0, nc, 0, pair_safe, a, lda, c, ldc, tile,
                       mc / tile, mc % tile, true, row_sums);
      return;
    }
    for (int row = 0; row < mc;) {
      const int rows = mc - row >= tile ? tile : mc - row;
      const int panels = mc - row >= tile ? (mc - row) / tile : 1;
      args.a = a + row * lda;
      args.c = c + int64_t{row} * ldc;
      args.a_panel_stride = rows * lda;
      args.m_panels = panels;
      args.mr = rows;
      if (row_sums != nullptr) {
        args.row_sums = row_sums + row;
        kernels.get(rows, nc, true, true)(&args);
      } else {
        kernel(rows, nc, 0, true)(&args);
      }
      row += rows * panels;
    }
    return;
  }
  // The stage forms its column vectors once per kernel call: with fewer rows than one
  // panel that costs more than the tile epilogue saves (measured on Zen 4: 1 row 9%
  // slower, 2 rows 10%, 4 rows 1.5%), so such tiles, and paths without stage kernels,
  // store int32 and are requantized by one epilogue call after the loop.
  const bool tile_epilogue = requantize != nullptr && (!kernels.has_output_stage() || mc < mr);
  const TileRequantize* staged = tile_epilogue ? nullptr : requantize;
  // jr: column slices of at most the kernel's NR that never straddle a B panel.
  for (int col = n0; col < n0 + nc;) {
    const int panel = col / width, offset = col % width;
    const int nr = std::min({kernels.nr(), width - offset, n0 + nc - col});
    args.b = b_group + panel * b.panel_bytes() + int64_t{k0} * width + offset * 4;
    args.nr = nr;
    // ir: the kernel walks the full MR-row panels itself; the remainder is one more call.
    if (staged == nullptr) {
      if (full_panels > 0) {
        args.a = a;
        args.c = c + (col - n0);
        args.a_panel_stride = mr * lda;
        args.m_panels = full_panels;
        args.mr = mr;
        kernel(mr, nr, panel, false)(&args);
      }
      if (tail_rows > 0) {
        args.a = a + full_panels * mr * lda;
        args.c = c + int64_t{full_panels} * mr * ldc + (col - n0);
        args.a_panel_stride = tail_rows * lda;
        args.m_panels = 1;
        args.mr = tail_rows;
        kernel(tail_rows, nr, panel, false)(&args);
      }
    } else {
      run_staged_slice(kernels, args, staged, col - n0, nr, panel, pair_safe, a, lda, c, ldc, mr,
                       full_panels, tail_rows, false, nullptr);
    }
    col += nr;
  }
  if (tile_epilogue) run_epilogue(*requantize);
}

}  // namespace quire::detail
