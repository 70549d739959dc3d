// FBGEMM compatibility: fbgemm/FbgemmI8Depthwise.h (PackedDepthWiseConvMatrix,
// depthwise_2d_same_pad, depthwise_3d_same_pad).
#pragma once

#include "quire/Depthwise.h"
#include "fbgemm/ConvUtils.h"
#include "fbgemm/FbgemmBuild.h"
#include "fbgemm/UtilsAvx2.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
