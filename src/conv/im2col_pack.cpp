// im2col fused into A packing: each row of a block is described as runs of contiguous
// input bytes and runs of the zero point (copied from a row of it), which the active
// path's row routine copies, with the row sum fused.
//
// Column c of group grp's part of the im2col matrix is tap c / (IC/G), channel
// c % (IC/G) of the group. A kernel row (taps (kt, kh, 0 .. KW-1)) spans KW * IC/G
// columns; when G = 1, the width dilation is 1 and the convolution is not transposed,
// its in-bounds taps read one contiguous piece of the input row, so a kernel row costs
// at most three runs (zero point, input, zero point) whatever KW is.
//
// Layers whose kernel rows are short (few channels: a 7x7 RGB stem's are 21 bytes) spend
// more on building run lists than on copying: every border pixel of an output row is a
// stretch of its own, with a run list and a call of its own. For them the input rows an
// output row reads are first copied with their width padding filled in (PaddedRows), and
// the whole output row is one stretch of one run per kernel row.
#include <algorithm>
#include <cstring>
#include <vector>

#include "conv/conv_kernels.h"
#include "quire/detail/Check.h"
#include "quire/detail/Im2Col.h"
#include "cpu/isa_record.h"

namespace quire::detail {

void check_im2col_source(const ConvGeometry& g, const void* sdata, int32_t a_zero_point,
                         const char* where) {
  if (g.batch > 0) check_not_null(sdata, where, "sdata");  // an empty batch reads nothing
  check_arg(a_zero_point >= 0 && a_zero_point <= 255, where, "a_zero_pt", a_zero_point,
            "must be in [0, 255] (a uint8 activation zero point)");
  check_arg(g.gemm_k_per_group() >= 1, where, "kernel * IC / G", g.gemm_k_per_group(),
            "must be >= 1");
}

namespace {

using conv::Im2ColRun;

// Output position of row m of the im2col matrix: image n, position (t, h, w).
struct OutPos {
  int n;
  int o[3];
};

OutPos out_pos(const ConvGeometry& g, int64_t m) {
  OutPos p{};
  p.o[2] = static_cast<int>(m % g.out[2]);
  m /= g.out[2];
  p.o[1] = static_cast<int>(m % g.out[1]);
  m /= g.out[1];
  p.o[0] = static_cast<int>(m % g.out[0]);
  p.n = static_cast<int>(m / g.out[0]);
  return p;
}

// Moves p by n pixels, n no more than to the start of the next output row.
void advance(const ConvGeometry& g, OutPos& p, int n = 1) {
  if ((p.o[2] += n) < g.out[2]) return;
  p.o[2] = 0;
  if (++p.o[1] < g.out[1]) return;
  p.o[1] = 0;
  if (++p.o[0] < g.out[0]) return;
  p.o[0] = 0;
  ++p.n;
}

// Runs of one row, merged as they are appended: a run of input continuing the previous
// one's source, or padding after padding, extends it. Padding runs read zp_row (long
// enough for a whole block row) and do not move along a stretch; add() takes null for
// them. Input runs move by `step` per pixel of a stretch.
class RunList {
 public:
  RunList(Im2ColRun* storage, const uint8_t* zp_row, int64_t step)
      : runs_(storage), zp_(zp_row), step_(step) {}
  void clear() { n_ = 0; }
  void add(const uint8_t* src, int len) {
    const bool pad = src == nullptr;
    if (n_ > 0) {
      Im2ColRun& last = runs_[n_ - 1];
      const bool joins = pad ? last.src == zp_ : last.src != zp_ && last.src + last.len == src;
      if (joins) {
        last.len += len;
        return;
      }
    }
    runs_[n_++] = pad ? Im2ColRun{zp_, 0, len} : Im2ColRun{src, step_, len};
  }
  const uint8_t* zero_point_row() const { return zp_; }
  const Im2ColRun* data() const { return runs_; }
  int size() const { return n_; }

