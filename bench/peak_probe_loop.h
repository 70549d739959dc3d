// The probe loop shared by the per-ISA probe files (peak_probe_*.cpp); included only
// there, since each instantiation needs its file's ISA flags.
#pragma once

#include <cstdint>

namespace quire::bench::probe {

// Runs `iterations` rounds of acc[c] = step(acc[c], a, b) over Chains independent
// accumulators, enough to cover the instructions' latency times their throughput, and
// returns the multiply-accumulates done (one per byte of a per step).
template <int Chains, class Vec, class Step>
int64_t run_chains(int64_t iterations, Vec a, Vec b, Step step) {
  Vec acc[Chains] = {};
  for (int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 32
    for (int c = 0; c < Chains; ++c) {
      // An empty asm that "changes" a: the compiler must issue every step (no hoisting
      // of a loop-invariant product, no sharing it between chains); it emits nothing.
      asm volatile("" : "+v"(a));
      acc[c] = step(acc[c], a, b);
    }
  }
  for (int c = 0; c < Chains; ++c) asm volatile("" : : "v"(acc[c]));
  return iterations * Chains * static_cast<int64_t>(sizeof(Vec));
}

}  // namespace quire::bench::probe
