// Written in asm for the same reason as peak_probe_avx512vnni.cpp.
#include "peak_probe.h"

namespace quire::bench::probe {

// As QUIRE_MADD_ZMM in peak_probe_avx512.cpp, on ymm.
#define QUIRE_MADD_YMM(tmp, acc)                          \
  "vpmaddubsw %%ymm1, %%ymm0, %%ymm" #tmp "\n\t"          \
  "vpmaddwd %%ymm2, %%ymm" #tmp ", %%ymm" #tmp "\n\t"     \
  "vpaddd %%ymm" #tmp ", %%ymm" #acc ", %%ymm" #acc "\n\t"

// ymm0 / ymm1: operands, ymm2: int16 ones, ymm3..ymm8: temporaries, ymm9..ymm14:
// 6 accumulators (all 16 ymm registers but one).
int64_t maddubs_madd_add_ymm(int64_t iterations) {
  int64_t left = iterations;
  asm volatile(
      "vpcmpeqw %%ymm2, %%ymm2, %%ymm2\n\t"
      "vpsrlw $15, %%ymm2, %%ymm2\n\t"  // 1 in every int16 lane
      "1:\n\t"
      QUIRE_MADD_YMM(3, 9) QUIRE_MADD_YMM(4, 10) QUIRE_MADD_YMM(5, 11)
      QUIRE_MADD_YMM(6, 12) QUIRE_MADD_YMM(7, 13) QUIRE_MADD_YMM(8, 14)
      "dec %0\n\t"
      "jnz 1b\n\t"
      "vzeroupper\n\t"
      : "+r"(left)
      :
      : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
        "xmm10", "xmm11", "xmm12", "xmm13", "xmm14");
  return iterations * 6 * 32;  // 32 u8*s8 products per vpmaddubsw
}

// acc16's step (the saturating int16 kernels): vpmaddubsw into a temporary, vpaddsw
// into the accumulator, in the same 6 chains.
#define QUIRE_MADDS_YMM(tmp, acc)                         \
  "vpmaddubsw %%ymm1, %%ymm0, %%ymm" #tmp "\n\t"          \
  "vpaddsw %%ymm" #tmp ", %%ymm" #acc ", %%ymm" #acc "\n\t"

int64_t maddubs_adds_ymm(int64_t iterations) {
  int64_t left = iterations;
  asm volatile(
      "1:\n\t"
      QUIRE_MADDS_YMM(3, 9) QUIRE_MADDS_YMM(4, 10) QUIRE_MADDS_YMM(5, 11)
      QUIRE_MADDS_YMM(6, 12) QUIRE_MADDS_YMM(7, 13) QUIRE_MADDS_YMM(8, 14)
      "dec %0\n\t"
      "jnz 1b\n\t"
      "vzeroupper\n\t"
      : "+r"(left)
      :
      : "cc", "xmm0", "xmm1", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
        "xmm11", "xmm12", "xmm13", "xmm14");
  return iterations * 6 * 32;
}

}  // namespace quire::bench::probe