 private:
  Im2ColRun* runs_;
  const uint8_t* zp_;
  int64_t step_;
  int n_ = 0;
};

// The output pixels from p on, in p's row of output pixels, whose every tap lies inside
// the input width (forward convolution): for them the rows of the im2col matrix are one
// run list moving by stride_w * IC per pixel. 0 when p itself is not such a pixel.
//   iw0 = ow * stride - pad >= 0   and   iw0 + (KW - 1) * dilation < IW
int interior_stretch(const ConvGeometry& g, const OutPos& p) {
  if (g.transposed) return 0;
  const int iw0 = p.o[2] * g.stride[2] - g.pad_begin[2];
  const int last_iw0 = g.in[2] - 1 - (g.kernel[2] - 1) * g.dilation[2];
  if (iw0 < 0 || iw0 > last_iw0) return 0;
  return std::min(g.out[2] - p.o[2], (last_iw0 - iw0) / g.stride[2] + 1);
}

// Upper bound on the runs of one row: three per kernel row, or one per tap.
int max_runs(const ConvGeometry& g) { return 3 * g.kernel_prod() + 1; }

// Appends the runs of output position p's row in group grp, columns [k0, k1).
void build_row(const ConvGeometry& g, const uint8_t* A, const OutPos& p, int grp, int k0,
               int k1, RunList& runs) {
  const int icg = g.ic_per_group();
  const int kw_count = g.kernel[2];
  const int row_cols = kw_count * icg;
  const bool contiguous_kw = !g.transposed && g.dilation[2] == 1 && icg == g.in_channels;
  const int64_t pixel_bytes = g.in_channels;
  for (int r = k0 / row_cols; r <= (k1 - 1) / row_cols; ++r) {
    const int col0 = r * row_cols;  // group column of the kernel row's first tap
    // Columns [col0 + c, col0 + c + len), clipped to [k0, k1); src null: zero point.
    const auto piece = [&](const uint8_t* src, int c, int len) {
      const int lo = std::max(col0 + c, k0), hi = std::min(col0 + c + len, k1);
      if (hi > lo) runs.add(src != nullptr ? src + (lo - col0 - c) : nullptr, hi - lo);
    };
    const int it = conv_input_index(g, 0, p.o[0], r / g.kernel[1]);
    const int ih = conv_input_index(g, 1, p.o[1], r % g.kernel[1]);
    if (it < 0 || ih < 0) {
      piece(nullptr, 0, row_cols);
      continue;
    }
    const uint8_t* in_row =
        A + ((int64_t{p.n} * g.in[0] + it) * g.in[1] + ih) * g.in[2] * pixel_bytes + grp * icg;
    if (contiguous_kw) {
      // Taps kw in [lo, hi) read input positions iw0 + kw, all inside the row.
      const int iw0 = p.o[2] * g.stride[2] - g.pad_begin[2];
      const int lo = std::max(0, -iw0), hi = std::min(kw_count, g.in[2] - iw0);
      if (hi <= lo) {
        piece(nullptr, 0, row_cols);
        continue;
      }
      piece(nullptr, 0, lo * icg);
      piece(in_row + (iw0 + lo) * pixel_bytes, lo * icg, (hi - lo) * icg);
      piece(nullptr, hi * icg, (kw_count - hi) * icg);
    } else {
      const int kw_first = std::max(0, (k0 - col0) / icg);
      const int kw_last = std::min(kw_count - 1, (k1 - 1 - col0) / icg);
      for (int kw = kw_first; kw <= kw_last; ++kw) {
        const int iw = conv_input_index(g, 2, p.o[2], kw);
        piece(iw < 0 ? nullptr : in_row + iw * pixel_bytes, kw * icg, icg);
      }
    }
  }
}


// The input rows read by one output row, copied with the width padding filled in: row r
// (kernel row (kt, kh)) holds input positions [-pad_begin, -pad_begin + width) of its
// input row, so that output pixel ow's taps start ow * stride positions in. Only what
// the pixels being packed read is copied, and no row of padding (their runs read the
// zero-point row).
class PaddedRows {
 public:
  static constexpr int kMaxBytes = 16384;  // on the stack
  static constexpr int kMaxRows = 64;      // kernel rows (kt, kh)

  // Layers that take this path: forward, kernel rows contiguous and at most 32 bytes.
  static bool applies(const ConvGeometry& g) {
    const int rows = g.kernel[0] * g.kernel[1];
    return !g.transposed && g.dilation[2] == 1 && g.ic_per_group() == g.in_channels &&
           g.kernel[2] * g.in_channels <= 32 && rows <= kMaxRows &&
           int64_t{row_bytes(g)} * rows <= kMaxBytes;
  }

  PaddedRows(const ConvGeometry& g, const uint8_t* A, uint8_t zp)
      : g_(g), A_(A), zp_(zp), bytes_(row_bytes(g)) {}

