// kQuantAvx512: the quantization kernels of simd_kernels.h on AVX-512 F/BW/VL/DQ, 16 lanes.
#include "simd/vec_avx512.h"
#include "quant/simd_kernels.h"

namespace quire::detail {

constinit const QuantKernels kQuantAvx512 = make_quant_kernels<Avx512>();

}  // namespace quire::detail
