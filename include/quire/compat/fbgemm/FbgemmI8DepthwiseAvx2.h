// FBGEMM compatibility: fbgemm/FbgemmI8DepthwiseAvx2.h, the older name of
// fbgemm/FbgemmI8Depthwise.h (PackedDepthWiseConvMatrix, depthwise_2d_same_pad,
// depthwise_3d_same_pad), kept so that client code written against it compiles.
#pragma once

#include "quire/Depthwise.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
