// The groupwise kernels on AVX2 (8 lanes, 16 registers): 2 and 4 channels per group
// without shuffles (2 and 3 pixels per weight load), 8 and 16 with (4 pixels). Where the
// share's activations are 7-bit, their dot step is vpmaddubsw's, certified (one
// vpmaddubsw and one vpmaddwd against ones per four bytes), else the exact split (two
// vpmaddwd on the bytes as words, and for 8 and 16 two shuffles where one would do).
// 2 and 4 channels take the certified step only with B zero points all 0: the split
// folds z into its int16 weights, the certified step would need row sums, which cost
// more than the step saves (Zen 3, quire-bench ResNeXt 56x56x128 G=32, 7-bit A, B zero
// points in -3..3: 88 GOPS split, 47 certified with row sums; symmetric 86 -> 112).
#include "conv/activation_bound.h"
#include "conv/groupwise_dword_kernel.h"
#include "conv/groupwise_kernel.h"
#include "conv/simd_conv_avx2.h"

namespace quire::conv {
namespace {

// Whether the activations of the images the share's output pixels lie in, and the zero
// point the padding reads, are 7-bit.
bool share_7bit(const DirectArgs& a) {
  if (a.zp_row[0] > 127) return false;
  const detail::ConvGeometry& g = *a.g;
  const int64_t out_pixels = g.out_pixels(), image_bytes = g.in_pixels() * g.in_channels;
  const int64_t first = a.pixel_begin / out_pixels, last = (a.pixel_end - 1) / out_pixels;
  return bytes_at_most<ConvAvx2>(a.A + first * image_bytes, (last - first + 1) * image_bytes,
                                 127);
}

}  // namespace

void groupwise_avx2(const DirectArgs& a) {
  switch (a.g->ic_per_group()) {
    case 2:
      if (a.q.b_zp == nullptr && share_7bit(a)) groupwise_dword<ConvAvx2Certified, 2, 2>(a);
      else groupwise_dword<ConvAvx2, 2, 2>(a);
      break;
    case 4:
      if (a.q.b_zp == nullptr && share_7bit(a)) groupwise_dword<ConvAvx2Certified, 4, 3>(a);
      else groupwise_dword<ConvAvx2, 4, 3>(a);
      break;
    default:
      if (share_7bit(a)) groupwise_kernel<ConvAvx2Certified, 4>(a);
      else groupwise_kernel<ConvAvx2, 4>(a);
      break;
  }
}

}  // namespace quire::conv
