// FBGEMM compatibility: fbgemm/FbgemmI64.h (cblas_gemm_i64_i64acc).
#pragma once

#include "fbgemm/Utils.h"
#include "quire/FbgemmI64.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
