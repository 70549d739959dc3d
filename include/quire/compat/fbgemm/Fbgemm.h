// FBGEMM compatibility: code written for FBGEMM's Tier 1 API compiles unchanged against
// quire with this include directory (include/quire/compat) on the include path.
#pragma once

#include "quire/quire.h"
#include "fbgemm/ConvUtils.h"
#include "fbgemm/FbgemmBuild.h"
#include "fbgemm/FbgemmEmbedding.h"
#include "fbgemm/FbgemmI8Depthwise.h"
#include "fbgemm/FbgemmI8DirectconvAvx2.h"
#include "fbgemm/FbgemmI8Spmdm.h"
#include "fbgemm/FloatConversion.h"
#include "fbgemm/QuantUtilsAvx2.h"
#include "fbgemm/Types.h"
#include "fbgemm/Utils.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
