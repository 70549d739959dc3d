// FBGEMM-compatible spelling of quire/FloatConversion.h: code written for fbgemm/FloatConversion.h
// compiles unchanged against quire.
#pragma once

#include "quire/FloatConversion.h"
#include "fbgemm/Types.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
