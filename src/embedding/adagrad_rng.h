// The random bits of stochastic rounding (GenerateRowWiseSparseAdaGradFused, fp16
// weights): per thread, xoshiro128++ in up to 16 lanes, seeded by splitmix64 from the
// hash of the thread's id, the generator and seeding of FBGEMM's reference
// (rowwise_sparse_adagrad_fused_ref), so that a thread's k-th call draws the same bits
// as the reference's k-th call on that thread.
#pragma once

#include <cstdint>

namespace quire::detail {

// This thread's state: 4 x 16 words, seeded on first use. A stream of L lanes (8 or 16)
// keeps word k of lane v at [k * L + v] (the reference's layout, so an 8-lane stream
// uses the first 32 words of the 16-lane seeding).
uint32_t* stochastic_rounding_state();

}  // namespace quire::detail
