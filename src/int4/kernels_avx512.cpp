// The avx512 W4A8 kernels (no VNNI): the exact vpmaddubsw formulation. Codes are in
// [0, 15] and A in [-128, 127], so a vpmaddubsw pair sum is at most 2 * 15 * 128 = 3840
// in magnitude, and the sum of the two steps' pair sums at most 7680: far inside int16,
// never saturated. vpmaddwd against ones then widens to int32 exactly.
#include "int4/tile_avx512.h"

namespace quire::int4 {
namespace {

// Four rows at most: the 4 x 4 accumulators, both nibble vectors, the eight A
// broadcasts GCC keeps across the column vectors and the temporaries fill the 32
// registers.
struct DotMaddubs {
  static constexpr int kMaxRows = 4;
  static constexpr bool kDualAtSmallRows = false;
  static __m512i broadcast4(const int8_t* p) {
    int32_t v;
    __builtin_memcpy(&v, p, 4);
    return _mm512_set1_epi32(v);
  }
  static void step(__m512i& acc, __m512i&, __m512i lo, __m512i hi, const int8_t* a) {
    const __m512i pairs = _mm512_add_epi16(_mm512_maddubs_epi16(lo, broadcast4(a)),
                                           _mm512_maddubs_epi16(hi, broadcast4(a + 4)));
    acc = _mm512_add_epi32(acc, _mm512_madd_epi16(pairs, _mm512_set1_epi16(1)));
  }
};

}  // namespace

const Int4Kernels kInt4Avx512 = avx512::make_kernels<DotMaddubs>("int4_avx512");

}  // namespace quire::int4
