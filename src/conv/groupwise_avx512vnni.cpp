// The groupwise kernels on AVX512-VNNI (vpdpbusd dot products): 2, 4 and 8 channels per
// group without shuffles (3, 4 and 2 pixels per weight load: 2 per group keeps two row
// sums per pixel, 8 per group eight accumulators); 16 with, 8 pixels per weight load.
#include "conv/groupwise_dword_kernel.h"
#include "conv/groupwise_kernel.h"
#include "conv/groupwise_pair_kernel.h"
#include "conv/simd_conv_avx512.h"

namespace quire::conv {

void groupwise_avx512vnni(const DirectArgs& a) {
  switch (a.g->ic_per_group()) {
    case 2: groupwise_dword<ConvAvx512<true>, 2, 3>(a); break;
    case 4: groupwise_dword<ConvAvx512<true>, 4, 4>(a); break;
    case 8: groupwise_pair<ConvAvx512<true>, 2>(a); break;
    default: groupwise_kernel<ConvAvx512<true>, 8>(a); break;
  }
}

}  // namespace quire::conv
