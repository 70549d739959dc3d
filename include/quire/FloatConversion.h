// 16-bit float types and their scalar conversions to and from float.
//
// float16 is IEEE binary16 (1 sign, 5 exponent, 10 mantissa bits); bfloat16 is the top
// half of an IEEE binary32. Both are plain bit containers: trivially copyable, with
// the size and alignment of uint16_t, so arrays of them can be reinterpreted from
// other 16-bit float types.
//
// The conversions are pure integer code (independent of the FP environment) and give
// the same bits as FBGEMM's functions of the same names (fbgemm/FloatConversion.h):
//   cpu_float2half_rn / _rz / cpu_float2half:
//                   round to nearest even (_rn; also cpu_float2half, as F16C's vcvtps2ph)
//                   or toward zero (_rz); overflow gives +-inf (_rn) or +-65504 (_rz);
//                   float denormals give +-0; NaN stays NaN: sign kept, quiet bit set,
//                   top 9 payload bits kept.
//   cpu_half2float: exact; a NaN keeps sign and payload and gets its quiet bit set (what
//                   F16C's vcvtph2ps does, and so FBGEMM's cpu_half2float built with F16C).
//   cpu_half2float_ref: exact; every NaN becomes 0x7fffffff (FBGEMM's portable form,
//                   which its cpu_half2float is when built without F16C).
//   cpu_float2bfloat16: FBGEMM's bit trick (bits + 0x8000) >> 16: round half away from
//                   zero, overflow to +-inf. NaN is not special-cased, exactly as in FBGEMM:
//                   a NaN with payload 0x7f8000..0x7fffff carries into the exponent and
//                   comes out as +-inf, or (all ones) wraps to -0 / +0.
//   float_to_bfloat16_rne (quire's name): round to nearest even, overflow to +-inf; NaN
//                   stays NaN with its quiet bit set and top 6 payload bits kept.
//   cpu_bf162float: exact (the 16 bits become the top half).
#pragma once

#include <bit>
#include <cstdint>

#include "quire/detail/Ieee754Trunc.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

struct float16 {
  uint16_t val;
  friend constexpr bool operator==(float16 a, float16 b) { return a.val == b.val; }
};

struct bfloat16 {
  uint16_t val;
  friend constexpr bool operator==(bfloat16 a, bfloat16 b) { return a.val == b.val; }
};

static_assert(sizeof(float16) == sizeof(uint16_t) && alignof(float16) == alignof(uint16_t));
static_assert(sizeof(bfloat16) == sizeof(uint16_t) && alignof(bfloat16) == alignof(uint16_t));

namespace detail {

inline constexpr uint32_t kF32AbsMask = 0x7fffffffu;
inline constexpr uint32_t kF32Inf = 0x7f800000u;
inline constexpr uint32_t kF32MinHalfNormal = 0x38800000u;  // 2^-14
inline constexpr uint16_t kHalfInf = 0x7c00u;

// float bits -> half bits. Normal halves keep the float's exponent rebased from bias
// 127 to bias 15 (subtract 112 << 23) and drop 13 mantissa bits; subnormal halves are
// the float's significand scaled by 2^24 (half subnormal unit 2^-24).
constexpr uint16_t float_bits_to_half(uint32_t x, bool round_nearest) {
  const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t a = x & kF32AbsMask;
  if (a > kF32Inf) return static_cast<uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x1ffu));
  if (a == kF32Inf) return sign | kHalfInf;
  if (a >= kF32MinHalfNormal) {
    // 65520 = 0x477ff000 is the first float that rounds to inf; 65536 truncates to it.
    if (round_nearest && a >= 0x477ff000u) return sign | kHalfInf;
    if (!round_nearest && a >= 0x47800000u) return static_cast<uint16_t>(sign | 0x7bffu);
    const uint32_t rebased = a - (112u << 23);
    const uint32_t round = round_nearest ? 0xfffu + ((rebased >> 13) & 1u) : 0u;
    return static_cast<uint16_t>(sign | ((rebased + round) >> 13));
  }
  // Subnormal half (or zero): value = mant * 2^(E - 150), in units of 2^-24 that is
  // mant >> (126 - E). A float denormal (E = 0) is far below half's range.
  const uint32_t e = a >> 23;
  const uint32_t shift = 126u - e;  // >= 14 here
  if (e == 0 || shift > 24) return sign;
  const uint32_t mant = (a & 0x7fffffu) | 0x800000u;
  uint32_t q = mant >> shift;
  if (round_nearest) {
    const uint32_t rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u) != 0)) ++q;  // may carry into 0x400: normal
  }
  return static_cast<uint16_t>(sign | q);
}

constexpr uint32_t half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1f) return sign | kF32Inf | (m << 13) | (m != 0 ? 0x400000u : 0u);
  if (e != 0) return sign | ((e + 112u) << 23) | (m << 13);
  if (m == 0) return sign;
  // Subnormal: m * 2^-24; normalize so the leading 1 lands on bit 10.
  const int lead = std::bit_width(m) - 1;  // 0..9
  const uint32_t exp = static_cast<uint32_t>(127 - 24 + lead);
  return sign | (exp << 23) | ((m << (23 - lead)) & 0x7fffffu);
}

constexpr uint16_t float_bits_to_bfloat16(uint32_t x) {
  if ((x & kF32AbsMask) > kF32Inf) return static_cast<uint16_t>((x >> 16) | 0x40u);
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

}  // namespace detail

inline float16 cpu_float2half_rn(float f) {
  return {detail::float_bits_to_half(std::bit_cast<uint32_t>(f), true)};
}
inline float16 cpu_float2half_rz(float f) {
  return {detail::float_bits_to_half(std::bit_cast<uint32_t>(f), false)};
}
inline float16 cpu_float2half(float f) { return cpu_float2half_rn(f); }
inline float cpu_half2float(float16 h) {
  return std::bit_cast<float>(detail::half_bits_to_float(h.val));
}
inline float cpu_half2float_ref(float16 h) {
  const bool nan = (h.val & 0x7c00u) == 0x7c00u && (h.val & 0x3ffu) != 0;
  return std::bit_cast<float>(nan ? detail::kF32AbsMask : detail::half_bits_to_float(h.val));
}
inline bfloat16 cpu_float2bfloat16(float f) {
  return {static_cast<uint16_t>((std::bit_cast<uint32_t>(f) + 0x8000u) >> 16)};
}
inline bfloat16 float_to_bfloat16_rne(float f) {
  return {detail::float_bits_to_bfloat16(std::bit_cast<uint32_t>(f))};
}
inline float cpu_bf162float(bfloat16 b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b.val) << 16);
}

}  // namespace quire
QUIRE_API_END
