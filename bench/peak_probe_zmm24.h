// The 24-chain zmm loop the peak probes share, in asm: with intrinsics GCC keeps part of
// a 24-register accumulator array on the stack, and those stores would be timed too.
// `op zmm1, zmm0 -> zmmN` for the 24 accumulators zmm8..zmm31 (enough independent
// chains for a 4-5 cycle latency at up to 2 per cycle), `left` times. Operands and
// accumulators start at zero: an FMA on a denormal runs at a fraction of the rate.
#pragma once

#define QUIRE_ZMM24_STEP(op, acc) op " %%zmm1, %%zmm0, %%zmm" #acc "\n\t"
#define QUIRE_ZMM24_ZERO(r) "vpxord %%zmm" #r ", %%zmm" #r ", %%zmm" #r "\n\t"

#define QUIRE_ZMM24_PROBE(op, left)                                                        \
  asm volatile(                                                                           \
      QUIRE_ZMM24_ZERO(0) QUIRE_ZMM24_ZERO(1) QUIRE_ZMM24_ZERO(8) QUIRE_ZMM24_ZERO(9)     \
      QUIRE_ZMM24_ZERO(10) QUIRE_ZMM24_ZERO(11) QUIRE_ZMM24_ZERO(12) QUIRE_ZMM24_ZERO(13)   \
      QUIRE_ZMM24_ZERO(14) QUIRE_ZMM24_ZERO(15) QUIRE_ZMM24_ZERO(16) QUIRE_ZMM24_ZERO(17)   \
      QUIRE_ZMM24_ZERO(18) QUIRE_ZMM24_ZERO(19) QUIRE_ZMM24_ZERO(20) QUIRE_ZMM24_ZERO(21)   \
      QUIRE_ZMM24_ZERO(22) QUIRE_ZMM24_ZERO(23) QUIRE_ZMM24_ZERO(24) QUIRE_ZMM24_ZERO(25)   \
      QUIRE_ZMM24_ZERO(26) QUIRE_ZMM24_ZERO(27) QUIRE_ZMM24_ZERO(28) QUIRE_ZMM24_ZERO(29)   \
      QUIRE_ZMM24_ZERO(30) QUIRE_ZMM24_ZERO(31)                                              \
      "1:\n\t"                                                                            \
      QUIRE_ZMM24_STEP(op, 8) QUIRE_ZMM24_STEP(op, 9) QUIRE_ZMM24_STEP(op, 10)             \
      QUIRE_ZMM24_STEP(op, 11) QUIRE_ZMM24_STEP(op, 12) QUIRE_ZMM24_STEP(op, 13)           \
      QUIRE_ZMM24_STEP(op, 14) QUIRE_ZMM24_STEP(op, 15) QUIRE_ZMM24_STEP(op, 16)           \
      QUIRE_ZMM24_STEP(op, 17) QUIRE_ZMM24_STEP(op, 18) QUIRE_ZMM24_STEP(op, 19)           \
      QUIRE_ZMM24_STEP(op, 20) QUIRE_ZMM24_STEP(op, 21) QUIRE_ZMM24_STEP(op, 22)           \
      QUIRE_ZMM24_STEP(op, 23) QUIRE_ZMM24_STEP(op, 24) QUIRE_ZMM24_STEP(op, 25)           \
      QUIRE_ZMM24_STEP(op, 26) QUIRE_ZMM24_STEP(op, 27) QUIRE_ZMM24_STEP(op, 28)           \
      QUIRE_ZMM24_STEP(op, 29) QUIRE_ZMM24_STEP(op, 30) QUIRE_ZMM24_STEP(op, 31)           \
      "dec %0\n\t"                                                                        \
      "jnz 1b\n\t"                                                                        \
      "vzeroupper\n\t"                                                                    \
      : "+r"(left)                                                                        \
      :                                                                                   \
      : "cc", "xmm0", "xmm1", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", \
        "xmm15", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23",   \
        "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31")
