// FBGEMM compatibility: fbgemm/UtilsAvx2.h (QuantizationGranularity, block_type_t,
// fbgemmAlignedAlloc / fbgemmAlignedFree, AlignedFreeDeleter, aligned_unique_ptr,
// makeAlignedUniquePtr). FBGEMM also declares requantizationParams_t and
// requantizationForFloatParams_t here; in quire they live in quire/RequantizeParams.h,
// included.
#pragma once

#include "fbgemm/FbgemmBuild.h"
#include "quire/QuantUtils.h"
#include "quire/RequantizeParams.h"
#include "quire/Types.h"
#include "quire/Utils.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
