// Shared pieces of the libFuzzer targets (one target per fuzz/*_fuzz.cpp): reading the
// input as choices (LLVM's FuzzedDataProvider), choosing an ISA path the CPU has, filling
// operands, and FUZZ_CHECK, which reports the failed condition and traps so that
// libFuzzer saves the input as a crash.
//
// A target runs quire on what the input describes and compares with the reference
// (quire::ref, plain loops): any difference, crash or sanitizer report is a finding.
// std::invalid_argument is quire's documented answer to bad arguments, so a target that
// draws arguments quire may reject catches it and moves on; every other exception
// escapes and libFuzzer reports it.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "../src/cpu/isa_traits.h"
#include "quire/Utils.h"
#include "scoped_isa.h"

#define FUZZ_CHECK(cond)                                                               \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      std::fprintf(stderr, "FUZZ_CHECK failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      __builtin_trap();                                                                \
    }                                                                                  \
  } while (0)

namespace quire::fuzz {

// One of the ISA paths this CPU has (the rows of the traits table), chosen by the input.
inline inst_set_t pick_isa(FuzzedDataProvider& in) {
  std::vector<inst_set_t> isas;
  for (const detail::IsaTraits& t : detail::kIsaTraits)
    if (detail::cpu_has(t.isa)) isas.push_back(t.inst_set);
  return isas[in.ConsumeIntegralInRange<size_t>(0, isas.size() - 1)];
}

// Forces an ISA for the scope of one input.
using test::ScopedIsa;

// How operand bytes are drawn: random full range, or the extremes that stress
// saturation and overflow (A all 255 with B all -128 or all 127).
enum class Fill { random, low, high };

inline Fill pick_fill(FuzzedDataProvider& in) {
  const int f = in.ConsumeIntegralInRange(0, 5);
  return f == 4 ? Fill::low : f == 5 ? Fill::high : Fill::random;
}

// n bytes of T (uint8_t or int8_t): random from seed, or the extreme of the fill.
template <class T>
std::vector<T> bytes(size_t n, Fill fill, uint32_t seed) {
  std::vector<T> v(n);
  if (fill != Fill::random) {
    const int x = std::is_same_v<T, uint8_t> ? 255 : fill == Fill::low ? -128 : 127;
    for (T& e : v) e = static_cast<T>(x);
    return v;
  }
  std::mt19937 gen(seed);
  for (T& e : v) e = static_cast<T>(static_cast<uint8_t>(gen()));
  return v;
}

}  // namespace quire::fuzz
