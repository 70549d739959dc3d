// FBGEMM compatibility: fbgemm/FbgemmConvert.h (the array conversions of
// quire/FbgemmConvert.h).
#pragma once

#include "quire/FbgemmConvert.h"
#include "fbgemm/FbgemmBuild.h"
#include "fbgemm/Types.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
