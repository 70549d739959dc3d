// transpose_avx2: the transposes of transpose_simd.h on AVX2 (8 x 8 float tiles in ymm).
#include "common/transpose.h"
#include "common/transpose_simd.h"
#include "simd/vec_avx2.h"

namespace quire::detail {

#define QUIRE_TRANSPOSE_DEF(E)                                                    \
  void transpose_avx2(int64_t M, int64_t N, const E* src, int64_t ld_src, E* dst, \
                      int64_t ld_dst) {                                           \
    Transposes<Avx2>::run(M, N, src, ld_src, dst, ld_dst);                        \
  }
QUIRE_TRANSPOSE_DEF(float)
QUIRE_TRANSPOSE_DEF(uint16_t)
QUIRE_TRANSPOSE_DEF(uint8_t)
#undef QUIRE_TRANSPOSE_DEF

const TransposeKernels kTransposeAvx2{&transpose_avx2, &transpose_avx2, &transpose_avx2};

}  // namespace quire::detail
