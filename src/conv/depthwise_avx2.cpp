// The depthwise kernel on AVX2 (exact vpmaddwd dot products, 32 channels per vector).
#include "conv/depthwise_kernel.h"
#include "conv/simd_conv_avx2.h"

namespace quire::conv {

void depthwise_avx2(const DirectArgs& a) { depthwise_kernel<ConvAvx2>(a); }

}  // namespace quire::conv
