// Process-wide cache of generated micro-kernels.
#pragma once

#include "kernel_spec.h"  // same folder: tests include this header by path
#include "../cpu/isa_record.h"  // relative: tests include this header by path

namespace quire::jit {

// The kernel a spec names (kernel_generator.h: column, narrow or acc16, on a JIT path).
// Generated on first request; concurrent first requests for the same spec wait for one
// generation. Throws std::invalid_argument if the spec does not fit its path (see
// registers_fit, narrow_fits) and std::runtime_error if asmjit fails.
detail::MicroKernelFn kernel(const KernelSpec& spec);

// Whether an mr x nr register tile fits the vector registers of the path (of its acc16
// kernels when acc16).
bool registers_fit(detail::Isa isa, int mr, int nr, bool acc16 = false);

}  // namespace quire::jit
