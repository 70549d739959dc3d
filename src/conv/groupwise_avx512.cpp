// The groupwise kernel on AVX-512 without VNNI (exact vpmaddwd dot products).
#include "conv/groupwise_kernel.h"
#include "conv/simd_conv_avx512.h"

namespace quire::conv {

void groupwise_avx512(const DirectArgs& a) { groupwise_kernel<ConvAvx512<false>, 8>(a); }

}  // namespace quire::conv
