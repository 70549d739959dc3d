// Written in asm for the same reason as peak_probe_avx512vnni.cpp.
#include "half_peak_probe.h"

namespace quire::bench::probe {

#define QUIRE_DPBF16_ZMM(acc) "vdpbf16ps %%zmm1, %%zmm0, %%zmm" #acc "\n\t"

// zmm8..zmm31 accumulate (24 chains, as the vpdpbusd probe). Operands and accumulators
// start at zero and stay there: whatever the registers held before could be denormal,
// and an FMA on a denormal runs at a fraction of the rate.
int64_t dpbf16_zmm(int64_t iterations) {
  int64_t left = iterations;
  asm volatile(
      "vpxord %%zmm0, %%zmm0, %%zmm0\n\t"
      "vpxord %%zmm1, %%zmm1, %%zmm1\n\t"
      "vpxord %%zmm8, %%zmm8, %%zmm8\n\t"
      "vpxord %%zmm9, %%zmm9, %%zmm9\n\t"
      "vpxord %%zmm10, %%zmm10, %%zmm10\n\t"
      "vpxord %%zmm11, %%zmm11, %%zmm11\n\t"
      "vpxord %%zmm12, %%zmm12, %%zmm12\n\t"
      "vpxord %%zmm13, %%zmm13, %%zmm13\n\t"
      "vpxord %%zmm14, %%zmm14, %%zmm14\n\t"
      "vpxord %%zmm15, %%zmm15, %%zmm15\n\t"
      "vpxord %%zmm16, %%zmm16, %%zmm16\n\t"
      "vpxord %%zmm17, %%zmm17, %%zmm17\n\t"
      "vpxord %%zmm18, %%zmm18, %%zmm18\n\t"
      "vpxord %%zmm19, %%zmm19, %%zmm19\n\t"
      "vpxord %%zmm20, %%zmm20, %%zmm20\n\t"
      "vpxord %%zmm21, %%zmm21, %%zmm21\n\t"
      "vpxord %%zmm22, %%zmm22, %%zmm22\n\t"
      "vpxord %%zmm23, %%zmm23, %%zmm23\n\t"
      "vpxord %%zmm24, %%zmm24, %%zmm24\n\t"
      "vpxord %%zmm25, %%zmm25, %%zmm25\n\t"
      "vpxord %%zmm26, %%zmm26, %%zmm26\n\t"
      "vpxord %%zmm27, %%zmm27, %%zmm27\n\t"
      "vpxord %%zmm28, %%zmm28, %%zmm28\n\t"
      "vpxord %%zmm29, %%zmm29, %%zmm29\n\t"
      "vpxord %%zmm30, %%zmm30, %%zmm30\n\t"
      "vpxord %%zmm31, %%zmm31, %%zmm31\n\t"
      "1:\n\t"
      QUIRE_DPBF16_ZMM(8) QUIRE_DPBF16_ZMM(9) QUIRE_DPBF16_ZMM(10) QUIRE_DPBF16_ZMM(11)
      QUIRE_DPBF16_ZMM(12) QUIRE_DPBF16_ZMM(13) QUIRE_DPBF16_ZMM(14) QUIRE_DPBF16_ZMM(15)
      QUIRE_DPBF16_ZMM(16) QUIRE_DPBF16_ZMM(17) QUIRE_DPBF16_ZMM(18) QUIRE_DPBF16_ZMM(19)
      QUIRE_DPBF16_ZMM(20) QUIRE_DPBF16_ZMM(21) QUIRE_DPBF16_ZMM(22) QUIRE_DPBF16_ZMM(23)
      QUIRE_DPBF16_ZMM(24) QUIRE_DPBF16_ZMM(25) QUIRE_DPBF16_ZMM(26) QUIRE_DPBF16_ZMM(27)
      QUIRE_DPBF16_ZMM(28) QUIRE_DPBF16_ZMM(29) QUIRE_DPBF16_ZMM(30) QUIRE_DPBF16_ZMM(31)
      "dec %0\n\t"
      "jnz 1b\n\t"
      "vzeroupper\n\t"
      : "+r"(left)
      :
      : "cc", "xmm0", "xmm1", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
        "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23",
        "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31");
  return iterations * 24 * 32;  // 16 fp32 lanes x 2 bf16 products per instruction
}

}  // namespace quire::bench::probe
