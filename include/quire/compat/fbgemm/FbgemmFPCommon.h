// FBGEMM compatibility: fbgemm/FbgemmFPCommon.h (cblas_gemm_compute and the kernel-table
// types).
#pragma once

#include "quire/FbgemmFPCommon.h"
#include "quire/compat/fbgemm/FbgemmPackMatrixB.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
