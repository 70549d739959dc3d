// kEpilogueAvx512: the output-pipeline routines of epilogue_kernels.h on AVX-512
// F/BW/VL/DQ, 16 int32 lanes per zmm. Loads of block tails are masked; stores of block
// tails go in exact-size pieces.
#include "simd/vec_avx512.h"
#include "epilogue/epilogue_kernels.h"

namespace quire::detail {

constinit const EpilogueTable kEpilogueAvx512 = make_epilogue_table<Avx512>();

}  // namespace quire::detail
