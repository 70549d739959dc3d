// FBGEMM compatibility: fbgemm/spmmUtils.h (sparseDenseMMRef, sparseDenseInt8MMRef,
// trRequantizeRef). getSparseMatrixShapes, a benchmark's shape list, is not provided.
#pragma once

#include "quire/Bcsr.h"
#include "quire/SparseDenseMM.h"
#include "quire/SparseRequantize.h"
#include "fbgemm/FbgemmBuild.h"
#include "fbgemm/FbgemmSparse.h"
#include "fbgemm/UtilsAvx2.h"
#include "fbgemm/spmmUtilsAvx2.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
