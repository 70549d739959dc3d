// FBGEMM compatibility: fbgemm/FbgemmI8Spmdm.h (CompressedSparseColumn and its SpMDM).
// DoSpmdmOnInpBuffer comes with fbgemm/Fbgemm.h, as in FBGEMM.
#pragma once

#include "quire/CompressedSparseColumn.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
