// The groupwise kernels on AVX512-VNNI (vpdpbusd dot products): 2 and 4 channels per
// group without shuffles (4 and 3 pixels per weight load: 2 per group keeps two row
// sums per pixel); 8 and 16 with, 8 pixels per weight load.
#include "conv/groupwise_dword_kernel.h"
#include "conv/groupwise_kernel.h"
#include "conv/simd_conv_avx512.h"

namespace quire::conv {

void groupwise_avx512vnni(const DirectArgs& a) {
  switch (a.g->ic_per_group()) {
    case 2: groupwise_dword<ConvAvx512<true>, 2, 3>(a); break;
    case 4: groupwise_dword<ConvAvx512<true>, 4, 4>(a); break;
    default: groupwise_kernel<ConvAvx512<true>, 8>(a); break;
  }
}

}  // namespace quire::conv
