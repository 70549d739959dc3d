// The groupwise kernel in plain C++ (the anyarch path): for each output pixel and
// channel, the dot product of its group's window with the channel's weights, and the
// group's row sum, requantized as the vector kernels do.
#include "conv/conv_kernels.h"
#include "conv/direct_params.h"
#include "conv/tap_walker.h"

namespace quire::conv {

void groupwise_portable(const DirectArgs& a) {
  const detail::ConvGeometry& g = *a.g;
  const int C = g.in_channels, cg = g.ic_per_group(), dq = (cg + 3) / 4, taps = g.kernel_prod();
  TapWalker walker(g, a.A, a.zp_row, a.pixel_begin, taps);
  for (int64_t px = a.pixel_begin; px < a.pixel_end; ++px) {
    const uint8_t* const* tap = walker.taps();
    for (int oc = 0; oc < C; ++oc) {
      const int base = oc / cg * cg;  // the group's first input channel
      // Weights of lane oc % 16 of vector oc / 16 (layout in quire/GroupwiseConv.h).
      const int8_t* w = a.W + int64_t{oc / 16} * taps * dq * 64 + (oc % 16) * 4;
      int32_t acc = 0, row_sum = 0;
      for (int t = 0; t < taps; ++t) {
        for (int c = 0; c < cg; ++c) {
          const int32_t x = tap[t][base + c];
          acc += x * w[(t * dq + c / 4) * 64 + c % 4];
          row_sum += x;
        }
      }
      a.C[px * C + oc] = requantize_channel(a.q, oc, acc, row_sum);
    }
    if (px + 1 < a.pixel_end) walker.next();
  }
}

}  // namespace quire::conv
