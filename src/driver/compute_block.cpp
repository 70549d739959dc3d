#include <algorithm>

#include "cpu/isa_record.h"
#include "quire/detail/Driver.h"

namespace quire::detail {

void compute_block(KernelSet& kernels, const uint8_t* a, int64_t lda, int mc,
                   const PackedBLayout& b, const int8_t* b_group, int k0, int kc, int n0, int nc,
                   int32_t* c, int64_t ldc, bool accumulate) {
  const int mr = kernels.mr(), full_panels = mc / mr, tail_rows = mc % mr;
  const int width = b.panel_width;
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
      kernels.get(rows, nc, true)(&args);
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
      kernels.get(mr, nr)(&args);
    }
    if (tail_rows > 0) {
      args.a = a + full_panels * mr * lda;
      args.c = c + int64_t{full_panels} * mr * ldc + (col - n0);
      args.a_panel_stride = tail_rows * lda;
      args.m_panels = 1;
      args.mr = tail_rows;
      kernels.get(tail_rows, nr)(&args);
    }
    col += nr;
  }
}

}  // namespace quire::detail
