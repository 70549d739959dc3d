// The groupwise kernels on AVX2 (exact vpmaddwd dot products, 8 lanes, 16 registers):
// 2 and 4 channels per group without shuffles (2 and 3 pixels per weight load); 8 and
// 16 with, 4 pixels per weight load.
#include "conv/groupwise_dword_kernel.h"
#include "conv/groupwise_kernel.h"
#include "conv/simd_conv_avx2.h"

namespace quire::conv {

void groupwise_avx2(const DirectArgs& a) {
  switch (a.g->ic_per_group()) {
    case 2: groupwise_dword<ConvAvx2, 2, 2>(a); break;
    case 4: groupwise_dword<ConvAvx2, 4, 3>(a); break;
    default: groupwise_kernel<ConvAvx2, 4>(a); break;
  }
}

}  // namespace quire::conv
