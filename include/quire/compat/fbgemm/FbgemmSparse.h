// FBGEMM compatibility: fbgemm/FbgemmSparse.h (CSRMatrix, BCSRMatrix, fbgemmDenseToCSR,
// fbgemmDenseToBCSR, SparseDenseMM, fbgemmSparseDenseInt8MM).
#pragma once

#include "quire/Bcsr.h"
#include "quire/SparseDenseMM.h"
#include "quire/SparseRequantize.h"
#include "quire/Types.h"
#include "quire/Utils.h"
#include "fbgemm/FbgemmBuild.h"
#include "fbgemm/UtilsAvx2.h"
#include "fbgemm/spmmUtilsAvx2.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
