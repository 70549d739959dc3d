// FBGEMM-compatible spelling of quire/QuantUtils.h: code written for fbgemm/QuantUtils.h
// compiles unchanged against quire.
#pragma once

#include "quire/QuantUtils.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
