// Shared helpers for quire's tests: random full-range data, the ISA paths this CPU has,
// and running fbgemmPacked on several "threads" (sequential calls with each thread_id,
// which is what the contract promises to be equivalent to concurrent calls).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "quire/Utils.h"

namespace quire::test {

template <class T>
std::vector<T> random_vector(size_t n, int lo, int hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(dist(gen));
  return v;
}

// Every instruction-set path quire has, with whether this CPU can run it.
struct IsaCase {
  inst_set_t isa;
  bool supported;
};

inline std::vector<IsaCase> all_isas() {
  return {{inst_set_t::anyarch, true},
          {inst_set_t::avx2, fbgemmHasAvx2Support()},
          {inst_set_t::avx_vnni, fbgemmHasAvxVnniSupport()},
          {inst_set_t::avx512, fbgemmHasAvx512Support()},
          {inst_set_t::avx512_vnni_ymm, fbgemmHasAvx512VnniSupport()},
          {inst_set_t::avx512_vnni, fbgemmHasAvx512VnniSupport()}};
}

// Forces an ISA for a scope and restores the previous one.
class ScopedIsa {
 public:
  explicit ScopedIsa(inst_set_t isa) : saved_(fbgemmInstructionSet()) { fbgemmForceIsa(isa); }
  ~ScopedIsa() { fbgemmForceIsa(saved_); }
  ScopedIsa(const ScopedIsa&) = delete;
  ScopedIsa& operator=(const ScopedIsa&) = delete;

 private:
  inst_set_t saved_;
};

}  // namespace quire::test
