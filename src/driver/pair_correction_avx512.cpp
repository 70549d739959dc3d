// The pair correction on AVX-512 (16 rows per vector).
#include "driver/pair_correction_simd.h"
#include "simd/vec_avx512.h"

namespace quire::detail {
constinit const PairCorrectionKernels kPairCorrectionAvx512 = make_pair_correction<Avx512>();
}  // namespace quire::detail
