// FBGEMM compatibility: fbgemm/Types.h (enums, block and blocking structs, half types).
#pragma once

#include "quire/FloatConversion.h"
#include "quire/Types.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
