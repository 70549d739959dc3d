// FBGEMM-compatible spelling of quire/QuantUtilsAvx512.h: code written for fbgemm/QuantUtilsAvx512.h
// compiles unchanged against quire.
#pragma once

#include "quire/QuantUtilsAvx512.h"
#include "fbgemm/Types.h"
#include "fbgemm/FbgemmBuild.h"
#include "fbgemm/UtilsAvx2.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
