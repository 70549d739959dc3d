// kEpilogueAvx2: the output-pipeline routines of epilogue_kernels.h on AVX2, 8 int32
// lanes per ymm. Full vectors use plain loads and stores; block tails use maskload and
// exact-size stores.
#include "simd/vec_avx2.h"
#include "epilogue/epilogue_kernels.h"

namespace quire::detail {

constinit const EpilogueTable kEpilogueAvx2 = make_epilogue_table<Avx2>();

}  // namespace quire::detail
