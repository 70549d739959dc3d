// SpmdmYmm: the vector loop of spmdm_simd.h on AVX2, 16 int16 rows per ymm.
// spmdm_avx2.cpp runs it alone; spmdm_avx512.cpp for chunks of at most 16 rows. Included
// only by those files; internal linkage.
#pragma once

#include <cstdint>

#include "simd/vec_avx2.h"
#include "sparse/spmdm_simd.h"

namespace quire::detail {
namespace {

// Chunks of up to 64 rows: 8 accumulators + 4 operands + the weight pair, 13 of 16 ymm.
using SpmdmYmm = SpmdmVectors<Avx2, 4>;

}  // namespace
}  // namespace quire::detail
