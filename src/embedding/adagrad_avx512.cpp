// The sparse AdaGrad loops on AVX-512 (16 lanes): adagrad_simd.h over Avx512.
#include "simd/vec_avx512.h"

#include "embedding/adagrad_simd.h"

namespace quire::detail {

constinit const AdagradKernels kAdagradAvx512 = make_adagrad_kernels<Avx512>();

}  // namespace quire::detail
