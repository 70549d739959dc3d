// Forces an instruction-set path for a scope and restores the previous one (tests and
// fuzzers).
#pragma once

#include "quire/Utils.h"

namespace quire::test {

class ScopedIsa {
 public:
  explicit ScopedIsa(inst_set_t isa) : saved_(fbgemmInstructionSet()) { forceIsa(isa); }
  ~ScopedIsa() { forceIsa(saved_); }
  ScopedIsa(const ScopedIsa&) = delete;
  ScopedIsa& operator=(const ScopedIsa&) = delete;

 private:
  inst_set_t saved_;
};

}  // namespace quire::test
