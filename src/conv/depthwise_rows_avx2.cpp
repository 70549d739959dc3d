// The depthwise row kernels on AVX2 (depthwise_rows_s1.h, depthwise_rows_s2.h over
// ConvAvx2): vpmaddubsw where the certificate allows it, vpmaddwd otherwise.
#include "conv/depthwise_rows_s1.h"
#include "conv/depthwise_rows_s2.h"
#include "conv/simd_conv_avx2.h"

namespace quire::conv {
namespace {

template <bool S2>
void rows_avx2(const DepthwiseRowsArgs& a) {
  using S = ConvAvx2;
  const int C = a.g->out_channels;
  const ChannelParams n(*a.r, C);
  bool z_bytes = true;
  for (int c = 0; c < C; ++c) z_bytes = z_bytes && n.b_zp[c] >= -128 && n.b_zp[c] <= 127;
  const RowPhases<S> ph = gather_row_phases<S>(
      n, a.W + PackedDepthWiseConvMatrix::packedBytes(C, 9), C, z_bytes);
  const ChannelRequant& q = n.requant;
  const auto run = [&]<bool ROW, bool FBIAS>() {
    if constexpr (S2) s2_run<S, ROW, FBIAS>(a, ph, q);
    else s1_run<S, ROW, FBIAS>(a, ph, q);
  };
  const bool row = q.b_zp != nullptr, fbias = q.fbias != nullptr;
  if (row && fbias) run.template operator()<true, true>();
  else if (row) run.template operator()<true, false>();
  else if (fbias) run.template operator()<false, true>();
  else run.template operator()<false, false>();
}

}  // namespace

void depthwise_rows_avx2(const DepthwiseRowsArgs& a) { rows_avx2<false>(a); }
void depthwise_rows_s2_avx2(const DepthwiseRowsArgs& a) { rows_avx2<true>(a); }

}  // namespace quire::conv
