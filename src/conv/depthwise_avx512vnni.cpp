// The depthwise kernel on AVX512-VNNI (vpdpbusd dot products).
#include "conv/depthwise_kernel.h"
#include "conv/simd_conv_avx512.h"

namespace quire::conv {

void depthwise_avx512vnni(const DirectArgs& a) { depthwise_kernel<ConvAvx512<true>>(a); }

}  // namespace quire::conv
