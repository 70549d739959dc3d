// The groupwise kernels on AVX-512 without VNNI (exact vpmaddwd dot products, each
// weight vector two registers): 2 and 4 channels per group without shuffles (2 and 3
// pixels per weight load); 8 and 16 with, 8 pixels per weight load.
#include "conv/groupwise_dword_kernel.h"
#include "conv/groupwise_kernel.h"
#include "conv/simd_conv_avx512.h"

namespace quire::conv {

void groupwise_avx512(const DirectArgs& a) {
  switch (a.g->ic_per_group()) {
    case 2: groupwise_dword<ConvAvx512<false>, 2, 2>(a); break;
    case 4: groupwise_dword<ConvAvx512<false>, 4, 3>(a); break;
    default: groupwise_kernel<ConvAvx512<false>, 8>(a); break;
  }
}

}  // namespace quire::conv
