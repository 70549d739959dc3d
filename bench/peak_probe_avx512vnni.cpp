// Written in asm: with intrinsics GCC keeps a 24-register accumulator array partly on
// the stack, and the stores would be timed with the instruction.
#include "peak_probe.h"

namespace quire::bench::probe {

#define QUIRE_DPBUSD_ZMM(acc) "vpdpbusd %%zmm1, %%zmm0, %%zmm" #acc "\n\t"

// zmm8..zmm31 accumulate (24 chains: vpdpbusd's latency of 4-5 cycles times up to 2
// per cycle); zmm0, zmm1 are the operands (their values do not change the timing).
int64_t vpdpbusd_zmm(int64_t iterations) {
  int64_t left = iterations;
  asm volatile(
      "1:\n\t"
      QUIRE_DPBUSD_ZMM(8) QUIRE_DPBUSD_ZMM(9) QUIRE_DPBUSD_ZMM(10) QUIRE_DPBUSD_ZMM(11)
      QUIRE_DPBUSD_ZMM(12) QUIRE_DPBUSD_ZMM(13) QUIRE_DPBUSD_ZMM(14) QUIRE_DPBUSD_ZMM(15)
      QUIRE_DPBUSD_ZMM(16) QUIRE_DPBUSD_ZMM(17) QUIRE_DPBUSD_ZMM(18) QUIRE_DPBUSD_ZMM(19)
      QUIRE_DPBUSD_ZMM(20) QUIRE_DPBUSD_ZMM(21) QUIRE_DPBUSD_ZMM(22) QUIRE_DPBUSD_ZMM(23)
      QUIRE_DPBUSD_ZMM(24) QUIRE_DPBUSD_ZMM(25) QUIRE_DPBUSD_ZMM(26) QUIRE_DPBUSD_ZMM(27)
      QUIRE_DPBUSD_ZMM(28) QUIRE_DPBUSD_ZMM(29) QUIRE_DPBUSD_ZMM(30) QUIRE_DPBUSD_ZMM(31)
      "dec %0\n\t"
      "jnz 1b\n\t"
      "vzeroupper\n\t"
      : "+r"(left)
      :
      : "cc", "xmm0", "xmm1", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
        "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23",
        "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31");
  return iterations * 24 * 64;  // 16 int32 lanes x 4 products per instruction
}

}  // namespace quire::bench::probe
