// The depthwise entry point: checks, then the row kernel for the layers it takes
// (depthwise_rows.h, this thread's output rows), else per-channel requantization in the
// pixel kernels' lane order, the zero-point row, this thread's pixels, and the active
// path's pixel kernel.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "conv/conv_kernels.h"
#include "conv/depthwise_layout.h"
#include "conv/depthwise_rows.h"
#include "conv/direct_params.h"
#include "quire/Utils.h"
#include "quire/detail/Check.h"
#include "quire/detail/ConvDirect.h"

namespace quire::detail {

void depthwise_conv(const ConvGeometry& g, const uint8_t* A, const int8_t* packed,
                    const DirectRequant& r, uint8_t* C, int thread_id, int num_threads,
                    const char* where) {
  check_direct_call(g, A, packed, r, C, thread_id, num_threads, where);
  check_arg(g.groups == g.in_channels, where, "G", g.groups,
            "must equal IC for a depthwise convolution");
  check_arg(g.out_channels == g.in_channels || g.out_channels == 2 * g.in_channels, where, "OC",
            g.out_channels, "must be IC or 2 x IC (channel multiplier 1 or 2)");
  check_arg(g.kernel_prod() <= 1024, where, "kernel size", g.kernel_prod(), "must be <= 1024");
  const int channels = g.out_channels;
  const IsaRecord& active = active_isa();
  const conv::DepthwiseRowKernels* row_kernels = conv::conv_kernels_for(active).depthwise_rows;
  if (row_kernels != nullptr && row_kernels->fit(g, r)) {
    conv::DepthwiseRowsArgs rows{&g, A, packed, C, &r, 0, 0};
    fbgemmPartition1D(thread_id, num_threads, int64_t{g.batch} * g.out[0] * g.out[1],
                      rows.row_begin, rows.row_end);
    if (rows.row_begin < rows.row_end) {
      if (g.stride[1] == 1) row_kernels->stride1(rows);
      else row_kernels->stride2(rows);
    }
    return;
  }
  const conv::ChannelParams natural(r, channels);
  const int padded = static_cast<int>(natural.mult.size());
  std::vector<int32_t> col_term(padded), b_zp(padded);
  std::vector<float> mult(padded), fbias(natural.fbias.empty() ? 0 : padded);
  for (int c = 0; c < padded; ++c) {
    const int p = conv::depthwise_lane_index(c);
    col_term[p] = natural.col_term[c];
    b_zp[p] = natural.b_zp[c];
    mult[p] = natural.mult[c];
    if (!fbias.empty()) fbias[p] = natural.fbias[c];
  }
  conv::DirectArgs args{};
  args.q = natural.requant;
  args.q.col_term = col_term.data();
  args.q.b_zp = natural.requant.b_zp != nullptr ? b_zp.data() : nullptr;
  args.q.mult = mult.data();
  args.q.fbias = fbias.empty() ? nullptr : fbias.data();
  // b_zp as the dot products' second operand: the bytes of channel c's lane, like a quad
  // of its taps, hold b_zp[c] (when it fits a byte; see the kernel choice below).
  std::vector<int8_t> row_w;
  if (natural.requant.b_zp != nullptr) {
    row_w.assign(static_cast<size_t>(padded) * 4, 0);
    for (int c = 0; c < channels; ++c)
      for (int t = 0; t < 4; ++t)
        row_w[conv::depthwise_packed_index(c, t, 1)] = static_cast<int8_t>(natural.b_zp[c]);
  }
  const std::vector<uint8_t> zp_row(padded, static_cast<uint8_t>(r.a_zero_point));
  const std::vector<uint8_t> zero_row(padded, 0);
  args.g = &g;
  args.A = A;
  args.W = packed;
  args.C = C;
  args.zp_row = zp_row.data();
  args.zero_row = zero_row.data();
  args.row_w = row_w.empty() ? nullptr : row_w.data();
  fbgemmPartition1D(thread_id, num_threads, g.batch * g.out_pixels(), args.pixel_begin,
                    args.pixel_end);
  // The vector kernels carry b_zp as a byte of their second dot product (row_w above), so
  // a zero point outside [-128, 127], which the int32 API allows (engines fold offsets into
  // it), would wrap there. Such layers run the portable kernel, which multiplies the row
  // sum by the int32 zero point: slower, never wrong.
  bool b_zp_fits_int8 = true;
  for (int c = 0; c < channels && natural.requant.b_zp != nullptr; ++c)
    b_zp_fits_int8 = b_zp_fits_int8 && natural.b_zp[c] >= -128 && natural.b_zp[c] <= 127;
  const IsaRecord& isa = b_zp_fits_int8 ? active : isa_record(Isa::portable);
  if (args.pixel_begin < args.pixel_end) conv::conv_kernels_for(isa).depthwise(args);
}

}  // namespace quire::detail

namespace quire::conv {

namespace {

// The layers both row kernels take, whatever their B zero points.
bool rows_shape_fits(const detail::ConvGeometry& g, const detail::DirectRequant& r) {
  const int C = g.out_channels;
  // Frames of a 3D layer whose kernel is 1 deep are just more images. One quantization
  // group per channel or one in all.
  bool fit = C == g.in_channels && depthwise_has_columns(C, g.kernel_prod()) &&
             g.kernel[0] == 1 && g.stride[0] == 1 && g.pad_begin[0] == 0 &&
             g.out[0] == g.in[0] && (r.channels_per_q == 1 || r.channels_per_q >= C);
  // Stride 1 in both dimensions with the input's size out, or stride 2 in both (the
  // stride-2 kernel reads padding past the input's end, so any end pad).
  const int stride = g.stride[1];
  for (int d = 1; d < 3; ++d)
    fit = fit && g.kernel[d] == 3 && g.dilation[d] == 1 && g.pad_begin[d] == 1 &&
          g.stride[d] == stride && (stride == 2 || (stride == 1 && g.out[d] == g.in[d]));
  return fit;
}

// Whether every B zero point is in [lo, hi]. A reduction without early exit:
// vectorized, a large layer's zero points cost little.
bool b_zp_within(const detail::ConvGeometry& g, const detail::DirectRequant& r, int32_t lo,
                 int32_t hi) {
  const int zero_points = r.channels_per_q == 1 ? g.out_channels : 1;
  int32_t min = 0, max = 0;
  for (int c = 0; c < zero_points; ++c) {
    min = std::min(min, r.b_zero_point[c]);
    max = std::max(max, r.b_zero_point[c]);
  }
  return min >= lo && max <= hi;
}

}  // namespace

// z and -z must both fit a byte of the dot products' weights.
bool depthwise_rows_fit(const detail::ConvGeometry& g, const detail::DirectRequant& r) {
  return rows_shape_fits(g, r) && b_zp_within(g, r, -127, 127);
}

// The tap-pair kernel's weights w - z are int16 (w in [-128, 127]).
bool depthwise_rows_fit_avx2(const detail::ConvGeometry& g, const detail::DirectRequant& r) {
  return rows_shape_fits(g, r) && b_zp_within(g, r, INT16_MIN + 128, INT16_MAX - 127);
}

}  // namespace quire::conv
