// FBGEMM compatibility: fbgemm/spmmUtilsAvx2.h (trRequantizationParams_t, trRequantizeOpt).
#pragma once

#include "quire/SparseRequantize.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
