// FBGEMM compatibility: fbgemm/spmmUtils.h (sparseDenseMMRef, sparseDenseInt8MMRef,
// trRequantizeRef). getSparseMatrixShapes, a benchmark's shape list, is not provided.
#pragma once

#include "quire/Bcsr.h"
#include "quire/SparseDenseMM.h"
#include "quire/SparseRequantize.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
