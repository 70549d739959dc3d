// FBGEMM compatibility: fbgemm/FbgemmI8DirectconvAvx2.h (PackedDirectConvMatrix), plus
// fbgemmDirectConv, which FBGEMM declares in fbgemm/Fbgemm.h.
#pragma once

#include "quire/DirectConv.h"
#include "fbgemm/ConvUtils.h"
#include "fbgemm/FbgemmBuild.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
