// FloatToFloat8_ref / Float8ToFloat_ref (quire/FbgemmConvert.h): 8-bit floats with e
// exponent bits, m = 7 - e mantissa bits and a bias, without infinities or NaN.
//
// The rounding uses the FPU instead of bit manipulation: adding a power of two B whose
// unit in the last place is the fp8 grid spacing at x's exponent rounds x to that grid
// (round to nearest even, the FP environment's default), and subtracting B back is
// exact. The fp8 bits are then read from the float's bits:
//   normal  (x >= 2^(1 - bias)):  B = 2^(E(x) + 23 - m); y = (x + B) - B;
//                                  code = ((bits(y) - (127 - bias) << 23) << (8 - e)) >> 24
//                                  (the rebased exponent and top m mantissa bits)
//   subnormal:                     B = 2^(23 + 1 - bias - m), whose ulp is the fp8
//                                  subnormal unit 2^(1 - bias - m); the low 8 bits of
//                                  bits(x + B) are the code (x + B < 2B keeps B's exponent)
// x is first clamped to the largest finite fp8 value, max_pos, which needs no rounding,
// so the normal branch never overflows.
#include <bit>
#include <cmath>
#include <cstdint>

#include "quire/FbgemmConvert.h"
#include "quire/detail/Check.h"

namespace quire {
namespace {

void check_format(int exponent_bits, int exponent_bias, const char* where) {
  detail::check_arg(exponent_bits >= 1 && exponent_bits <= 7, where, "exponent_bits",
                    exponent_bits, "must be in [1, 7]");
  const int top = (1 << exponent_bits) - 2 - exponent_bias;  // largest unbiased exponent
  detail::check_arg(exponent_bias >= 0 && top >= 0 && top <= 30, where, "exponent_bias",
                    exponent_bias, "must be >= 0 and within [2^exponent_bits - 32, 2^exponent_bits - 2]");
}

float from_bits(uint32_t u) { return std::bit_cast<float>(u); }

}  // namespace

void FloatToFloat8_ref(float input, uint8_t* output, int exponent_bits, int exponent_bias) {
  constexpr const char* kWhere = "FloatToFloat8_ref";
  check_format(exponent_bits, exponent_bias, kWhere);
  detail::check_not_null(output, kWhere, "output");
  const int e = exponent_bits, m = 7 - e;
  // 2^top * (2 - 2^-m): the largest fp8 value, exact in float.
  const float max_pos = std::ldexp(2.0f - std::ldexp(1.0f, -m), (1 << e) - 2 - exponent_bias);
  const uint32_t bits = std::bit_cast<uint32_t>(input);
  const uint32_t sign = bits & 0x80000000u;
  // FBGEMM's reference takes fminf(|input|, max_pos), and glibc's fminf ignores a quiet
  // NaN (max_pos) but returns a signaling one quieted, which then goes through the
  // subnormal branch below as its payload's low byte. Spelled out rather than called:
  // clang lowers fmin to min instructions that return max_pos for either NaN.
  const uint32_t magnitude = bits & 0x7fffffffu;
  float x;
  if (magnitude > 0x7f800000u)
    x = (magnitude & 0x00400000u) ? max_pos : from_bits(magnitude | 0x00400000u);
  else
    x = std::fmin(from_bits(magnitude), max_pos);
  const uint32_t rebase = static_cast<uint32_t>(127 - exponent_bias) << 23;
  uint32_t code;
  if (x >= from_bits(rebase + (1u << 23))) {
    const float bouncer = from_bits((std::bit_cast<uint32_t>(x) & 0xff800000u) +
                                    (static_cast<uint32_t>(23 - m) << 23));
    const float y = (bouncer + x) - bouncer;
    code = (((std::bit_cast<uint32_t>(y) - rebase) << (8 - e)) | sign) >> 24;
  } else {
    const float bouncer = from_bits(static_cast<uint32_t>(127 + 23 + 1 - exponent_bias - m) << 23);
    code = std::bit_cast<uint32_t>(bouncer + x) | (sign >> 24);
  }
  *output = static_cast<uint8_t>(code);
}

void Float8ToFloat_ref(uint8_t input, float* output, int exponent_bits, int exponent_bias) {
  constexpr const char* kWhere = "Float8ToFloat_ref";
  check_format(exponent_bits, exponent_bias, kWhere);
  detail::check_not_null(output, kWhere, "output");
  // The 7 magnitude bits placed at the top of a float's exponent and mantissa make a
  // float worth 2^(bias - 127) times the fp8 value (normal or subnormal alike);
  // multiplying by 2^(127 - bias) is exact.
  const float scaled = from_bits(static_cast<uint32_t>(input & 0x7fu) << (16 + exponent_bits));
  const float magnitude = scaled * from_bits(static_cast<uint32_t>(254 - exponent_bias) << 23);
  *output = from_bits(std::bit_cast<uint32_t>(magnitude) | (static_cast<uint32_t>(input & 0x80u) << 24));
}

}  // namespace quire
