// FBGEMM compatibility: fbgemm/FbgemmPackMatrixB.h (PackedGemmMatrixB, TypeConverter).
#pragma once

#include "quire/FbgemmPackMatrixB.h"
#include "fbgemm/Types.h"
#include "fbgemm/Utils.h"

#ifndef PMAT_ALIGNMENT
#define PMAT_ALIGNMENT 64
#endif

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
