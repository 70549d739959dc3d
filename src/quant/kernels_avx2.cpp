// kQuantAvx2: the quantization kernels of simd_kernels.h on AVX2 + FMA + F16C, 8 lanes.
#include "simd/vec_avx2.h"
#include "quant/simd_kernels.h"

namespace quire::detail {

constinit const QuantKernels kQuantAvx2 = make_quant_kernels<Avx2>();

}  // namespace quire::detail
