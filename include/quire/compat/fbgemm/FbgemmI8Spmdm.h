// FBGEMM compatibility: fbgemm/FbgemmI8Spmdm.h (CompressedSparseColumn with its SpMDM,
// and SparseConv with KHs / KWs / ICs). DoSpmdmOnInpBuffer and DoSConvOnInpBuffer come
// with fbgemm/Fbgemm.h, as in FBGEMM.
#pragma once

#include "quire/CompressedSparseColumn.h"
#include "fbgemm/ConvUtils.h"
#include "fbgemm/FbgemmBuild.h"
#include "fbgemm/Utils.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
