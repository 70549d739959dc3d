// The micro-kernel in plain C++: the path for CPUs without AVX2, and the executable
// statement of the kernel contract (docs/kernel-contract.md).
#pragma once

#include "cpu/isa_record.h"

namespace quire::driver {

void portable_micro_kernel(const detail::MicroKernelArgs* args);

}  // namespace quire::driver
