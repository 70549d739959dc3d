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
  // One row's decode loop: n >= 1 blocks of 256 bytes from w on; for column vector v,
  // lo[v] += (x & 0x0F) . A's bytes 0-3, hi[v] += (x & 0xF0) . bytes 4-7 (16 x the high
  // nibbles' dot, which the caller folds). In assembly: each 64-byte chunk loaded once,
  // A's two groups broadcast once per block, 2 vpandd and 2 vpdpbusd per chunk. From
  // intrinsics GCC folded the chunk load into both ANDs (two 64-byte loads per chunk)
  // and copied accumulators between registers: M = 1, 4096 x 4096 from L3, 87.6 GB/s
  // against 92.7 in assembly.
  static void row_pass(__m512i (&lo)[4], __m512i (&hi)[4], const uint8_t* w, const int8_t* a,
                       int n, __m512i nibble, __m512i high);
  // Two rows, A's groups already broadcast: acc0 += lo . a_lo, acc1 += hi . a_hi.
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

// zmm16 / zmm17: A's broadcasts, zmm20: the chunk, zmm21 / zmm22: x & 0x0F / x & 0xF0.
#define QUIRE_CHUNK(v, offset)                   \
  "vmovdqu64 " #offset "(%[w]), %%zmm20\n\t"     \
  "vpandd %%zmm20, %[nib], %%zmm21\n\t"          \
  "vpandd %%zmm20, %[high], %%zmm22\n\t"         \
  "vpdpbusd %%zmm16, %%zmm21, %[lo" #v "]\n\t"   \
  "vpdpbusd %%zmm17, %%zmm22, %[hi" #v "]\n\t"

void DotVnni::row_pass(__m512i (&lo)[4], __m512i (&hi)[4], const uint8_t* w, const int8_t* a,
                       int n, __m512i nibble, __m512i high) {
  asm volatile(
      "1:\n\t"
      "vpbroadcastd (%[a]), %%zmm16\n\t"
      "vpbroadcastd 4(%[a]), %%zmm17\n\t"
      QUIRE_CHUNK(0, 0) QUIRE_CHUNK(1, 64) QUIRE_CHUNK(2, 128) QUIRE_CHUNK(3, 192)
      "add $256, %[w]\n\t"
      "add $8, %[a]\n\t"
      "dec %[n]\n\t"
      "jnz 1b"
      : [lo0] "+v"(lo[0]), [lo1] "+v"(lo[1]), [lo2] "+v"(lo[2]), [lo3] "+v"(lo[3]),
        [hi0] "+v"(hi[0]), [hi1] "+v"(hi[1]), [hi2] "+v"(hi[2]), [hi3] "+v"(hi[3]),
        [w] "+r"(w), [a] "+r"(a), [n] "+r"(n)
      : [nib] "v"(nibble), [high] "v"(high)
      : "xmm16", "xmm17", "xmm20", "xmm21", "xmm22", "cc", "memory");
}
#undef QUIRE_CHUNK

}  // namespace

const Int4Kernels kInt4Avx512Vnni = avx512::make_kernels<DotVnni>("int4_avx512vnni");

}  // namespace quire::int4
