// Argument checks for public entry points: every failure is a std::invalid_argument
// whose message names the function, the parameter and its value.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire::detail {

[[noreturn]] inline void fail_argument(const char* where, const char* param, int64_t value,
                                       const char* requirement) {
  throw std::invalid_argument(std::string(where) + ": " + param + "=" + std::to_string(value) +
                              " " + requirement);
}

inline void check_arg(bool ok, const char* where, const char* param, int64_t value,
                      const char* requirement) {
  if (!ok) fail_argument(where, param, value, requirement);
}

inline void check_not_null(const void* p, const char* where, const char* param) {
  if (p == nullptr) throw std::invalid_argument(std::string(where) + ": " + param + " is null");
}

// Products of sizes must fit in int32 (the API's index type). The product itself may not
// fit int64 (sizes read by PackBMatrix::load from a stream), hence the overflow check.
inline void check_product(int64_t a, int64_t b, const char* where, const char* what) {
  int64_t product;
  if (__builtin_mul_overflow(a, b, &product) || product > INT32_MAX) {
    throw std::invalid_argument(std::string(where) + ": " + what + " = " + std::to_string(a) +
                                " x " + std::to_string(b) + " overflows int32");
  }
}

}  // namespace quire::detail
QUIRE_API_END
