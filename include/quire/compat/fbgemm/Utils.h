// FBGEMM compatibility: fbgemm/Utils.h (CPU queries, alignment, partitioning, compare).
#pragma once

#include "quire/Utils.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
