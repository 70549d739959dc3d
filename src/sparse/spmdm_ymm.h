// SpmdmYmm: the vector vocabulary of spmdm_simd.h on AVX2, 16 int16 rows per ymm.
// spmdm_avx2.cpp runs it alone; spmdm_avx512.cpp for chunks of at most 16 rows. Included
// only by those files; internal linkage.
#pragma once

#include <cstdint>

#include "simd/vec_avx2.h"
#include "sparse/spmdm_simd.h"

namespace quire::detail {
namespace {

struct SpmdmYmm {
  using Vec = Avx2;  // add_sums' vocabulary
  using I = __m256i;
  static constexpr int kLanes16 = 16;
  // Chunks of up to 64 rows: 8 accumulators + 4 operands + the weight pair, 13 of 16 ymm.
  static constexpr int kMaxNv = 4;

  static I zero() { return _mm256_setzero_si256(); }
  static I load(const int16_t* p) {
    return _mm256_load_si256(reinterpret_cast<const __m256i*>(p));
  }
  static void store(int32_t* p, I v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }
  // (v1, v2) as int16 in every 32-bit lane, v1 low.
  static I weight_pair(int8_t v1, int8_t v2) { return _mm256_set1_epi32(pack_pair(v1, v2)); }
  static I unpacklo(I a, I b) { return _mm256_unpacklo_epi16(a, b); }
  static I unpackhi(I a, I b) { return _mm256_unpackhi_epi16(a, b); }
  static I madd(I a, I w) { return _mm256_madd_epi16(a, w); }
  static I add(I a, I b) { return _mm256_add_epi32(a, b); }
};

}  // namespace
}  // namespace quire::detail
