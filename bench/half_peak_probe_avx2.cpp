// Written in asm for the same reason as peak_probe_avx512vnni.cpp.
#include "half_peak_probe.h"

namespace quire::bench::probe {

#define QUIRE_FMA_YMM(acc) "vfmadd231ps %%ymm1, %%ymm0, %%ymm" #acc "\n\t"

// ymm2..ymm13 accumulate: 12 chains cover an FMA latency of 4-5 cycles at 2 per cycle.
// Everything starts at zero and stays there (leftover denormals would slow the FMAs).
int64_t fma_ymm(int64_t iterations) {
  int64_t left = iterations;
  asm volatile(
      "vxorps %%ymm0, %%ymm0, %%ymm0\n\t"
      "vxorps %%ymm1, %%ymm1, %%ymm1\n\t"
      "vxorps %%ymm2, %%ymm2, %%ymm2\n\t"
      "vxorps %%ymm3, %%ymm3, %%ymm3\n\t"
      "vxorps %%ymm4, %%ymm4, %%ymm4\n\t"
      "vxorps %%ymm5, %%ymm5, %%ymm5\n\t"
      "vxorps %%ymm6, %%ymm6, %%ymm6\n\t"
      "vxorps %%ymm7, %%ymm7, %%ymm7\n\t"
      "vxorps %%ymm8, %%ymm8, %%ymm8\n\t"
      "vxorps %%ymm9, %%ymm9, %%ymm9\n\t"
      "vxorps %%ymm10, %%ymm10, %%ymm10\n\t"
      "vxorps %%ymm11, %%ymm11, %%ymm11\n\t"
      "vxorps %%ymm12, %%ymm12, %%ymm12\n\t"
      "vxorps %%ymm13, %%ymm13, %%ymm13\n\t"
      "1:\n\t"
      QUIRE_FMA_YMM(2) QUIRE_FMA_YMM(3) QUIRE_FMA_YMM(4) QUIRE_FMA_YMM(5)
      QUIRE_FMA_YMM(6) QUIRE_FMA_YMM(7) QUIRE_FMA_YMM(8) QUIRE_FMA_YMM(9)
      QUIRE_FMA_YMM(10) QUIRE_FMA_YMM(11) QUIRE_FMA_YMM(12) QUIRE_FMA_YMM(13)
      "dec %0\n\t"
      "jnz 1b\n\t"
      "vzeroupper\n\t"
      : "+r"(left)
      :
      : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
        "xmm10", "xmm11", "xmm12", "xmm13");
  return iterations * 12 * 8;  // 8 fp32 lanes per instruction
}

}  // namespace quire::bench::probe
