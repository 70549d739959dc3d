#include <algorithm>

#include "cpu/isa_record.h"
#include "driver/driver.h"
#include "driver/pair_correction.h"
#include "driver/tile_output.h"
#include "pack/pair_index.h"

namespace quire::detail {

namespace {

// The A block the kernels read: as packed, or widened (KernelForm::wide).
struct ABlock {
  const uint8_t* a;
  int64_t lda;
  WideABlock* wide;

  // Points args at rows [r0, ...) (rows per panel) for a kernel of the given form.
  void point(MicroKernelArgs& args, KernelForm form, int r0, int rows) const {
    const bool widened = form == KernelForm::wide;
    const uint8_t* base = widened ? wide->get() : a;
    const int64_t ld = widened ? wide->ld_bytes() : lda;
    args.a = base + int64_t{r0} * ld;
    args.lda = ld;
    args.a_panel_stride = rows * ld;
  }
};

// The kernel of a form (narrow: the narrow kernels, which have no wide form); a
// pair-safe tile the path lacks runs the exact kernel (form is updated).
MicroKernelFn kernel_of(KernelSet& kernels, int rows, int nr, KernelForm& form,
                        bool narrow = false, bool row_sums = false) {
  if (form == KernelForm::pair_safe) {
    if (MicroKernelFn fn = kernels.find(kernels.spec(rows, nr, form, narrow, row_sums))) return fn;
    form = KernelForm::exact;
  }
  return kernels.require(kernels.spec(rows, nr, form, narrow, row_sums));
}

// One column slice [c0, c0 + nr) (args.b at it) of a tile with an output op: each call
// (the full panels of `tile` rows, then the row tail) runs the kernel (column or narrow)
// of the slice's form ending in the op's stage, or, where the slice or the tile gives it
// none, stores int32 and requantizes that block with the epilogue. row_sums (narrow
// only): the kernels also write the rows' A sums there, and a stage's row term takes
// them from registers, so it runs only where the op's row offsets are that buffer.
// Inlined into both callers: called out of line (with the row loop below), the column
// path's small tiles ran 1.5% slower (6 x 1024 x 256).
__attribute__((always_inline)) inline void run_staged_slice(
    KernelSet& kernels, MicroKernelArgs& args, const TileRequantize* t, int c0, int nr,
    KernelForm slice_form, const ABlock& a, int32_t* c, int64_t ldc, int tile, int full_panels,
    int tail_rows, bool narrow, int32_t* row_sums, const int32_t* correction = nullptr) {
  OutputStage stage;
  OutputStageArgs stage_args;  // filled by stage_for_slice
  bool in_stage = stage_for_slice(t->args, c0, nr, stage, stage_args);
  const bool sums = row_sums != nullptr;
  if (sums && stage.b_zero_point != StageOperand::absent && stage_args.row_offsets != row_sums)
    in_stage = false;
  const auto run = [&](int r0, int rows, int panels) __attribute__((always_inline)) {
    args.c = c + int64_t{r0} * ldc + c0;
    args.m_panels = panels;
    args.mr = rows;
    args.row_sums = sums ? row_sums + r0 : nullptr;
    if (in_stage) {
      KernelForm form = slice_form;
      MicroKernelFn fn = kernels.find(kernels.spec(rows, nr, form, narrow, sums, stage));
      if (fn == nullptr && form == KernelForm::pair_safe)
        fn = kernels.find(kernels.spec(rows, nr, form = KernelForm::exact, narrow, sums, stage));
      if (fn != nullptr) {
        a.point(args, form, r0, rows);
        OutputStageArgs call_stage = stage_args;
        call_stage.out = static_cast<char*>(call_stage.out) + int64_t{r0} * call_stage.ld_out;
        if (call_stage.row_offsets != nullptr) call_stage.row_offsets += r0;
        args.stage = &call_stage;
        if (correction != nullptr) {  // a stage kernel reads C and never writes it
          const int64_t ldc_bytes = args.ldc_bytes;
          args.c = const_cast<int32_t*>(correction) + int64_t{r0} * nr;
          args.ldc_bytes = int64_t{nr} * sizeof(int32_t);
          args.accumulate = true;
          fn(&args);
          args.ldc_bytes = ldc_bytes;
        } else {
          fn(&args);
        }
        args.stage = nullptr;
        return;
      }
    }
    if (correction != nullptr) {  // the int32 kernel adds to the correction in C
      for (int r = r0; r < r0 + rows * panels; ++r)
        std::copy_n(correction + int64_t{r} * nr, nr, c + int64_t{r} * ldc + c0);
      args.accumulate = true;
    }
    KernelForm form = slice_form;
    const MicroKernelFn fn = kernel_of(kernels, rows, nr, form, narrow, sums);
    a.point(args, form, r0, rows);
    fn(&args);
    run_epilogue(*t, r0, rows * panels, c0, nr);
  };
  if (full_panels > 0) run(0, tile, full_panels);
  if (tail_rows > 0) run(full_panels * tile, tail_rows, 1);
}

// Columns [c0, c0 + cols) of the block (c0 relative to the block's first column, at the
// start of a B panel, with args.b there), several slices of `step` columns of one form,
// in one call per row run of a kernel walking them (KernelSpec::column_slices): the
// full panels of `tile` rows, then the row tail. False, with nothing run, where the path
// has no such kernel for one of the two or the slices' output op cannot end them in a
// stage (a per-group operand changing inside them): the caller then runs them slice by
// slice. Saves the driver's work and a call per slice: 6 x 1024 x 256 spent 10-12% of
// its time in compute_block and stage_for_slice on avx2, Zen 5. correction (corrected
// slices under a stage): the slices' corrections, rows x cols, which the stage kernels
// read as their C.
bool run_column_slices(KernelSet& kernels, MicroKernelArgs& args, const TileRequantize* staged,
                       int c0, int cols, int step, int width, int64_t panel_bytes,
                       KernelForm form, const ABlock& a, int32_t* c, int64_t ldc, int tile,
                       int full_panels, int tail_rows, const int32_t* correction = nullptr) {
  OutputStage stage;
  OutputStageArgs stage_args;
  if (staged != nullptr && !stage_for_slice(staged->args, c0, cols, stage, stage_args)) return false;
  const auto kernel = [&](int rows) {
    jit::KernelSpec spec = kernels.spec(rows, step, form, false, false, stage);
    spec.column_slices = true;
    return kernels.find(spec);
  };
  const MicroKernelFn full = full_panels > 0 ? kernel(tile) : nullptr;
  const MicroKernelFn tail = tail_rows > 0 ? kernel(tail_rows) : nullptr;
  if ((full_panels > 0 && full == nullptr) || (tail_rows > 0 && tail == nullptr)) return false;
  args.nr = step;
  args.n_slices = cols / step;
  args.slices_per_panel = width / step;
  args.b_panel_stride = panel_bytes;
  const int64_t ldc_bytes = args.ldc_bytes;
  if (correction != nullptr) {  // the stage kernels read it as C (rows cols apart)
    args.ldc_bytes = int64_t{cols} * sizeof(int32_t);
    args.accumulate = true;
  }
  const auto run = [&](MicroKernelFn fn, int r0, int rows, int panels) {
    a.point(args, form, r0, rows);
    args.c = correction != nullptr ? const_cast<int32_t*>(correction) + int64_t{r0} * cols
                                   : c + int64_t{r0} * ldc + c0;
    args.m_panels = panels;
    args.mr = rows;
    OutputStageArgs call_stage = stage_args;  // the kernel's: read per slice
    if (staged != nullptr) {
      call_stage.out = static_cast<char*>(call_stage.out) + int64_t{r0} * call_stage.ld_out;
      if (call_stage.row_offsets != nullptr) call_stage.row_offsets += r0;
      args.stage = &call_stage;
    }
    fn(&args);
    args.stage = nullptr;
  };
  if (full_panels > 0) run(full, 0, tile, full_panels);
  if (tail_rows > 0) run(tail, full_panels * tile, tail_rows, 1);
  args.n_slices = 0;
  args.ldc_bytes = ldc_bytes;
  return true;
}

}  // namespace

bool narrow_block(const KernelSet& kernels, const PackedBLayout& b, int n0, int nc) {
  return kernels.narrow_rows(nc) > 0 && n0 == 0 && nc == b.n && nc <= b.panel_width;
}

void compute_block(KernelSet& kernels, const BlockCall& call) {
  const PackedBLayout& b = *call.b;
  const int mc = call.mc, n0 = call.n0, nc = call.nc;
  const int64_t ldc = call.ldc;
  int32_t* const c = call.c;
  const uint8_t* const pair_limits = call.pair_limits;
  const TileRequantize* const requantize = call.requantize;
  int32_t* const row_sums = call.row_sums;
  const int mr = kernels.mr();
  const int width = b.panel_width;
  MicroKernelArgs args{};
  args.k4_steps = (call.kc + 3) / 4;
  args.lda = call.lda;
  args.b_step = int64_t{width} * 4;
  args.ldc_bytes = ldc * static_cast<int64_t>(sizeof(int32_t));
  args.accumulate = call.accumulate;
  // A narrow output (3..8 columns, the whole group, within one B panel) runs the kernels
  // that pack several rows per vector, over tiles of `tile` rows, ending in the output
  // op's stage where it has one (and forming the rows' A sums when asked). They read A
  // as packed; with row sums they have no pair-safe form.
  if (const int tile = kernels.narrow_rows(nc); narrow_block(kernels, b, n0, nc)) {
    args.b = call.b_group + int64_t{call.k0} * width;
    args.nr = nc;
    const ABlock block{call.a, call.lda, nullptr};
    const bool sums = row_sums != nullptr;
    const KernelForm form = pair_limits != nullptr && !sums
                                ? panel_form(pair_limits[0], call.a_max, KernelForm::exact)
                                : KernelForm::exact;
    if (kernels.has_pair_safe()) kernels.count_form(form);
    if (requantize != nullptr) {
      run_staged_slice(kernels, args, requantize, 0, nc, form, block, c, ldc, tile, mc / tile,
                       mc % tile, true, row_sums);
      return;
    }
    for (int row = 0; row < mc;) {
      const int rows = mc - row >= tile ? tile : mc - row;
      const int panels = mc - row >= tile ? (mc - row) / tile : 1;
      KernelForm f = form;
      const MicroKernelFn fn = kernel_of(kernels, rows, nc, f, true, sums);
      block.point(args, f, row, rows);
      args.c = c + int64_t{row} * ldc;
      args.m_panels = panels;
      args.mr = rows;
      args.row_sums = sums ? row_sums + row : nullptr;
      fn(&args);
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
  const ABlock block{call.a, call.lda, call.wide};
  // Panels certified for this A block (panel_form) run the path's pair-safe kernels where
  // it has them; panels with few unsafe pairs in the K block run them corrected; every
  // other panel runs the path's exact kernels, on A widened when the caller widened it.
  const KernelForm exact_form = call.wide != nullptr ? KernelForm::wide : KernelForm::exact;
  const int pair0 = call.k0 / 2, pair1 = pair0 + (call.kc + 1) / 2;
  // A panel's form.
  const auto form_of = [&](int panel) {
    if (pair_limits == nullptr) return exact_form;
    bool pays = false;
    if (call.pair_index != nullptr && call.a_max > pair_limits[panel]) {
      const int64_t entries = call.pair_index->count(call.first_panel + panel, pair0, pair1);
      pays = entries >= 0 && correction_pays(entries, pair1 - pair0,
                                             std::min(width, b.n - panel * width), mc,
                                             kernels.pair_correction()->lanes);
    }
    return panel_form(pair_limits[panel], call.a_max, exact_form, pays);
  };
  // The correction of the nr columns of panel `panel` from `offset` into C (ldc apart),
  // added to it or, without accumulate, stored.
  const auto correct_into = [&](int panel, int offset, int nr, int32_t* into, int64_t ld,
                                bool accumulate) {
    PairMajorBlock& pairs = *call.pair_major;
    const PairIndexView& index = *call.pair_index;
    kernels.pair_correction()->correct(
        pairs.get(), pairs.ld(), mc, pair0, pair1, pair0 == 0 && pair1 >= index.pairs,
        index.lists(call.first_panel + panel, offset), index.entries, nr, into, ld, accumulate,
        pairs.tile(nr));
  };
  // The corrections of `slices` consecutive slices of nr columns (kernels.nr() unless
  // given) from col, side by side in the compact tile: mc rows of slices * nr.
  const auto correct_slices = [&](int col, int slices, int nr = 0) {
    if (nr == 0) nr = kernels.nr();
    int32_t* run = call.pair_major->slice(slices * nr);
    for (int s = 0; s < slices; ++s) {
      const int first = col + s * nr;
      correct_into(first / width, first % width, nr, run + s * nr, int64_t{slices} * nr, false);
    }
    return static_cast<const int32_t*>(run);
  };
  // The end of the run of full slices of one form that the slice at col belongs to
  // (column_slices below): found once per run, and reused by the slices inside it when
  // they run one by one because run_column_slices declined the run. Rescanning the
  // rest of the row from every slice made a path without such kernels quadratic in the
  // slices (avx2 acc16 at 1 x 2048 x 512: 43% of the time in this loop, Xeon).
  int run_end = n0;
  // jr: column slices of at most the kernel's NR that never straddle a B panel.
  for (int col = n0; col < n0 + nc;) {
    const int panel = col / width, offset = col % width;
    const int nr = std::min({kernels.nr(), width - offset, n0 + nc - col});
    const KernelForm form = form_of(panel);
    if (kernels.has_pair_safe()) kernels.count_form(form);
    args.accumulate = call.accumulate;  // a corrected slice before may have set it
    // A block of fewer rows than a panel (one call, requantized after the loop) walks up
    // to KernelSet::panels consecutive panels of one form in one call of a wider tile.
    const int span = kernels.panels(mc, width, form);
    if (span > 1 && offset == 0 && mc < mr && kernels.nr() >= width) {
      int end = col + nr, spanned = 1;
      for (; spanned < span && end < n0 + nc && form_of(end / width) == form;
           ++spanned)
        end = std::min(end + width, n0 + nc);
      jit::KernelSpec spec = kernels.spec(mc, end - col, form, false, false, {},
                                          width / kernels.lanes());
      // One call of the spanning tile from col over `columns`: `spans` whole spans (a
      // column_slices kernel), or the one span [col, end).
      const auto run_spans = [&](MicroKernelFn fn, int spans, int columns) {
        for (int p = 1; p < (columns + width - 1) / width; ++p) kernels.count_form(form);
        args.b = call.b_group + panel * b.panel_bytes() + int64_t{call.k0} * width;
        args.b_panel_stride = b.panel_bytes();
        args.b_slice_stride = span * b.panel_bytes();
        args.n_slices = spans;
        args.nr = columns / spans;
        block.point(args, form, 0, mc);
        args.c = c + (col - n0);
        args.m_panels = 1;
        args.mr = mc;
        fn(&args);
        args.n_slices = 0;
        col += columns;
      };
      // Whole spans of span full panels of the form after it: one call walks them all
      // (KernelSpec::column_slices; 1 x 2048 x 512 makes 32 spans).
      if (spanned == span && end - col == span * width && kernels.has_column_slices()) {
        const auto whole_span = [&](int start) {
          if (start + span * width > n0 + nc) return false;
          for (int p = 0; p < span; ++p)
            if (form_of(start / width + p) != form) return false;
          return true;
        };
        int spans = 1;
        while (whole_span(col + spans * span * width)) ++spans;
        jit::KernelSpec sliced = spec;
        sliced.column_slices = true;
        if (MicroKernelFn fn = spans > 1 ? kernels.find(sliced) : nullptr) {
          run_spans(fn, spans, spans * span * width);
          continue;
        }
      }
      if (MicroKernelFn fn = spanned > 1 ? kernels.find(spec) : nullptr) {
        run_spans(fn, 1, end - col);
        continue;
      }
    }
    // The wide form runs its own tile (KernelSet::wide_mr, wide_nr; on avx2 6 x 8, so a
    // slice is two calls); the others the call's mr x nr.
    const bool wide_tile = form == KernelForm::wide;
    const int tile = wide_tile ? kernels.wide_mr(mc) : mr;
    const int step = wide_tile ? std::min(kernels.wide_nr(mc), nr) : nr;
    const int panels = mc / tile, rest = mc % tile;
    // Corrected slices under a stage on the only K block read their correction from a
    // compact tile (below); a run of them shares one.
    const bool compact = form == KernelForm::corrected && staged != nullptr && !call.accumulate;
    // Full slices from a panel's start on, of one form: one call per row run walks them
    // all. Corrected ones only when compact: otherwise their corrections go into C_buffer
    // first, and a run the kernels decline could not go back to the slice loop below
    // without adding them twice (a declined compact run only wastes its corrections).
    if ((form != KernelForm::corrected || compact) && kernels.has_column_slices() &&
        offset == 0 && nr == kernels.nr() && width % nr == 0 && nr % step == 0) {
      // With a row tail, its call walks the run's B again after the full panels': the
      // run's B (kc x columns bytes) stays within 128 KiB, so that it comes from L2 (a
      // 49-row block at K = 2048, N = 512 ran 4% slower reading it from L3).
      const int64_t slice_b_bytes = int64_t{args.k4_steps} * 4 * nr;
      const int64_t max_slices = rest > 0 ? std::max<int64_t>(1, (int64_t{128} << 10) / slice_b_bytes)
                                          : int64_t{n0 + nc};
      if (col >= run_end) {
        run_end = col + nr;
        while (run_end + nr <= n0 + nc && form_of(run_end / width) == form)
          run_end += nr;
      }
      // A corrected run's tile stays within 32 KiB, in L1 for its kernel call.
      const int64_t run_slices =
          compact ? std::min<int64_t>(max_slices, std::max<int64_t>(1, (int64_t{8} << 10) / (mc * nr)))
                  : max_slices;
      const int end = static_cast<int>(std::min<int64_t>(run_end, col + run_slices * nr));
      const int slices = (end - col) / nr;
      if (slices > 1) {
        const int32_t* run_correction = compact ? correct_slices(col, slices) : nullptr;
        args.b = call.b_group + panel * b.panel_bytes() + int64_t{call.k0} * width;
        if (run_column_slices(kernels, args, staged, col - n0, end - col, step, width,
                              b.panel_bytes(), form, block, c, ldc, tile, panels, rest,
                              run_correction)) {
          if (kernels.has_pair_safe())
            for (int s = 1; s < slices; ++s) kernels.count_form(form);
          col = end;
          continue;
        }
      }
    }
    // Corrected: the unsafe pairs' correction goes into C first (stored on the first K
    // block), and the kernels add to it, their output stage applied as usual. Under a
    // stage on the first K block (C_buffer not yet written, and not read after) it goes
    // into a compact rows x nr tile that the stage kernel reads as its C instead: written
    // into C_buffer, it cost a store miss per row and slice (102 x 1024 x 512, avx2 on
    // Zen 5: that pass took 12% of the call).
    const int32_t* correction = nullptr;
    if (compact) {
      correction = correct_slices(col, 1, nr);
    } else if (form == KernelForm::corrected) {
      correct_into(panel, offset, nr, c + (col - n0), ldc, call.accumulate);
      args.accumulate = true;
    }
    for (int c0 = col; c0 < col + nr; c0 += step) {
      const int w = std::min(step, col + nr - c0);
      args.b = call.b_group + panel * b.panel_bytes() + int64_t{call.k0} * width + (c0 % width) * 4;
      args.nr = w;
      // ir: the kernel walks the full tile-row panels itself; the remainder is one more call.
      if (staged == nullptr) {
        if (panels > 0) {
          KernelForm f = form;
          const MicroKernelFn fn = kernel_of(kernels, tile, w, f);
          block.point(args, f, 0, tile);
          args.c = c + (c0 - n0);
          args.m_panels = panels;
          args.mr = tile;
          fn(&args);
        }
        if (rest > 0) {
          KernelForm f = form;
          const MicroKernelFn fn = kernel_of(kernels, rest, w, f);
          block.point(args, f, panels * tile, rest);
          args.c = c + int64_t{panels} * tile * ldc + (c0 - n0);
          args.m_panels = 1;
          args.mr = rest;
          fn(&args);
        }
      } else {
        run_staged_slice(kernels, args, staged, c0 - n0, w, form, block, c, ldc, tile, panels,
                         rest, false, nullptr, correction);
      }
    }
    col += nr;
  }
  if (tile_epilogue) run_epilogue(*requantize);
}

}  // namespace quire::detail
