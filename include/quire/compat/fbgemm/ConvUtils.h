// FBGEMM compatibility: fbgemm/ConvUtils.h (conv_param_t, array_of_ones / array_of_zeroes).
#pragma once

#include "quire/ConvUtils.h"

namespace fbgemm {
using namespace ::quire;
}  // namespace fbgemm
