// PackedABlock: where the micro-kernel reads one A block that a packer prepared. The
// A-packer contract (docs/packing.md) in one type: a packer's pack(block) may return one,
// pointing at its own buffer or straight into the caller's matrix (in-place reading).
#pragma once

#include <cstdint>

#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

// Row i of the block starts at data + i * ld. Each row must be readable for the block's
// width rounded up to 4 bytes (the kernels read A four K values at a time); the bytes past
// the width are never used in the result (B's rows past K are zero), so they need not be
// zero.
struct PackedABlock {
  const uint8_t* data;
  int64_t ld;
};

}  // namespace quire
QUIRE_API_END
