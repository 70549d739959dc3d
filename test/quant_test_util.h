// Shared pieces of the QuantUtils tests: the ISA paths to run, random floats with every
// special value, bitwise comparison, and the documented quantization formulas written out
// independently of the library (the tests check the library against them).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "../src/cpu/isa_record.h"
#include "quire/QuantUtils.h"
#include "test_util.h"

namespace quire::test {

inline constexpr float kInf = std::numeric_limits<float>::infinity();
inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
inline constexpr float kDenorm = std::numeric_limits<float>::denorm_min();

// Runs fn once per quantization table the CPU runs (portable, AVX2, AVX-512 today):
// under the first path of each, the paths it lacks reported by skip_unsupported.
inline void for_each_isa(const std::function<void()>& fn) {
  std::set<const detail::QuantKernels*> seen;
  for (const IsaCase& c : all_isas()) {
    if (skip_unsupported(c)) continue;
    if (!seen.insert(detail::isa_record(detail::isa_from_inst_set(c.isa)).quant).second) continue;
    SCOPED_TRACE(instSetName(c.isa));
    ScopedIsa scoped(c.isa);
    fn();
  }
}

// Lengths around the vector widths (8 and 16 lanes, 4x unrolled) and a large one.
inline const std::vector<int64_t> kLengths = {0, 1, 7, 8, 9, 15, 16, 17, 31, 63, 64, 65, 100, 1027};

// Random floats spanning [-span, span] plus every special value, shuffled in.
inline std::vector<float> test_floats(size_t n, float span, uint32_t seed, float tie_unit = 0.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-span, span);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(gen);
  const float specials[] = {0.0f,
                            -0.0f,
                            kInf,
                            -kInf,
                            kNaN,
                            -kNaN,
                            kDenorm,
                            -kDenorm,
                            std::numeric_limits<float>::min(),
                            std::numeric_limits<float>::max(),
                            -std::numeric_limits<float>::max(),
                            1e30f,
                            -1e30f};
  for (size_t i = 0; i < n; i += 5) v[i] = specials[(i / 5) % std::size(specials)];
  // Exact ties: (k + 0.5) * tie_unit quantizes to exactly k + 0.5 when tie_unit is the scale.
  if (tie_unit > 0) {
    for (size_t i = 2; i < n; i += 5) v[i] = (static_cast<float>(i % 601) - 300.5f) * tie_unit;
  }
  return v;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// The documented formulas, written independently of the library.
inline int64_t ref_saturate(double r, int64_t lo, int64_t hi) {
  if (std::isnan(r) || r < static_cast<double>(lo)) return lo;
  if (r > static_cast<double>(hi)) return hi;
  return static_cast<int64_t>(r);
}
inline int64_t ref_quantize(float x, float scale, int32_t zp, int64_t lo, int64_t hi, bool legacy) {
  const float t = x * (1.0f / scale);
  const float r = legacy ? std::nearbyint(t + static_cast<float>(zp))
                         : std::nearbyint(t) + static_cast<float>(zp);
  return ref_saturate(r, lo, hi);
}
inline float ref_dequantize(int64_t q, float scale, int32_t zp) {
  return scale * static_cast<float>(q - int64_t{zp});
}

template <class T>
std::pair<int64_t, int64_t> range_of(int precision = 8 * sizeof(T)) {
  if (std::is_signed_v<T>)
    return {-(int64_t{1} << (precision - 1)), (int64_t{1} << (precision - 1)) - 1};
  return {0, (int64_t{1} << precision) - 1};
}

// Expects std::invalid_argument whose message names `param`.
inline void expect_invalid(const std::function<void()>& fn, const std::string& param) {
  try {
    fn();
    ADD_FAILURE() << "no exception; expected one naming " << param;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(param), std::string::npos) << e.what();
  }
}

}  // namespace quire::test
