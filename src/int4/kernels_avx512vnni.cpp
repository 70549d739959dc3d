// The avx512_vnni W4A8 kernels: one vpdpbusd per 4 K values x 16 columns, the codes as
// its unsigned operand and A's 4 bytes broadcast from memory as its signed one.
#include "int4/tile_avx512.h"

namespace quire::int4 {
namespace {

// The dot step of one row: acc0 += lo . a[0..3], acc1 += hi . a[4..7] (u8 x s8 -> s32,
// sums of 4 products per lane). Inline assembly for the {1to16} memory broadcast of A's
// four bytes: written with intrinsics, GCC 12 keeps every row's broadcasts in registers
// across the column vectors and spills the accumulators of a 6-row tile.
struct DotVnni {
  static constexpr int kMaxRows = 6;
  static constexpr bool kDualAtSmallRows = true;
  static void dot(__m512i& acc, __m512i u8, const int8_t* s8x4) {
    asm("vpdpbusd %2%{1to16%}, %1, %0"
        : "+v"(acc)
        : "v"(u8), "m"(*reinterpret_cast<const int32_t*>(s8x4)));
  }
  // The same with A's groups already broadcast (rows <= 2, where registers are free).
  static void dot_reg(__m512i& acc0, __m512i& acc1, __m512i lo, __m512i hi, __m512i a_lo,
                      __m512i a_hi) {
    asm("vpdpbusd %2, %1, %0" : "+v"(acc0) : "v"(lo), "v"(a_lo));
    asm("vpdpbusd %2, %1, %0" : "+v"(acc1) : "v"(hi), "v"(a_hi));
  }
  static void step(__m512i& acc0, __m512i& acc1, __m512i lo, __m512i hi, const int8_t* a) {
    dot(acc0, lo, a);
    dot(acc1, hi, a + 4);
  }
};

}  // namespace

const Int4Kernels kInt4Avx512Vnni = avx512::make_kernels<DotVnni>("int4_avx512vnni");

}  // namespace quire::int4
