// The groupwise kernel on AVX2 (exact vpmaddwd dot products, 8 lanes, 4 pixels per
// weight load to fit 16 registers).
#include "conv/groupwise_kernel.h"
#include "conv/simd_conv_avx2.h"

namespace quire::conv {

void groupwise_avx2(const DirectArgs& a) { groupwise_kernel<ConvAvx2, 4>(a); }

}  // namespace quire::conv
