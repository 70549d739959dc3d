// The groupwise kernels on AVX-512 without VNNI (exact vpmaddwd dot products): 4 channels
// per group without shuffles, 3 pixels per weight load (each weight vector is two
// registers here); the other counts 8 pixels per weight load.
#include "conv/groupwise_cg4_kernel.h"
#include "conv/groupwise_kernel.h"
#include "conv/simd_conv_avx512.h"

namespace quire::conv {

void groupwise_avx512(const DirectArgs& a) {
  if (a.g->ic_per_group() == 4)
    groupwise_cg4<ConvAvx512<false>, 3>(a);
  else
    groupwise_kernel<ConvAvx512<false>, 8>(a);
}

}  // namespace quire::conv
