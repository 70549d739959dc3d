// ChooseQuantizationParamsCoveringRange: quire's own chooser, the least scale whose code
// range covers [min, max] (see quire/QuantUtils.h). FBGEMM's chooser is in choose_params.cpp.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "quant/checks.h"
#include "quire/QuantUtils.h"

namespace quire {
namespace {

constexpr const char* kChoose = "ChooseQuantizationParamsCoveringRange";

// The real value of code q: the Dequantize formula.
float real_of(int64_t q, float scale, int64_t zero_point) {
  return detail::dequantize_one(q, scale, static_cast<int32_t>(zero_point));
}

// The smallest float scale >= s (s > 0 in double) whose range [real_of(qmin),
// real_of(qmax)] covers [lo, hi] in the float arithmetic Dequantize uses.
float covering_scale(double s, float lo, float hi, int64_t qmin, int64_t qmax, int64_t zp) {
  auto scale = static_cast<float>(s);
  if (static_cast<double>(scale) < s) scale = std::nextafter(scale, INFINITY);
  scale = std::max(scale, std::numeric_limits<float>::min());  // finite reciprocal
  while (std::isfinite(scale) &&
         (real_of(qmin, scale, zp) > lo || real_of(qmax, scale, zp) < hi)) {
    scale = std::nextafter(scale, INFINITY);
  }
  return scale;
}

// Quantize adds the zero point in float, so 0 maps to it exactly only if it is a float
// (always true for |zp| <= 2^24): the float-representable integer nearest to zp within
// [lower, upper].
int64_t float_zero_point(int64_t zp, int64_t lower, int64_t upper, int32_t qmin, int32_t qmax) {
  const auto f = static_cast<float>(zp);
  int64_t z = static_cast<int64_t>(f);
  if (z > upper) z = static_cast<int64_t>(std::nextafter(f, -INFINITY));
  if (z < lower) z = static_cast<int64_t>(std::nextafter(f, INFINITY));
  if (z < lower || z > upper) {
    detail::check_arg(false, kChoose, "qmin", qmin,
                      ("with qmax=" + std::to_string(qmax) +
                       " leaves no zero point that is exactly a float")
                          .c_str());
  }
  return z;
}

// 2^ceil(log2(scale)): scale itself when it is a power of two.
float round_up_to_power_of_two(float scale) {
  int e = 0;
  const float m = std::frexp(scale, &e);  // scale = m * 2^e, m in [0.5, 1)
  return m == 0.5f ? scale : std::ldexp(1.0f, e);
}

}  // namespace

TensorQuantizationParams ChooseQuantizationParamsCoveringRange(float min, float max, int32_t qmin,
                                                               int32_t qmax, bool preserve_sparsity,
                                                               bool force_scale_power_of_two) {
  if (!std::isfinite(min)) detail::fail_float(kChoose, "min", min, "must be finite");
  if (!std::isfinite(max)) detail::fail_float(kChoose, "max", max, "must be finite");
  if (min > max) {
    std::ostringstream msg;
    msg.precision(9);
    msg << kChoose << ": min=" << min << " must be <= max=" << max;
    throw std::invalid_argument(msg.str());
  }
  detail::check_arg(qmin < qmax, kChoose, "qmin", qmin, "must be < qmax");
  // Zero must be a code: extend the range to contain it.
  const float lo = std::min(min, 0.0f), hi = std::max(max, 0.0f);
  const int64_t codes = int64_t{qmax} - qmin;
  if (lo < 0 && hi > 0) {
    detail::check_arg(codes >= 2, kChoose, "qmax - qmin", codes,
                      "must be >= 2 when min < 0 < max (0 and both signs need a code)");
  }

  // The least scale covering [lo, hi] with zero point z (lo < 0 < hi, qmin < z < qmax).
  auto needed = [&](int64_t z) {
    return std::max(-static_cast<double>(lo) / static_cast<double>(z - qmin),
                    static_cast<double>(hi) / static_cast<double>(qmax - z));
  };
  int64_t zp = 0;
  double s = 0;  // the least scale covering [lo, hi] with zero point zp
  if (lo == 0 && hi == 0) {
    zp = std::clamp<int64_t>(0, qmin, qmax);
    s = 1.0;
  } else if (lo == 0) {
    zp = qmin;
    s = hi / static_cast<double>(codes);
  } else if (hi == 0) {
    zp = qmax;
    s = -static_cast<double>(lo) / static_cast<double>(codes);
  } else {
    if (preserve_sparsity) {
      // Symmetric: the negative side gets the odd code, as int8's -128.
      zp = qmin + (codes + 1) / 2;
    } else {
      // Affine: the real zero point zr maps lo to qmin and hi to qmax; needed() falls
      // then rises around it, so the best integer is floor(zr) or ceil(zr), kept one
      // code away from each end so both signs stay representable.
      const double s0 = (static_cast<double>(hi) - lo) / static_cast<double>(codes);
      const double zr = qmin - lo / s0;
      const int64_t below = std::clamp<int64_t>(static_cast<int64_t>(std::floor(zr)),
                                                int64_t{qmin} + 1, int64_t{qmax} - 1);
      const int64_t above = std::min<int64_t>(below + 1, int64_t{qmax} - 1);
      zp = needed(above) < needed(below) ? above : below;
    }
    zp = float_zero_point(zp, int64_t{qmin} + 1, int64_t{qmax} - 1, qmin, qmax);
    s = needed(zp);
  }
  float scale = covering_scale(s, lo, hi, qmin, qmax, zp);
  if (force_scale_power_of_two) scale = round_up_to_power_of_two(scale);
  if (!std::isfinite(scale)) {
    std::ostringstream msg;
    msg.precision(9);
    msg << kChoose << ": the range [" << min << ", " << max << "] needs a scale beyond float "
        << "with qmin=" << qmin << ", qmax=" << qmax;
    throw std::invalid_argument(msg.str());
  }
  TensorQuantizationParams result;
  result.scale = scale;
  result.zero_point = static_cast<int32_t>(zp);
  result.precision = std::bit_width(static_cast<uint64_t>(codes));
  return result;
}

}  // namespace quire
