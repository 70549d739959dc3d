// Memory for weights that calls stream from end to end (packed int8 B, packed int4 codes).
#pragma once

#include <cstddef>

#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire::detail {

// `bytes` bytes aligned to 64, freed with std::free (fbgemmAlignedFree). A buffer of
// 2 MiB or more is aligned to 2 MiB and advised into transparent huge pages (where the
// kernel grants them, "madvise" or "always" mode): streamed from memory it then costs one
// TLB miss per 2 MiB instead of one per 4 KiB. Throws std::bad_alloc.
void* allocate_streamed(size_t bytes);

}  // namespace quire::detail
QUIRE_API_END
