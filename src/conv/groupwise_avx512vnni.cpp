// The groupwise kernels on AVX512-VNNI (vpdpbusd dot products): 4 channels per group
// without shuffles, 4 pixels per weight load; the other counts 8 pixels per weight load.
#include "conv/groupwise_cg4_kernel.h"
#include "conv/groupwise_kernel.h"
#include "conv/simd_conv_avx512.h"

namespace quire::conv {

void groupwise_avx512vnni(const DirectArgs& a) {
  if (a.g->ic_per_group() == 4)
    groupwise_cg4<ConvAvx512<true>, 4>(a);
  else
    groupwise_kernel<ConvAvx512<true>, 8>(a);
}

}  // namespace quire::conv
