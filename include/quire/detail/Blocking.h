// Blocking factors: the active path's defaults, and validation of overrides.
#pragma once

#include <cstdint>
#include <type_traits>

#include "quire/Types.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire::detail {

// The accumulation a packer's accT selects: int32 (exact) or int16 (acc16, docs/acc16.md).
enum class Accumulation : uint8_t { int32, int16 };

template <typename accT>
constexpr Accumulation accumulation_of() {
  static_assert(std::is_same_v<accT, int32_t> || std::is_same_v<accT, int16_t>,
                "accT must be int32_t (32-bit accumulation) or int16_t (acc16)");
  return std::is_same_v<accT, int16_t> ? Accumulation::int16 : Accumulation::int32;
}

// The blocking to use: *params if given (validated against the active path's kernels for
// that accumulation: throws std::invalid_argument naming the bad field), else the active
// path's defaults for it.
BlockingFactors resolve_blocking(const BlockingFactors* params, const char* where,
                                 Accumulation acc = Accumulation::int32);

}  // namespace quire::detail
QUIRE_API_END
