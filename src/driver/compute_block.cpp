#include <algorithm>

#include "cpu/isa_record.h"
#include "driver/driver.h"
#include "jit/kernel_cache.h"
#include "jit/kernel_generator.h"

namespace quire::detail {

MicroKernelFn KernelSet::pair_safe(int mr, int nr, bool narrow) {
  for (int i = 0; i < pair_safe_used_; ++i) {
    const Entry& e = pair_safe_entries_[i];
    if (e.mr == mr && e.nr == nr && e.narrow == narrow) return e.fn;
  }
  // acc16 that saturates must follow its model (docs/acc16.md), not the exact product.
  const jit::KernelSpec spec{isa_.isa, mr, nr, narrow, false, true};
  MicroKernelFn fn = nullptr;
  if (!saturating_ && (narrow ? jit::narrow_fits(spec) : jit::registers_fit(spec))) fn = jit::kernel(spec);
  if (pair_safe_used_ < kSlots) pair_safe_entries_[pair_safe_used_++] = Entry{mr, nr, narrow, fn};
  return fn;
}

void compute_block(KernelSet& kernels, const uint8_t* a, int64_t lda, int mc,
                   const PackedBLayout& b, const int8_t* b_group, int k0, int kc, int n0, int nc,
                   int32_t* c, int64_t ldc, bool accumulate, const uint8_t* pair_safe) {
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
  // that pack several rows per vector, over tiles of `tile` rows.
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
      kernel(rows, nc, 0, true)(&args);
      row += rows * panels;
    }
    return;
  }
  // jr: column slices of at most the kernel's NR that never straddle a B panel.
  for (int col = n0; col < n0 + nc;) {
    const int panel = col / width, offset = col % width;
    const int nr = std::min({kernels.nr(), width - offset, n0 + nc - col});
    args.b = b_group + panel * b.panel_bytes() + int64_t{k0} * width + offset * 4;
    args.nr = nr;
    // ir: the kernel walks the full MR-row panels itself; the remainder is one more call.
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
    col += nr;
  }
}

}  // namespace quire::detail
