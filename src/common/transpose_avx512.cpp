// transpose_avx512: the transposes of transpose_simd.h on AVX-512 (16 x 16 float tiles in zmm).
#include "common/transpose.h"
#include "common/transpose_simd.h"
#include "simd/vec_avx512.h"

namespace quire::detail {

#define QUIRE_TRANSPOSE_DEF(E)                                                      \
  void transpose_avx512(int64_t M, int64_t N, const E* src, int64_t ld_src, E* dst, \
                        int64_t ld_dst) {                                           \
    Transposes<Avx512>::run(M, N, src, ld_src, dst, ld_dst);                        \
  }
QUIRE_TRANSPOSE_DEF(float)
QUIRE_TRANSPOSE_DEF(uint16_t)
QUIRE_TRANSPOSE_DEF(uint8_t)
#undef QUIRE_TRANSPOSE_DEF

const TransposeKernels kTransposeAvx512{&transpose_avx512, &transpose_avx512, &transpose_avx512};

}  // namespace quire::detail
