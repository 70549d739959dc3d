// ChooseQuantizationParams (FBGEMM's algorithm, see quire/QuantUtils.h for the steps),
// ChooseRequantizationMultiplier and the range of a TensorQuantizationParams.
//
// The float / double mix below is FBGEMM's on purpose: each step rounds where FBGEMM's
// rounds, so the scale and zero point are FBGEMM's bits. Integer differences of qmin and
// qmax are taken in 64 bits (FBGEMM's int32 arithmetic overflows only where its result is
// undefined); they convert to float and double exactly as FBGEMM's int values do.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>

#include "quant/checks.h"
#include "quire/QuantUtils.h"

namespace quire {
namespace {

constexpr const char* kChoose = "ChooseQuantizationParams";

// FBGEMM's floor on scales: the smallest normal half, 6.1e-5 rounded (Glow / FakeLowP).
constexpr float kSmallScaleThreshold = 6.1e-5f;

// Step 4: 2^-floor(log2(1 / scale)) below 1 (log2 in double), 2^ceil(log2f(scale)) from 1
// on (log2 in float: FBGEMM's unqualified log2 of a float picks std::log2(float)).
// FBGEMM forms the power as an int shift, undefined from 2^31 on; ldexp gives the power
// of two it intends.
float power_of_two_scale(float scale) {
  if (scale < 1) {
    const double e = std::floor(std::log2(1.0 / static_cast<double>(scale)));
    return static_cast<float>(1.0 / std::ldexp(1.0, static_cast<int>(e)));
  }
  if (std::isinf(scale)) return scale;
  const float e = std::ceil(std::log2(scale));
  return std::ldexp(1.0f, static_cast<int>(e));
}

}  // namespace

float TensorQuantizationParams::Min() const {
  detail::quantized_range<uint32_t>("TensorQuantizationParams::Min", precision, false);
  return detail::dequantize_one(int64_t{0}, scale, zero_point);
}

float TensorQuantizationParams::Max() const {
  const auto range =
      detail::quantized_range<uint32_t>("TensorQuantizationParams::Max", precision, false);
  return detail::dequantize_one(range.second, scale, zero_point);
}

TensorQuantizationParams ChooseQuantizationParams(float min, float max, int32_t qmin,
                                                  int32_t qmax, bool preserve_sparsity,
                                                  bool force_scale_power_of_two) {
  if (!std::isfinite(min)) detail::fail_float(kChoose, "min", min, "must be finite");
  if (!std::isfinite(max)) detail::fail_float(kChoose, "max", max, "must be finite");
  detail::check_arg(qmin < qmax, kChoose, "qmin", qmin, "must be < qmax");
  const int64_t codes = int64_t{qmax} - qmin;

  // 1. Symmetric range. With one code step the positive half has no code (h = 0) and
  // FBGEMM's range becomes NaN.
  if (min < 0 && max > 0 && preserve_sparsity) {
    detail::check_arg(codes >= 2, kChoose, "qmax - qmin", codes,
                      "must be >= 2 with preserve_sparsity and min < 0 < max");
    const int64_t sym_qmin = -(codes / 2 + 1), sym_qmax = codes / 2;
    const float s_min = std::fabs(min / static_cast<float>(sym_qmin));
    const float s_max = std::fabs(max / static_cast<float>(sym_qmax));
    const double max_scale = std::max(s_min, s_max);
    min = static_cast<float>(max_scale * static_cast<double>(sym_qmin));
    max = static_cast<float>(max_scale * static_cast<double>(sym_qmax));
  }

  // 2. Zero is in the range (std::min / std::max keep a -0 min).
  min = std::min(min, 0.0f);
  max = std::max(max, 0.0f);

  // 3. The scale, in double, rounded once to float.
  float scale = static_cast<float>((static_cast<double>(max) - min) / static_cast<double>(codes));
  if (scale == 0.0f || std::isinf(1.0f / scale)) scale = 0.1f;

  // 4.
  if (force_scale_power_of_two) scale = power_of_two_scale(scale);

  // 5. The scale floor, with the range stretched to it.
  if (scale < kSmallScaleThreshold) {
    const float old_scale = scale;
    scale = kSmallScaleThreshold;
    if (min == 0.0f) {
      max = kSmallScaleThreshold * static_cast<float>(codes);
    } else if (max == 0.0f) {
      min = -kSmallScaleThreshold * static_cast<float>(codes);
    } else {
      const float amplifier = kSmallScaleThreshold / old_scale;
      min *= amplifier;
      max *= amplifier;
    }
  }

  // 6. The zero point from the end whose terms are smaller (less rounding error).
  const double s = scale;
  const double from_min = static_cast<double>(qmin) - min / s;
  const double from_max = static_cast<double>(qmax) - max / s;
  const double from_min_error = static_cast<double>(std::llabs(qmin)) + std::fabs(min / s);
  const double from_max_error = static_cast<double>(std::llabs(qmax)) + std::fabs(max / s);
  double initial = from_min_error < from_max_error ? from_min : from_max;
  if (min < 0 && max > 0 && preserve_sparsity) {
    initial = static_cast<double>(int64_t{qmin} + qmax) / 2;
  }
  int32_t zero_point = 0;
  if (initial < qmin) {
    zero_point = qmin;
  } else if (initial > qmax) {
    zero_point = qmax;
  } else {
    zero_point = static_cast<int32_t>(std::nearbyint(initial));
  }

  TensorQuantizationParams result;
  result.scale = scale;
  result.zero_point = zero_point;
  result.precision = std::bit_width(static_cast<uint64_t>(codes));
  return result;
}

// FBGEMM's steps: real = m * 2^e with m in [0.5, 1); the multiplier is m * 2^(p-1)
// rounded half to even (exact in float before rounding), the shift 31 - e whatever p is
// (FBGEMM's loop starts from 31), both adjusted when m rounds up to 1.
void ChooseRequantizationMultiplier(float real_multiplier, int32_t* quantized_multiplier,
                                    int* right_shift, int requantization_multiplier_precision) {
  constexpr const char* kWhere = "ChooseRequantizationMultiplier";
  const int p = requantization_multiplier_precision;
  if (!(real_multiplier > 0.0f) || !std::isfinite(real_multiplier)) {
    detail::fail_float(kWhere, "real_multiplier", real_multiplier, "must be positive and finite");
  }
  detail::check_not_null(quantized_multiplier, kWhere, "quantized_multiplier");
  detail::check_not_null(right_shift, kWhere, "right_shift");
  detail::check_arg(p >= 2 && p <= 32, kWhere, "requantization_multiplier_precision", p,
                    "must be in [2, 32]");
  int e = 0;
  const float m = std::frexp(real_multiplier, &e);
  auto q = static_cast<int64_t>(std::nearbyint(std::ldexp(m, p - 1)));
  int shift = 31 - e;
  if (q == (int64_t{1} << (p - 1))) {  // m rounded up to 1: keep q below 2^(p-1)
    q /= 2;
    --shift;
  }
  detail::check_arg(shift >= 0 && shift <= 63, kWhere, "right_shift", shift,
                    "(needed for real_multiplier) must be in [0, 63]");
  *quantized_multiplier = static_cast<int32_t>(q);
  *right_shift = shift;
}

}  // namespace quire
