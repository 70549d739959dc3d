// Number formatting the bench's table renderings share.
#pragma once

#include <cstdio>
#include <optional>
#include <string>

namespace quire::bench {

// A number with `decimals` decimals, or `absent` where there is none (a baseline not
// found, no peak on the portable path).
inline std::string format_number(std::optional<double> v, int decimals, const char* absent = "n/a") {
  if (!v) return absent;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, *v);
  return buf;
}

// Microseconds with 4 significant digits: calls span 1 us to a second.
inline std::string format_micros(double seconds) {
  const double us = seconds * 1e6;
  return format_number(us, us < 10 ? 3 : us < 100 ? 2 : us < 1000 ? 1 : 0);
}

}  // namespace quire::bench
