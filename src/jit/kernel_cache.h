// Process-wide cache of generated micro-kernels.
#pragma once

#include "quire/detail/IsaRecord.h"

namespace quire::jit {

// The u8 x s8 -> s32 kernel for an mr x nr tile on a JIT path (avx2, avx_vnni, avx512,
// avx512_vnni_ymm, avx512_vnni). Generated on first request; concurrent first requests for the same key
// wait for one generation. Throws std::invalid_argument if mr x nr does not fit the
// ISA's registers (see registers_fit) and std::runtime_error if asmjit fails.
detail::MicroKernelFn kernel(detail::Isa isa, int mr, int nr);

// The narrow kernel (several rows per vector, see narrow_generator.cpp) for an
// AVX-512 path, 3 <= nr <= 8, mr <= 12; throws std::invalid_argument otherwise.
detail::MicroKernelFn narrow_kernel(detail::Isa isa, int mr, int nr);

// Whether an mr x nr register tile fits the vector registers of the path.
bool registers_fit(detail::Isa isa, int mr, int nr);

}  // namespace quire::jit
