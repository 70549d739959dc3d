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
// AVX-512 path, 3 <= nr <= 8, mr <= 12 (acc16: the avx512 path only); throws
// std::invalid_argument otherwise.
detail::MicroKernelFn narrow_kernel(detail::Isa isa, int mr, int nr, bool acc16 = false);

// The saturating acc16 kernel (docs/acc16.md) for an mr x nr tile on avx2 or avx512;
// throws std::invalid_argument on other paths or when the tile does not fit.
detail::MicroKernelFn acc16_kernel(detail::Isa isa, int mr, int nr);

// Whether an mr x nr register tile fits the vector registers of the path (of its acc16
// kernels when acc16).
bool registers_fit(detail::Isa isa, int mr, int nr, bool acc16 = false);

}  // namespace quire::jit
