// The depthwise row kernels of the ymm paths over ConvAvx2: the tap-pair kernel
// (depthwise_tap_pairs.h, vpmaddwd, exact for any data) at stride 2 and for stride-1
// shares with 8-bit activations, the certified row kernel (depthwise_rows_s1.h,
// vpmaddubsw) for 7-bit ones.
#include "conv/depthwise_rows_s1.h"
#include "conv/depthwise_tap_pairs.h"
#include "conv/simd_conv_avx2.h"

namespace quire::conv {
namespace {

using S = ConvAvx2;

// Whether the activations the share reads are 7-bit: the input rows its output rows
// read, one past each end (stride 1: input rows are output rows), a contiguous range of
// the batch, and the zero point of the padding.
bool share_7bit(const DepthwiseRowsArgs& a) {
  if (a.r->a_zero_point > 127) return false;
  const detail::ConvGeometry& g = *a.g;
  const int H = g.in[1];
  const int64_t row_bytes = int64_t{g.in[2]} * g.out_channels;
  const int64_t first = a.row_begin % H == 0 ? a.row_begin : a.row_begin - 1;
  const int64_t last = a.row_end % H == 0 ? a.row_end : a.row_end + 1;
  return bytes_at_most<S>(a.A + first * row_bytes, (last - first) * row_bytes, 127);
}

// Stride 1: the row kernel for 7-bit activations, where its certified form runs
// throughout (every certificate limit is at least 128 when the B zero points fit a
// byte): 1.1-1.6x the tap-pair kernel on Zen 3. Its exact form is 0.75-1.0x the tap-pair
// kernel's, so other activations go to that (pair-safe weights too, whose 8-bit
// activations the row kernel would also certify: rare in trained weights, which hold
// 127 or -128 in every channel).
void rows_avx2(const DepthwiseRowsArgs& a) {
  const int C = a.g->out_channels;
  const ChannelParams n(*a.r, C);
  bool z_bytes = true;
  for (int c = 0; c < C; ++c) z_bytes = z_bytes && n.b_zp[c] >= -128 && n.b_zp[c] <= 127;
  if (!z_bytes || !share_7bit(a)) {
    tap_pairs_run<S>(a, n);
    return;
  }
  const RowPhases<S> ph =
      gather_row_phases<S>(n, a.W + PackedDepthWiseConvMatrix::packedBytes(C, 9), C);
  const ChannelRequant& q = n.requant;
  const auto run = [&]<bool ROW, bool FBIAS>() { s1_run<S, ROW, FBIAS>(a, ph, q); };
  const bool row = q.b_zp != nullptr, fbias = q.fbias != nullptr;
  if (row && fbias) run.template operator()<true, true>();
  else if (row) run.template operator()<true, false>();
  else if (fbias) run.template operator()<false, true>();
  else run.template operator()<false, false>();
}

}  // namespace

void depthwise_rows_avx2(const DepthwiseRowsArgs& a) { rows_avx2(a); }
void depthwise_rows_s2_avx2(const DepthwiseRowsArgs& a) {
  tap_pairs_run<S>(a, ChannelParams(*a.r, a.g->out_channels));
}

}  // namespace quire::conv
