// FBGEMM compatibility: fbgemm/FbgemmFP16.h (PackedGemmMatrixFP16, cblas_gemm_compute).
// quire's bf16 names (quire/FbgemmBF16.h) come along: FBGEMM has no header for them.
#pragma once

#include "quire/FbgemmBF16.h"
#include "quire/FbgemmFP16.h"
#include "quire/compat/fbgemm/FbgemmPackMatrixB.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
