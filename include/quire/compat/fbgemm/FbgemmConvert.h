// FBGEMM compatibility: fbgemm/FbgemmConvert.h (the array conversions of
// quire/FbgemmConvert.h).
#pragma once

#include "quire/FbgemmConvert.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
