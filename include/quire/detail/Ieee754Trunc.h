// Narrowing conversions between binary floating-point formats, on raw bits.
//
// FloatFormat<T, E, HasInfinity> describes a format stored in the unsigned integer T:
// 1 sign bit, E exponent bits (bias 2^(E-1) - 1), the rest mantissa. With HasInfinity
// the all-ones exponent holds inf and NaNs (IEEE); without it (FP8 E4M3FN) it holds
// normal numbers too, and the only NaN is exponent and mantissa all ones.
//
// ieee754_trunc<Src, Tgt, Mode>(bits) rounds a Src value to Tgt, for Tgt with no more
// exponent and fewer mantissa bits. Same names, members and bits as FBGEMM's
// fbgemm::detail versions (fbgemm/FloatConversion.h), including these rules:
//   - the sign is kept everywhere (-0, negative NaN, negative overflow);
//   - NaN: to a format with infinity, exponent all ones, quiet bit set, top mantissa bits
//     kept; to E4M3FN, its single NaN;
//   - overflow: nearest even gives inf (NaN for E4M3FN); toward zero gives the largest
//     finite value for a format with infinity, and NaN for E4M3FN (no saturation there:
//     its largest encoding is NaN). Src inf gives Tgt's inf (or NaN) in both modes;
//   - subnormal results are rounded like any other; Src subnormals flush to zero when
//     Tgt's subnormal range starts too far above Src's for them to matter (fp32 -> fp16).
#pragma once

#include <climits>
#include <cstdint>

#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire::detail {

template <typename T, int ExponentBits, bool HasInfinity = true>
struct FloatFormat {
  using value_type = T;
  static constexpr int bits = static_cast<int>(sizeof(T)) * CHAR_BIT;
  static constexpr int exponent_bits = ExponentBits;
  static constexpr int mantissa_bits = bits - 1 - exponent_bits;
  static constexpr int sign_bit_pos = bits - 1;
  static constexpr int exponent_bias = (1 << (exponent_bits - 1)) - 1;
  // Exponent of the normal binade with biased exponent 1 (subnormals share it).
  static constexpr int unbiased_exponent_min = 1 - exponent_bias;
  // Without infinity the all-ones exponent is one more binade of finite numbers.
  static constexpr int unbiased_exponent_max = exponent_bias + (HasInfinity ? 0 : 1);
  static constexpr T sign_bit = static_cast<T>(T{1} << sign_bit_pos);
  static constexpr T mantissa_mask = static_cast<T>((T{1} << mantissa_bits) - 1);
  static constexpr T exponent_mask =
      static_cast<T>(((T{1} << exponent_bits) - 1) << mantissa_bits);
  // Top mantissa bit marks a quiet NaN, as on x86 and Arm (IEEE leaves it open).
  static constexpr T quiet_nan_bit = static_cast<T>(T{1} << (mantissa_bits - 1));
  static constexpr T nan = static_cast<T>(exponent_mask | mantissa_mask);
  // What nearest-even rounding gives past the largest finite value.
  static constexpr T overflow_value = HasInfinity ? exponent_mask : nan;
  static constexpr bool has_infinity = HasInfinity;
  static constexpr bool has_nan_payload = HasInfinity;  // E4M3FN has a single NaN
};

using IEEE754Single = FloatFormat<uint32_t, 8>;
using IEEE754Half = FloatFormat<uint16_t, 5>;
using BFloat16 = FloatFormat<uint16_t, 8>;           // the top half of an IEEE754Single
using FP8_E5M2 = FloatFormat<uint8_t, 5>;            // OCP FP8, IEEE-style specials
using FP8_E4M3FN = FloatFormat<uint8_t, 4, false>;   // OCP FP8: no inf, max 448, NaN 0x7f

enum class RoundingMode {
  ToNearestTiesToEven,
  ToZero,
};

