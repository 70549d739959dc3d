// FloatConversion: the scalar float <-> fp16 / bf16 conversions at known values (ties,
// overflow, subnormals, NaN payloads), FBGEMM's bit tricks for cpu_float2bfloat16 and
// cpu_half2float_ref, the fp16 conversions against the F16C instructions (which FBGEMM's
// cpu_float2half / cpu_half2float use) over every half and a dense sweep of floats, and
// the quantization library's array conversions of every ISA path against the scalar
// forms bit for bit.
#include <gtest/gtest.h>
#include <immintrin.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "quant_test_util.h"
#include "quire/FloatConversion.h"
#include "../src/cpu/isa_record.h"
#include "../src/quant/quant_kernels.h"

namespace quire::test {
namespace {

TEST(FloatConversion, KnownValues) {
  EXPECT_EQ(cpu_float2half_rn(1.0f).val, 0x3c00);
  EXPECT_EQ(cpu_float2half_rn(-2.0f).val, 0xc000);
  EXPECT_EQ(cpu_float2half_rn(65504.0f).val, 0x7bff);
  EXPECT_EQ(cpu_float2half_rn(65519.99f).val, 0x7bff);
  EXPECT_EQ(cpu_float2half_rn(65520.0f).val, 0x7c00);  // ties to even: inf
  EXPECT_EQ(cpu_float2half_rz(65520.0f).val, 0x7bff);
  EXPECT_EQ(cpu_float2half_rz(1e10f).val, 0x7bff);
  EXPECT_EQ(cpu_float2half_rn(-kInf).val, 0xfc00);
  EXPECT_EQ(cpu_float2half_rn(std::ldexp(1.0f, -24)).val, 0x0001);  // smallest subnormal
  EXPECT_EQ(cpu_float2half_rn(std::ldexp(1.0f, -25)).val, 0x0000);  // tie to even: 0
  EXPECT_EQ(cpu_float2half_rn(std::ldexp(3.0f, -26)).val, 0x0001);
  EXPECT_EQ(cpu_float2half_rn(std::ldexp(3.0f, -25)).val, 0x0002);         // 1.5 units: tie to 2
  EXPECT_EQ(cpu_float2half_rn(1.0f + std::ldexp(1.0f, -11)).val, 0x3c00);  // tie to even
  EXPECT_EQ(cpu_float2half_rn(1.0f + 3 * std::ldexp(1.0f, -11)).val, 0x3c02);
  EXPECT_EQ(cpu_float2half_rn(kDenorm).val, 0x0000);
  EXPECT_EQ(cpu_float2half_rn(-0.0f).val, 0x8000);
  EXPECT_TRUE(std::isnan(cpu_half2float(cpu_float2half_rn(kNaN))));
  EXPECT_EQ(cpu_half2float(float16{0x0001}), std::ldexp(1.0f, -24));
  EXPECT_EQ(cpu_half2float(float16{0x7bff}), 65504.0f);
  EXPECT_EQ(cpu_half2float_ref(float16{0x7bff}), 65504.0f);
  EXPECT_EQ(cpu_bf162float(bfloat16{0xc040}), -3.0f);
  EXPECT_TRUE(float16{5} == float16{5});
  static_assert(std::is_trivially_copyable_v<float16> && std::is_trivially_copyable_v<bfloat16>);
}

float bf(uint32_t u) { return std::bit_cast<float>(u); }

// FBGEMM's cpu_float2bfloat16 is (bits + 0x8000) >> 16: ties go away from zero, and NaN
// is not special: it may carry into the sign or exponent.
TEST(FloatConversion, Bfloat16IsFbgemmBitTrick) {
  EXPECT_EQ(cpu_float2bfloat16(1.0f).val, 0x3f80);
  EXPECT_EQ(cpu_float2bfloat16(bf(0x3f808000u)).val, 0x3f81);  // tie: up, not to even
  EXPECT_EQ(cpu_float2bfloat16(bf(0xbf808000u)).val, 0xbf81);  // tie: away from zero
  EXPECT_EQ(cpu_float2bfloat16(bf(0x3f807fffu)).val, 0x3f80);
  EXPECT_EQ(cpu_float2bfloat16(bf(0x3f818000u)).val, 0x3f82);
  EXPECT_EQ(cpu_float2bfloat16(std::numeric_limits<float>::max()).val, 0x7f80);  // overflow
  EXPECT_EQ(cpu_float2bfloat16(kInf).val, 0x7f80);
  EXPECT_EQ(cpu_float2bfloat16(bf(0x7fc00000u)).val, 0x7fc0);
  EXPECT_EQ(cpu_float2bfloat16(bf(0x7f800001u)).val, 0x7f80);  // sNaN: becomes inf
  EXPECT_EQ(cpu_float2bfloat16(bf(0x7fffffffu)).val, 0x8000);  // carries into the sign
  EXPECT_EQ(cpu_float2bfloat16(bf(0xffffffffu)).val, 0x0000);  // wraps around
  EXPECT_EQ(cpu_float2bfloat16(bf(0x00000001u)).val, 0x0000);
  for (uint64_t u = 0; u < (uint64_t{1} << 32); u += 65519) {
    const auto x = static_cast<uint32_t>(u);
    ASSERT_EQ(cpu_float2bfloat16(bf(x)).val, static_cast<uint16_t>((x + 0x8000u) >> 16)) << x;
  }
  // quire's own name rounds to nearest even and keeps NaN.
  EXPECT_EQ(float_to_bfloat16_rne(bf(0x3f808000u)).val, 0x3f80);
  EXPECT_EQ(float_to_bfloat16_rne(bf(0x3f818000u)).val, 0x3f82);
  EXPECT_EQ(float_to_bfloat16_rne(bf(0x7f800001u)).val, 0x7fc0);
  EXPECT_EQ(float_to_bfloat16_rne(bf(0xffffffffu)).val, 0xffff);
}

__attribute__((target("avx2,f16c"))) uint16_t hw_float2half(float x, bool nearest) {
  const __m128 v = _mm_set_ss(x);
  const __m128i h = nearest ? _mm_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
                            : _mm_cvtps_ph(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  return static_cast<uint16_t>(_mm_extract_epi16(h, 0));
}

__attribute__((target("avx2,f16c"))) uint32_t hw_half2float(uint16_t h) {
  return std::bit_cast<uint32_t>(_mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(h))));
}

// FBGEMM's cpu_float2half is vcvtps2ph where the build has F16C and its portable
// ieee754_trunc elsewhere, which agree bit for bit; cpu_half2float is vcvtph2ps. So the
// instructions are the reference: every half, and every float whose low 12 bits are one of
// the patterns that decide a rounding (exact, just above / below a tie at any position >= 12,
// a tie, random), all exponents and signs.
TEST(FloatConversion, HalfMatchesF16cInstructions) {
  if (!fbgemmHasAvx2Support()) GTEST_SKIP() << "needs F16C";
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const auto v = static_cast<uint16_t>(h);
    ASSERT_EQ(std::bit_cast<uint32_t>(cpu_half2float(float16{v})), hw_half2float(v)) << h;
  }
  std::mt19937 gen(7);
  const uint32_t lows[] = {0, 1, 0x7ff, 0x800, 0x801, 0xfff, 0x400, 0xc00};
  for (uint32_t hi = 0; hi < (1u << 20); ++hi) {
    for (uint32_t low : lows) {
      const float x = bf((hi << 12) | low);
      ASSERT_EQ(cpu_float2half_rn(x).val, hw_float2half(x, true)) << std::hex << (hi << 12 | low);
      ASSERT_EQ(cpu_float2half_rz(x).val, hw_float2half(x, false)) << std::hex << (hi << 12 | low);
    }
    const float r = bf((hi << 12) | (gen() & 0xfffu));
    ASSERT_EQ(cpu_float2half(r).val, hw_float2half(r, true));
  }
}

