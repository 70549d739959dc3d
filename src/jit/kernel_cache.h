// Process-wide cache of generated micro-kernels.
#pragma once

#include "kernel_spec.h"  // same folder: tests include this header by path
#include "../cpu/isa_record.h"  // relative: tests include this header by path

namespace quire::jit {

// Whether the spec's path generates the kernel it names: a JIT path, and a tile that fits
// its registers in that form (kernel_generator.h: registers_fit, narrow_fits).
bool generates(const KernelSpec& spec);

// The kernel a spec names (kernel_generator.h: column or narrow, in any of its forms), or
// null where its path has none (!generates(spec)). The one entry to generated code: the
// JIT paths' records hold it (IsaRecord::kernel). Generated on first request; concurrent
// first requests for the same spec wait for one generation. Throws std::runtime_error if
// asmjit fails.
detail::MicroKernelFn kernel(const KernelSpec& spec);

// Whether an mr x nr register tile fits the vector registers of the path (of its acc16
// kernels when acc16).
bool registers_fit(detail::Isa isa, int mr, int nr, bool acc16 = false);

}  // namespace quire::jit
