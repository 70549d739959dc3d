// The avx512_vnni W4A8 kernels: one vpdpbusd per 4 K values x 16 columns, the codes as
// its unsigned operand and A's 4 bytes broadcast from memory as its signed one.
#include "int4/tile_avx512.h"

namespace quire::int4 {
namespace {

struct DotVnni {
  static constexpr bool kDualAtSmallRows = true;
  // acc0 += lo . a0, acc1 += hi . a1 (u8 x s8 -> s32, sums of 4 products)
  static void step(__m512i& acc0, __m512i& acc1, __m512i lo, __m512i a0, __m512i hi, __m512i a1) {
    acc0 = _mm512_dpbusd_epi32(acc0, lo, a0);
    acc1 = _mm512_dpbusd_epi32(acc1, hi, a1);
  }
};

}  // namespace

const Int4Kernels kInt4Avx512Vnni = avx512::make_kernels<DotVnni>("int4_avx512vnni");

}  // namespace quire::int4
