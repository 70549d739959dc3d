// The groupwise kernel on AVX512-VNNI (vpdpbusd dot products), 8 pixels per weight load.
#include "conv/groupwise_kernel.h"
#include "conv/simd_conv_avx512.h"

namespace quire::conv {

void groupwise_avx512vnni(const DirectArgs& a) { groupwise_kernel<ConvAvx512<true>, 8>(a); }

}  // namespace quire::conv
