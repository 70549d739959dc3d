// The sparse AdaGrad loops on AVX2 (8 lanes): adagrad_simd.h over Avx2.
#include "simd/vec_avx2.h"

#include "embedding/adagrad_simd.h"

namespace quire::detail {

constinit const AdagradKernels kAdagradAvx2 = make_adagrad_kernels<Avx2>();

}  // namespace quire::detail
