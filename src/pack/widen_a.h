// The A block widened for the exact kernels of the paths without VNNI
// (docs/kernel-contract.md, "A widened once per block"): see detail::WidenAFn.
#pragma once

#include <cstdint>

namespace quire::pack {

void widen_a_avx2(const uint8_t* a, int64_t lda, int rows, int k4_steps, uint16_t* dst,
                  int64_t ld_dst);
// The linear form: K step t at elements 4t..4t+3 as a0, a1, a2, a3 (KernelSpec::sx_b).
void widen_a_linear_avx2(const uint8_t* a, int64_t lda, int rows, int k4_steps, uint16_t* dst,
                         int64_t ld_dst);

}  // namespace quire::pack
