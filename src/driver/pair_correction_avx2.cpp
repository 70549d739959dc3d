// The pair correction on AVX2 (8 rows per vector).
#include "driver/pair_correction_simd.h"
#include "simd/vec_avx2.h"

namespace quire::detail {
constinit const PairCorrectionKernels kPairCorrectionAvx2 = make_pair_correction<Avx2>();
}  // namespace quire::detail
