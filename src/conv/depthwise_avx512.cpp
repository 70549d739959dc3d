// The depthwise kernel on AVX-512 without VNNI (exact vpmaddwd dot products).
#include "conv/depthwise_kernel.h"
#include "conv/simd_conv_avx512.h"

namespace quire::conv {

void depthwise_avx512(const DirectArgs& a) { depthwise_kernel<ConvAvx512<false>>(a); }

}  // namespace quire::conv
