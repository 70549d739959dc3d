// FBGEMM compatibility: fbgemm/FbgemmFP16.h (PackedGemmMatrixFP16, cblas_gemm_compute).
// quire's bf16 names (quire/FbgemmBF16.h) come along: FBGEMM has no header for them.
#pragma once

#include "quire/FbgemmBF16.h"
#include "quire/FbgemmFP16.h"
#include "fbgemm/FbgemmPackMatrixB.h"
#include "fbgemm/FloatConversion.h"
#include "fbgemm/Types.h"
#include "fbgemm/Utils.h"
#include "fbgemm/FbgemmFPCommon.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
