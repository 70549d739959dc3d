// The groupwise kernels on AVX2 (exact vpmaddwd dot products, 8 lanes, 16 registers):
// 4 channels per group without shuffles, 3 pixels per weight load; the other counts
// 4 pixels per weight load.
#include "conv/groupwise_cg4_kernel.h"
#include "conv/groupwise_kernel.h"
#include "conv/simd_conv_avx2.h"

namespace quire::conv {

void groupwise_avx2(const DirectArgs& a) {
  if (a.g->ic_per_group() == 4)
    groupwise_cg4<ConvAvx2, 3>(a);
  else
    groupwise_kernel<ConvAvx2, 4>(a);
}

}  // namespace quire::conv
