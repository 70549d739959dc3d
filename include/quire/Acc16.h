// acc16: what 16-bit accumulation (PackBMatrix<int8_t, int16_t>) computes on the path in
// use. docs/acc16.md specifies it; quire::ref::matmul_u8s8s32_acc16 models it bit for bit.
#pragma once
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

// True when acc16 runs the saturating int16 kernels (avx2 and avx512 paths): results
// follow the acc16 model and can differ from the exact product where sums saturate.
// False where acc16 runs the exact 32-bit kernels (VNNI paths, which are as fast, and the
// portable path): results equal the exact product.
bool acc16Saturates();

// The K depth of one int16 accumulation window under the active path's default acc16
// blocking (its KCB): the block_depth of the acc16 model and of the outlier split.
int acc16BlockDepth();

}  // namespace quire
QUIRE_API_END
