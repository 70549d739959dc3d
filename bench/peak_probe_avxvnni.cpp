// Written in asm for the same reason as peak_probe_avx512vnni.cpp.
#include "peak_probe.h"

namespace quire::bench::probe {

// %{ %} escape the braces, which GCC asm otherwise reads as dialect alternatives.
#define QUIRE_DPBUSD_VEX(acc) "%{vex%} vpdpbusd %%ymm1, %%ymm0, %%ymm" #acc "\n\t"

// The VEX encoding on ymm: the only VNNI of CPUs without AVX-512. ymm4..ymm15
// accumulate (12 chains: latency 4-5 cycles times 2-3 per cycle).
int64_t vpdpbusd_vex_ymm(int64_t iterations) {
  int64_t left = iterations;
  asm volatile(
      "1:\n\t"
      QUIRE_DPBUSD_VEX(4) QUIRE_DPBUSD_VEX(5) QUIRE_DPBUSD_VEX(6) QUIRE_DPBUSD_VEX(7)
      QUIRE_DPBUSD_VEX(8) QUIRE_DPBUSD_VEX(9) QUIRE_DPBUSD_VEX(10) QUIRE_DPBUSD_VEX(11)
      QUIRE_DPBUSD_VEX(12) QUIRE_DPBUSD_VEX(13) QUIRE_DPBUSD_VEX(14) QUIRE_DPBUSD_VEX(15)
      "dec %0\n\t"
      "jnz 1b\n\t"
      "vzeroupper\n\t"
      : "+r"(left)
      :
      : "cc", "xmm0", "xmm1", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
        "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
  return iterations * 12 * 32;  // 8 int32 lanes x 4 products per instruction
}

}  // namespace quire::bench::probe
