// FBGEMM compatibility: fbgemm/FbgemmFPCommon.h (cblas_gemm_compute and the kernel-table
// types).
#pragma once

#include "quire/FbgemmFPCommon.h"
#include "fbgemm/FbgemmPackMatrixB.h"
#include "fbgemm/Types.h"
#include "fbgemm/Utils.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
