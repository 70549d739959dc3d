// FBGEMM compatibility: fbgemm/FbgemmFP32.h (PackedGemmMatrixFP32, GemmParamsFP32,
// TypeConverter<float>, cblas_gemm_compute for fp32 weights). getIsaHandlers is not
// provided (docs/compat.md).
#pragma once

#include "fbgemm/FbgemmFPCommon.h"
#include "fbgemm/FbgemmPackMatrixB.h"
#include "fbgemm/Utils.h"
#include "quire/FbgemmFP32.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
