// FBGEMM-compatible spelling of quire/QuantUtilsAvx2.h: code written for fbgemm/QuantUtilsAvx2.h
// compiles unchanged against quire.
#pragma once

#include "quire/QuantUtilsAvx2.h"
#include "fbgemm/FbgemmBuild.h"
#include "fbgemm/UtilsAvx2.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
