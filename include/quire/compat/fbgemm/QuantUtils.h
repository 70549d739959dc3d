// FBGEMM-compatible spelling of quire/QuantUtils.h: code written for fbgemm/QuantUtils.h
// compiles unchanged against quire. As FBGEMM's, it also brings in QuantUtilsAvx2.h and
// QuantUtilsAvx512.h.
#pragma once

#include "quire/QuantUtils.h"
#include "quire/QuantUtilsAvx2.h"
#include "quire/QuantUtilsAvx512.h"
#include "fbgemm/FbgemmBuild.h"
#include "fbgemm/QuantUtilsAvx2.h"
#include "fbgemm/QuantUtilsAvx512.h"
#include "fbgemm/Types.h"
#include "fbgemm/Utils.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
