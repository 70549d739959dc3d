// Blocking factors: the active path's defaults, and validation of overrides.
#pragma once

#include "quire/Types.h"

namespace quire::detail {

// The blocking to use: *params if given (validated against the active path: throws
// std::invalid_argument naming the bad field), else the active path's defaults.
BlockingFactors resolve_blocking(const BlockingFactors* params, const char* where);

}  // namespace quire::detail
