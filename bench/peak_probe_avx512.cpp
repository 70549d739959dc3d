// Written in asm for the same reason as peak_probe_avx512vnni.cpp.
#include "peak_probe.h"

namespace quire::bench::probe {

// The pre-VNNI u8*s8 step: vpmaddubsw (pairs to saturating int16) into a temporary,
// vpmaddwd by ones (pairs to int32), vpaddd into the accumulator. Only the vpaddd
// chains through the accumulator; renaming makes the temporaries independent.
#define QUIRE_MADD_ZMM(tmp, acc)                          \
  "vpmaddubsw %%zmm1, %%zmm0, %%zmm" #tmp "\n\t"          \
  "vpmaddwd %%zmm2, %%zmm" #tmp ", %%zmm" #tmp "\n\t"     \
  "vpaddd %%zmm" #tmp ", %%zmm" #acc ", %%zmm" #acc "\n\t"

// zmm0 / zmm1: operands, zmm2: int16 ones, zmm3..zmm16: temporaries, zmm17..zmm30:
// 14 accumulators.
int64_t maddubs_madd_add_zmm(int64_t iterations) {
  int64_t left = iterations;
  asm volatile(
      "vpternlogd $0xff, %%zmm2, %%zmm2, %%zmm2\n\t"
      "vpsrlw $15, %%zmm2, %%zmm2\n\t"  // 1 in every int16 lane
      "1:\n\t"
      QUIRE_MADD_ZMM(3, 17) QUIRE_MADD_ZMM(4, 18) QUIRE_MADD_ZMM(5, 19)
      QUIRE_MADD_ZMM(6, 20) QUIRE_MADD_ZMM(7, 21) QUIRE_MADD_ZMM(8, 22)
      QUIRE_MADD_ZMM(9, 23) QUIRE_MADD_ZMM(10, 24) QUIRE_MADD_ZMM(11, 25)
      QUIRE_MADD_ZMM(12, 26) QUIRE_MADD_ZMM(13, 27) QUIRE_MADD_ZMM(14, 28)
      QUIRE_MADD_ZMM(15, 29) QUIRE_MADD_ZMM(16, 30)
      "dec %0\n\t"
      "jnz 1b\n\t"
      "vzeroupper\n\t"
      : "+r"(left)
      :
      : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
        "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18",
        "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27",
        "xmm28", "xmm29", "xmm30");
  return iterations * 14 * 64;  // 64 u8*s8 products per vpmaddubsw
}

// acc16's step (the saturating int16 kernels): vpmaddubsw into a temporary, vpaddsw
// into the accumulator, in the same 14 chains.
#define QUIRE_MADDS_ZMM(tmp, acc)                         \
  "vpmaddubsw %%zmm1, %%zmm0, %%zmm" #tmp "\n\t"          \
  "vpaddsw %%zmm" #tmp ", %%zmm" #acc ", %%zmm" #acc "\n\t"

int64_t maddubs_adds_zmm(int64_t iterations) {
  int64_t left = iterations;
  asm volatile(
      "1:\n\t"
      QUIRE_MADDS_ZMM(3, 17) QUIRE_MADDS_ZMM(4, 18) QUIRE_MADDS_ZMM(5, 19)
      QUIRE_MADDS_ZMM(6, 20) QUIRE_MADDS_ZMM(7, 21) QUIRE_MADDS_ZMM(8, 22)
      QUIRE_MADDS_ZMM(9, 23) QUIRE_MADDS_ZMM(10, 24) QUIRE_MADDS_ZMM(11, 25)
      QUIRE_MADDS_ZMM(12, 26) QUIRE_MADDS_ZMM(13, 27) QUIRE_MADDS_ZMM(14, 28)
      QUIRE_MADDS_ZMM(15, 29) QUIRE_MADDS_ZMM(16, 30)
      "dec %0\n\t"
      "jnz 1b\n\t"
      "vzeroupper\n\t"
      : "+r"(left)
      :
      : "cc", "xmm0", "xmm1", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
        "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", "xmm19",
        "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm28",
        "xmm29", "xmm30");
  return iterations * 14 * 64;
}

}  // namespace quire::bench::probe