// FBGEMM's portable cpu_half2float_ref turns every NaN into 0x7fffffff and is exact
// elsewhere.
TEST(FloatConversion, HalfToFloatRefCanonicalizesNaN) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float16 v{static_cast<uint16_t>(h)};
    const bool nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0;
    const uint32_t expect = nan ? 0x7fffffffu : std::bit_cast<uint32_t>(cpu_half2float(v));
    ASSERT_EQ(std::bit_cast<uint32_t>(cpu_half2float_ref(v)), expect) << h;
  }
}

TEST(FloatConversion, HalfRoundTripIsExact) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float16 v{static_cast<uint16_t>(h)};
    const bool nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0;
    const float16 back = cpu_float2half_rn(cpu_half2float(v));
    ASSERT_EQ(back.val, nan ? (h | 0x200) : h) << std::hex << h;  // NaN comes back quiet
  }
}

// The array conversions (vcvtps2ph / vcvtph2ps on the vector paths) give the scalar bits
// for every half and for a dense sweep of float bit patterns, NaN payloads included.
TEST(FloatConversion, ArraysMatchScalarOnEveryPath) {
  std::vector<float16> halves(0x10000);
  for (uint32_t h = 0; h < 0x10000; ++h) halves[h].val = static_cast<uint16_t>(h);
  std::vector<float> floats;
  for (uint64_t u = 0; u < (uint64_t{1} << 32); u += 4093)
    floats.push_back(std::bit_cast<float>(static_cast<uint32_t>(u)));
  for (uint32_t u : {0x7f800001u, 0x7fc00000u, 0xffbfffffu, 0x7f802000u, 0x477ff000u, 0x477fefffu,
                     0x33000000u, 0x33000001u, 0x387fe000u, 0x387ff000u, 0x3f808000u})
    floats.push_back(std::bit_cast<float>(u));
  const auto& k = [] { return *detail::active_isa().quant; };
  for_each_isa([&] {
    std::vector<float> f(halves.size());
    k().half_to_float(halves.data(), f.data(), static_cast<int64_t>(halves.size()));
    for (size_t i = 0; i < halves.size(); ++i)
      ASSERT_EQ(std::bit_cast<uint32_t>(f[i]), std::bit_cast<uint32_t>(cpu_half2float(halves[i])))
          << i;
    std::vector<float16> h(floats.size());
    std::vector<bfloat16> b(floats.size());
    k().float_to_half(floats.data(), h.data(), static_cast<int64_t>(floats.size()));
    k().float_to_bfloat16(floats.data(), b.data(), static_cast<int64_t>(floats.size()));
    for (size_t i = 0; i < floats.size(); ++i) {
      ASSERT_EQ(h[i].val, cpu_float2half_rn(floats[i]).val)
          << std::hex << std::bit_cast<uint32_t>(floats[i]);
      ASSERT_EQ(b[i].val, cpu_float2bfloat16(floats[i]).val)
          << std::hex << std::bit_cast<uint32_t>(floats[i]);
    }
  });
}

}  // namespace
}  // namespace quire::test