template <typename Src, typename Tgt, RoundingMode Mode>
constexpr typename Tgt::value_type ieee754_trunc(typename Src::value_type x) {
  static_assert(Src::exponent_bits >= Tgt::exponent_bits, "target exponent range too wide");
  static_assert(Src::mantissa_bits > Tgt::mantissa_bits, "target must drop mantissa bits");
  using S = typename Src::value_type;
  using T = typename Tgt::value_type;
  constexpr int drop = Src::mantissa_bits - Tgt::mantissa_bits;
  constexpr bool nearest = Mode == RoundingMode::ToNearestTiesToEven;

  // sig / 2^r rounded by Mode (1 <= r <= Src::mantissa_bits + 1). A round-up may carry
  // into the next binade: in the bit layout that is simply the next code.
  const auto shift_round = [](S sig, int r) -> S {
    S q = static_cast<S>(sig >> r);
    if constexpr (nearest) {
      const S half = static_cast<S>(S{1} << (r - 1));
      const S rem = static_cast<S>(sig & ((half << 1) - 1));
      if (rem > half || (rem == half && (q & 1u) != 0)) ++q;
    }
    return q;
  };

  const T sign = (x & Src::sign_bit) != 0 ? Tgt::sign_bit : T{0};
  const S biased = static_cast<S>((x & Src::exponent_mask) >> Src::mantissa_bits);
  const S mant = static_cast<S>(x & Src::mantissa_mask);
  const bool all_ones_exp = (x & Src::exponent_mask) == Src::exponent_mask;
  const int exp = static_cast<int>(biased) - Src::exponent_bias;

  if (exp < Tgt::unbiased_exponent_min) {
    // Src subnormals are below 2^Src::min; when Tgt's subnormals start more than `drop`
    // binades higher, FBGEMM (and so quire) flushes them to zero. For the formats above
    // that is also what rounding gives: they are below half Tgt's smallest subnormal.
    constexpr bool flush_src_subnormals =
        Tgt::unbiased_exponent_min - Src::unbiased_exponent_min > drop;
    if constexpr (flush_src_subnormals) {
      if (biased == 0) return sign;
    }
    // Value = sig * 2^(e - Src::mantissa_bits); in Tgt subnormal units (2^(Tgt::min -
    // Tgt::mantissa_bits)) that is sig / 2^(drop + Tgt::min - e).
    const S sig = biased != 0 ? static_cast<S>(mant | (S{1} << Src::mantissa_bits)) : mant;
    const int e = biased != 0 ? exp : Src::unbiased_exponent_min;
    const int r = drop + (Tgt::unbiased_exponent_min - e);
    if (r > Src::mantissa_bits + 1) return sign;  // below half the smallest subnormal
    return static_cast<T>(sign | shift_round(sig, r));
  }

  if (exp > Tgt::unbiased_exponent_max) {
    if (all_ones_exp && mant != 0) {
      if constexpr (Tgt::has_nan_payload) {
        return static_cast<T>(sign | Tgt::exponent_mask | Tgt::quiet_nan_bit |
                              static_cast<T>(mant >> drop));
      } else {
        return static_cast<T>(sign | Tgt::nan);
      }
    }
    // Finite overflow toward zero stops one code below inf; without inf that code is NaN.
    if (!nearest && !(Src::has_infinity && all_ones_exp)) {
      return static_cast<T>(
          sign | (Tgt::has_infinity ? static_cast<T>(Tgt::exponent_mask - 1) : Tgt::nan));
    }
    return static_cast<T>(sign | Tgt::overflow_value);
  }

  // Normal in Tgt: rebias the exponent, keep the magnitude's layout and round off `drop`
  // bits; a carry out of the top finite binade lands on inf, as it should.
  const S rebased = static_cast<S>(
      (static_cast<S>(exp + Tgt::exponent_bias) << Src::mantissa_bits) | mant);
  S q = shift_round(rebased, drop);
  if constexpr (!Tgt::has_infinity) {
    if (q > Tgt::nan) q = Tgt::nan;  // no inf to carry into: rounding past NaN stays NaN
  }
  return static_cast<T>(sign | q);
}

}  // namespace quire::detail
QUIRE_API_END