  // Copies what pixels [p, p + n) of p's output row read in kernel rows [r0, r1] (only
  // the rows inside the input).
  void fill(const OutPos& p, int n, int r0, int r1) {
    const int ic = g_.in_channels, pad = g_.pad_begin[2];
    const int q0 = p.o[2] * g_.stride[2], q1 = (p.o[2] + n - 1) * g_.stride[2] + g_.kernel[2];
    const int lo = std::clamp(pad, q0, q1), hi = std::clamp(pad + g_.in[2], lo, q1);
    base_ = q0 * ic;
    for (int r = r0; r <= r1; ++r) {
      const int it = conv_input_index(g_, 0, p.o[0], r / g_.kernel[1]);
      const int ih = conv_input_index(g_, 1, p.o[1], r % g_.kernel[1]);
      inside_[r] = it >= 0 && ih >= 0;
      if (!inside_[r]) continue;
      const uint8_t* in = A_ + ((int64_t{p.n} * g_.in[0] + it) * g_.in[1] + ih) * g_.in[2] * ic;
      uint8_t* d = buf_ + int64_t{r} * bytes_;
      std::memset(d + q0 * ic, zp_, static_cast<size_t>(lo - q0) * ic);
      std::memcpy(d + lo * ic, in + (lo - pad) * ic, static_cast<size_t>(hi - lo) * ic);
      std::memset(d + hi * ic, zp_, static_cast<size_t>(q1 - hi) * ic);
    }
  }

  // Kernel row r's taps for the first pixel filled, or null when the row reads padding.
  const uint8_t* taps(int r) const {
    return inside_[r] ? buf_ + int64_t{r} * bytes_ + base_ : nullptr;
  }

 private:
  // Input positions read by a whole output row, times the channels.
  static int row_bytes(const ConvGeometry& g) {
    return ((g.out[2] - 1) * g.stride[2] + g.kernel[2]) * g.in_channels;
  }

  const ConvGeometry& g_;
  const uint8_t* A_;
  uint8_t zp_;
  int bytes_;
  int base_ = 0;
  bool inside_[kMaxRows] = {};
  alignas(64) uint8_t buf_[kMaxBytes];
};

// The block through PaddedRows: one stretch per output row (or its part in the block).
void pack_padded(const ConvGeometry& g, const uint8_t* A, const block_type_t& block, int k0,
                 int k1, RunList& runs, conv::Im2ColRowsFn rows_fn, uint8_t* dst,
                 int64_t ld_dst, int32_t* row_sums) {
  PaddedRows padded(g, A, *runs.zero_point_row());
  const int row_cols = g.kernel[2] * g.in_channels;
  const int r0 = k0 / row_cols, r1 = (k1 - 1) / row_cols;
  OutPos p = out_pos(g, block.row_start);
  for (int i = 0; i < block.row_size;) {
    const int rows = std::min(g.out[2] - p.o[2], block.row_size - i);
    padded.fill(p, rows, r0, r1);
    runs.clear();
    for (int r = r0; r <= r1; ++r) {
      const int lo = std::max(r * row_cols, k0), hi = std::min(r * row_cols + row_cols, k1);
      const uint8_t* src = padded.taps(r);
      runs.add(src != nullptr ? src + (lo - r * row_cols) : nullptr, hi - lo);
    }
    rows_fn(runs.data(), runs.size(), rows, dst + i * ld_dst, ld_dst,
            row_sums != nullptr ? row_sums + i : nullptr, k0 != 0);
    i += rows;
    advance(g, p, rows);
  }
}

}  // namespace

void pack_im2col_block(const ConvGeometry& g, const uint8_t* A, const uint8_t* zp_row,
                       const block_type_t& block, uint8_t* dst, int64_t ld_dst,
                       int32_t* row_sums, inst_set_t path) {
  const int kg = g.gemm_k_per_group();
  const int grp = block.col_start / kg;
  const int k0 = block.col_start - grp * kg, k1 = k0 + block.col_size;
  const bool accumulate = k0 != 0;
  const conv::Im2ColRowsFn rows_fn = conv::conv_kernels_for(record_at_or_below(path)).im2col_rows;

  constexpr int kStackRuns = 256;
  Im2ColRun stack_runs[kStackRuns];
  std::vector<Im2ColRun> heap_runs;
  Im2ColRun* storage = stack_runs;
  if (max_runs(g) > kStackRuns) {
    heap_runs.resize(static_cast<size_t>(max_runs(g)));
    storage = heap_runs.data();
  }
  RunList runs(storage, zp_row, int64_t{g.stride[2]} * g.in_channels);
  if (PaddedRows::applies(g)) {
    pack_padded(g, A, block, k0, k1, runs, rows_fn, dst, ld_dst, row_sums);
    return;
  }

  // Rows go in stretches: a run of interior pixels (one run list for all), or one row.
  OutPos p = out_pos(g, block.row_start);
  for (int i = 0; i < block.row_size;) {
    const int rows = std::clamp(interior_stretch(g, p), 1, block.row_size - i);
    runs.clear();
    build_row(g, A, p, grp, k0, k1, runs);
    rows_fn(runs.data(), runs.size(), rows, dst + i * ld_dst, ld_dst,
            row_sums != nullptr ? row_sums + i : nullptr, accumulate);
    i += rows;
    advance(g, p, rows);
  }
}

}  // namespace quire::detail
