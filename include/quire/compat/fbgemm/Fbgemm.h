// FBGEMM compatibility: code written for FBGEMM's Tier 1 API compiles unchanged against
// quire with this include directory (include/quire/compat) on the include path.
#pragma once

#include "quire/quire.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
