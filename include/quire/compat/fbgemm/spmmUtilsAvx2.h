// FBGEMM compatibility: fbgemm/spmmUtilsAvx2.h (trRequantizationParams_t, trRequantizeOpt).
#pragma once

#include "quire/SparseRequantize.h"
#include "fbgemm/FbgemmBuild.h"
#include "fbgemm/UtilsAvx2.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
