// The depthwise kernel in plain C++ (the anyarch path): for each output pixel and
// output channel c, the dot product of the window of input channel c / M (M = OC / IC,
// the channel multiplier) with the channel's weights and the window's row sum,
// requantized as the vector kernels do.
#include "conv/conv_kernels.h"
#include "conv/depthwise_layout.h"
#include "conv/direct_params.h"
#include "conv/tap_walker.h"

namespace quire::conv {

void depthwise_portable(const DirectArgs& a) {
  const detail::ConvGeometry& g = *a.g;
  const int C = g.out_channels, M = C / g.in_channels;
  const int taps = g.kernel_prod(), quads = (taps + 3) / 4;
  TapWalker walker(g, a.A, a.zp_row, a.pixel_begin, taps);
  for (int64_t px = a.pixel_begin; px < a.pixel_end; ++px) {
    const uint8_t* const* tap = walker.taps();
    for (int c = 0; c < C; ++c) {
      int32_t acc = 0, row_sum = 0;
      for (int t = 0; t < taps; ++t) {
        const int32_t x = tap[t][c / M];
        acc += x * a.W[depthwise_packed_index(c, t, quads)];
        row_sum += x;
      }
      a.C[px * C + c] = requantize_channel(a.q, depthwise_lane_index(c), acc, row_sum);
    }
    if (px + 1 < a.pixel_end) walker.next();
  }
}

}  // namespace quire::conv
