// ieee754_trunc, spelled as FBGEMM code spells it (fbgemm::detail through the compat
// <fbgemm/FloatConversion.h>), against independent references:
//   fp32 -> fp16: cpu_float2half_rn / _rz (quire's own fp16 code, which FBGEMM builds on
//                 ieee754_trunc), every 4093rd float plus specials and every half's
//                 value, midpoint and neighbours;
//   fp32 -> bf16: the bit formulas (drop 16 bits / add 0x7fff + lsb; NaN quieted), every
//                 high half with the low halves that decide rounding;
//   fp32 -> FP8:  a search over the 256 codes, each valued by the exponent/mantissa
//                 formula, under FBGEMM's overflow and NaN rules, on a sample of floats.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <fbgemm/FloatConversion.h>

namespace {

namespace fd = fbgemm::detail;
constexpr auto kRne = fd::RoundingMode::ToNearestTiesToEven;
constexpr auto kRz = fd::RoundingMode::ToZero;

template <typename Tgt, fd::RoundingMode Mode>
uint32_t from_f32(uint32_t u) {
  return fd::ieee754_trunc<fd::IEEE754Single, Tgt, Mode>(u);
}

float as_float(uint32_t u) { return std::bit_cast<float>(u); }
bool is_nan32(uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }

// The client-visible description of each format, as FBGEMM defines it.
static_assert(fd::IEEE754Single::mantissa_bits == 23 && fd::IEEE754Single::exponent_bias == 127);
static_assert(fd::IEEE754Half::exponent_mask == 0x7c00 && fd::IEEE754Half::quiet_nan_bit == 0x200);
static_assert(fd::IEEE754Half::unbiased_exponent_min == -14 &&
              fd::IEEE754Half::unbiased_exponent_max == 15);
static_assert(fd::BFloat16::mantissa_bits == 7 && fd::BFloat16::sign_bit == 0x8000);
static_assert(fd::FP8_E5M2::overflow_value == 0x7c && fd::FP8_E5M2::nan == 0x7f &&
              fd::FP8_E5M2::has_nan_payload);
static_assert(fd::FP8_E4M3FN::bits == 8 && fd::FP8_E4M3FN::sign_bit_pos == 7 &&
              fd::FP8_E4M3FN::mantissa_mask == 0x07 && fd::FP8_E4M3FN::exponent_bias == 7);
static_assert(fd::FP8_E4M3FN::unbiased_exponent_max == 8 && fd::FP8_E4M3FN::nan == 0x7f &&
              fd::FP8_E4M3FN::overflow_value == 0x7f && !fd::FP8_E4M3FN::has_infinity &&
              !fd::FP8_E4M3FN::has_nan_payload);
static_assert(std::is_same_v<fd::FP8_E4M3FN::value_type, uint8_t>);

// Reports the first few mismatches in full, then only counts them.
struct Mismatches {
  std::string what;
  int count = 0;
  void check(uint32_t in, uint32_t got, uint32_t want) {
    if (got == want) return;
    if (++count <= 8) ADD_FAILURE() << what << ": input 0x" << std::hex << in << " gives 0x" << got
                                    << ", expected 0x" << want;
  }
  ~Mismatches() { EXPECT_EQ(count, 0) << what; }
};

// Float specials, each with both signs: zeros, denormals, the normal range's ends, inf,
// NaNs (signalling and quiet, payloads in the kept and the dropped bits).
std::vector<uint32_t> float_specials() {
  std::vector<uint32_t> s = {0, 1, 2, 0x1fff, 0x2000, 0x400000, 0x7fffff, 0x800000,
                             0x800001, 0x7f7fffff, 0x7f800000, 0x7fc00000, 0x7fffffff};
  for (int k = 0; k < 23; ++k) {
    s.push_back(0x7f800000u | (1u << k));
    s.push_back(0x7f800000u | ((1u << k) - 1) | 1u);
    s.push_back(0x7fc00000u | (1u << k));
  }
  const size_t n = s.size();
  for (size_t i = 0; i < n; ++i) s.push_back(s[i] | 0x80000000u);
  return s;
}

std::vector<uint32_t> strided_floats(uint32_t stride) {
  std::vector<uint32_t> v;
  for (uint64_t u = 0; u <= 0xffffffffu; u += stride) v.push_back(static_cast<uint32_t>(u));
  return v;
}

// Decision points of a narrow format whose magnitudes are `values` (ascending): each
// value, the midpoint to the next, and the floats either side of both, with both signs.
std::vector<uint32_t> around(const std::vector<double>& values) {
  std::vector<uint32_t> v;
  for (size_t i = 0; i < values.size(); ++i) {
    std::vector<double> points = {values[i]};
    if (i + 1 < values.size()) points.push_back((values[i] + values[i + 1]) / 2);
    for (double p : points) {
      const uint32_t b = std::bit_cast<uint32_t>(static_cast<float>(p));
      for (uint32_t d : {b - 1, b, b + 1}) {
        if (d > 0x7f800000u) continue;  // b - 1 of +0
        v.push_back(d);
        v.push_back(d | 0x80000000u);
      }
    }
  }
  return v;
}

// Value of a code of a 1-E-M format by the normal/subnormal formula alone (the all-ones
// exponent valued like any other).
double formula_value(uint32_t code, int exp_bits, int man_bits) {
  const int bias = (1 << (exp_bits - 1)) - 1;
  const uint32_t e = (code >> man_bits) & ((1u << exp_bits) - 1), m = code & ((1u << man_bits) - 1);
  if (e == 0) return std::ldexp(static_cast<double>(m), 1 - bias - man_bits);
  return std::ldexp(static_cast<double>((1u << man_bits) | m), static_cast<int>(e) - bias - man_bits);
}

// ---------------------------------------------------------------------------- fp16

std::vector<uint32_t> half_sample() {
  std::vector<uint32_t> v = strided_floats(4093);
  for (uint32_t s : float_specials()) v.push_back(s);
  std::vector<double> halves;  // every non-negative finite half
  for (uint32_t h = 0; h < 0x7c00; ++h) halves.push_back(formula_value(h, 5, 10));
  halves.push_back(65536.0);  // inf's place: the midpoint 65520 is where _rn overflows
  for (uint32_t u : around(halves)) v.push_back(u);
  return v;
}

TEST(Ieee754Trunc, Fp32ToFp16MatchesCpuFloat2Half) {
  Mismatches rn{"fp32->fp16 nearest even vs cpu_float2half_rn"};
  Mismatches rz{"fp32->fp16 toward zero vs cpu_float2half_rz"};
  for (uint32_t u : half_sample()) {
    rn.check(u, from_f32<fd::IEEE754Half, kRne>(u), fbgemm::cpu_float2half_rn(as_float(u)).val);
    rz.check(u, from_f32<fd::IEEE754Half, kRz>(u), fbgemm::cpu_float2half_rz(as_float(u)).val);
  }
}

// The brief's spelling, and the values the comparison above relies on. NaN payloads agree
// with cpu_float2half_*: ieee754_trunc keeps the top 10 mantissa bits and ORs in the quiet
// bit (FBGEMM: tgt_mantissa = src_mantissa >> 13 | quiet_nan_bit), which is what quire's
// 0x7e00 | top 9 bits below the quiet bit is.
TEST(Ieee754Trunc, Fp32ToFp16KnownValues) {
  const uint16_t one = fbgemm::detail::ieee754_trunc<
      fbgemm::detail::IEEE754Single, fbgemm::detail::IEEE754Half,
      fbgemm::detail::RoundingMode::ToNearestTiesToEven>(0x3f800000u);
  EXPECT_EQ(one, 0x3c00);
  EXPECT_EQ((from_f32<fd::IEEE754Half, kRne>(0x477ff000u)), 0x7c00u);  // 65520: tie to inf
  EXPECT_EQ((from_f32<fd::IEEE754Half, kRz>(0x477ff000u)), 0x7bffu);
  EXPECT_EQ((from_f32<fd::IEEE754Half, kRz>(0xff7fffffu)), 0xfbffu);   // -max float: -65504
  EXPECT_EQ((from_f32<fd::IEEE754Half, kRz>(0xff800000u)), 0xfc00u);   // -inf stays -inf
  EXPECT_EQ((from_f32<fd::IEEE754Half, kRne>(0x33000000u)), 0x0000u);  // 2^-25: tie to 0
  EXPECT_EQ((from_f32<fd::IEEE754Half, kRne>(0x33000001u)), 0x0001u);
  EXPECT_EQ((from_f32<fd::IEEE754Half, kRne>(0x80000001u)), 0x8000u);  // denormal: -0
  EXPECT_EQ((from_f32<fd::IEEE754Half, kRne>(0x7f800001u)), 0x7e00u);  // sNaN quieted
  EXPECT_EQ((from_f32<fd::IEEE754Half, kRz>(0xff812345u)), 0xfe09u);   // sign, top payload
  EXPECT_EQ((from_f32<fd::IEEE754Half, kRne>(0x7fffffffu)), 0x7fffu);
  // quire's is constexpr (FBGEMM's is only inline).
  static_assert(fd::ieee754_trunc<fd::IEEE754Single, fd::IEEE754Half, kRne>(0xc0000000u) ==
                0xc000);
}

// ---------------------------------------------------------------------------- bf16

uint32_t bf16_rz_formula(uint32_t u) { return is_nan32(u) ? (u >> 16) | 0x40u : u >> 16; }
uint32_t bf16_rne_formula(uint32_t u) {
  return is_nan32(u) ? (u >> 16) | 0x40u : (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}

TEST(Ieee754Trunc, Fp32ToBf16MatchesFormulas) {
  std::vector<uint32_t> sample = strided_floats(4093);
  for (uint32_t s : float_specials()) sample.push_back(s);
  // Every high half with the low halves that decide: exact, ties, either side of a tie.
  for (uint32_t hi = 0; hi < 0x10000u; ++hi)
    for (uint32_t lo : {0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu})
      sample.push_back(hi << 16 | lo);
  Mismatches rz{"fp32->bf16 toward zero"}, rne{"fp32->bf16 nearest even"};
  for (uint32_t u : sample) {
    rz.check(u, from_f32<fd::BFloat16, kRz>(u), bf16_rz_formula(u));
    rne.check(u, from_f32<fd::BFloat16, kRne>(u), bf16_rne_formula(u));
  }
  EXPECT_EQ((from_f32<fd::BFloat16, kRz>(0x7f800001u)), 0x7fc0u);  // would be inf unquieted
  EXPECT_EQ((from_f32<fd::BFloat16, kRne>(0x7f7fffffu)), 0x7f80u);  // max float: inf
  EXPECT_EQ((from_f32<fd::BFloat16, kRz>(0x7f7fffffu)), 0x7f7fu);
  EXPECT_EQ((from_f32<fd::BFloat16, kRne>(0x00018000u)), 0x0002u);  // denormal tie: to even
}

// ----------------------------------------------------------------------------- FP8

// FBGEMM's rules, as a search. The result keeps x's sign. NaN: E5M2 keeps the top mantissa
// bit and sets the quiet bit; E4M3FN has the one NaN 0x7f. Otherwise the candidates are
// the codes of x's sign up to `top`, the first code past the largest finite value (E5M2's
// inf 0x7c, E4M3FN's NaN 0x7f), valued by the formula (65536 / 480):
//   nearest even: the closest candidate, ties to the even code; so overflow (from half an
//                 ulp past the largest finite value on) lands on top;
//   toward zero:  the largest candidate not above |x|; E5M2 saturates at 0x7b (only inf
//                 gives 0x7c), E4M3FN does not: 480 and up give 0x7f, NaN;
//   inf gives top in both modes.
template <typename Tgt>
uint32_t fp8_reference(uint32_t u, bool nearest) {
  constexpr int E = Tgt::exponent_bits, M = Tgt::mantissa_bits;
  constexpr uint32_t top = Tgt::has_infinity ? 0x7cu : 0x7fu;
  const uint32_t sign = (u >> 24) & 0x80u, a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return Tgt::has_infinity ? sign | 0x7eu | ((a >> 21) & 1u) : sign | 0x7fu;
  if (a == 0x7f800000u) return sign | top;
  const double x = as_float(a);
  const uint32_t last = nearest || !Tgt::has_infinity ? top : top - 1;
  // lo: the largest candidate not above |x| (codes ascend with value).
  uint32_t lo = sign;
  for (uint32_t code = 0; code < 256; ++code) {
    if ((code & 0x80u) != sign || (code & 0x7fu) > last) continue;
    if (formula_value(code & 0x7fu, E, M) <= x) lo = code;
  }
  if (!nearest || (lo & 0x7fu) == top) return lo;
  // Nearest of lo and the next code. x lies between them, so the distances are exact in
  // double, or (x tiny, lo zero) far apart; a distance to a far-off code need not be.
  const uint32_t hi = lo + 1;
  const double below = x - formula_value(lo & 0x7fu, E, M);
  const double above = formula_value(hi & 0x7fu, E, M) - x;
  if (below != above) return below < above ? lo : hi;
  return (lo & 1u) == 0 ? lo : hi;
}

template <typename Tgt>
void check_fp8(const char* name, int exp_bits) {
  std::vector<uint32_t> sample = strided_floats(65521);
  for (uint32_t s : float_specials()) sample.push_back(s);
  // Dense over the format's range and beyond (2^-20 .. 2^18), both signs.
  for (uint32_t u = 107u << 23; u < 145u << 23; u += 1021) {
    sample.push_back(u);
    sample.push_back(u | 0x80000000u);
  }
  std::vector<double> values;
  for (uint32_t c = 0; c <= 0x7f; ++c) values.push_back(formula_value(c, exp_bits, 7 - exp_bits));
  for (uint32_t u : around(values)) sample.push_back(u);

  Mismatches rne{std::string(name) + " nearest even"}, rz{std::string(name) + " toward zero"};
  for (uint32_t u : sample) {
    rne.check(u, from_f32<Tgt, kRne>(u), fp8_reference<Tgt>(u, true));
    rz.check(u, from_f32<Tgt, kRz>(u), fp8_reference<Tgt>(u, false));
  }
}

TEST(Ieee754Trunc, Fp32ToFp8E5M2MatchesSearch) {
  check_fp8<fd::FP8_E5M2>("fp32->FP8_E5M2", 5);
  EXPECT_EQ((from_f32<fd::FP8_E5M2, kRne>(std::bit_cast<uint32_t>(57344.0f))), 0x7bu);  // max
  EXPECT_EQ((from_f32<fd::FP8_E5M2, kRne>(std::bit_cast<uint32_t>(61440.0f))), 0x7cu);  // tie: inf
  EXPECT_EQ((from_f32<fd::FP8_E5M2, kRz>(std::bit_cast<uint32_t>(1e6f))), 0x7bu);
  EXPECT_EQ((from_f32<fd::FP8_E5M2, kRne>(0xffa00000u)), 0xffu);  // -NaN, payload bit kept
}

TEST(Ieee754Trunc, Fp32ToFp8E4M3FNMatchesSearch) {
  check_fp8<fd::FP8_E4M3FN>("fp32->FP8_E4M3FN", 4);
  EXPECT_EQ((from_f32<fd::FP8_E4M3FN, kRne>(std::bit_cast<uint32_t>(448.0f))), 0x7eu);  // max
  EXPECT_EQ((from_f32<fd::FP8_E4M3FN, kRne>(std::bit_cast<uint32_t>(464.0f))), 0x7eu);  // tie
  EXPECT_EQ((from_f32<fd::FP8_E4M3FN, kRne>(std::bit_cast<uint32_t>(465.0f))), 0x7fu);  // NaN
  EXPECT_EQ((from_f32<fd::FP8_E4M3FN, kRz>(std::bit_cast<uint32_t>(479.0f))), 0x7eu);
  EXPECT_EQ((from_f32<fd::FP8_E4M3FN, kRz>(std::bit_cast<uint32_t>(-1e6f))), 0xffu);  // no saturation
  EXPECT_EQ((from_f32<fd::FP8_E4M3FN, kRne>(0xff800000u)), 0xffu);  // -inf: -NaN
  EXPECT_EQ((from_f32<fd::FP8_E4M3FN, kRne>(std::bit_cast<uint32_t>(0x1p-10f))), 0x00u);  // tie
  EXPECT_EQ((from_f32<fd::FP8_E4M3FN, kRne>(std::bit_cast<uint32_t>(0x1.8p-9f))), 0x02u);  // tie
}

}  // namespace
