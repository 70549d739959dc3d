// FBGEMM compatibility: fbgemm/FbgemmPackMatrixB.h (PackedGemmMatrixB, TypeConverter).
#pragma once

#include "quire/FbgemmPackMatrixB.h"

#ifndef PMAT_ALIGNMENT
#define PMAT_ALIGNMENT 64
#endif

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
