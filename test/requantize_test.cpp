// Requantization of int32 values (QuantUtils): SaturatingRoundingMulWithShift exactly
// against 128-bit arithmetic, the float scalar form against the documented formula, the
// float and fixed-point array forms against the scalar forms bit for bit on every ISA path
// (full-range data, lengths around the vector widths, thread splits), and the precision of
// ChooseRequantizationMultiplier.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "quant_test_util.h"
#include "quire/QuantUtils.h"

namespace quire::test {
namespace {

TEST(Requantize, FixedPointRoundingIsExact) {
  const int32_t vals[] = {0,
                          1,
                          -1,
                          2,
                          -3,
                          12345,
                          -98765,
                          std::numeric_limits<int32_t>::max(),
                          std::numeric_limits<int32_t>::min(),
                          1 << 30,
                          -(1 << 30)};
  for (int32_t a : vals)
    for (int32_t b : vals)
      for (int s : {0, 1, 2, 15, 31, 32, 47, 62, 63}) {
        const __int128 p = static_cast<__int128>(a) * b;
        // floor((p + 2^(s-1)) / 2^s) in 128 bits
        __int128 num = s > 0 ? p + (static_cast<__int128>(1) << (s - 1)) : p;
        __int128 q = num / (static_cast<__int128>(1) << s);
        if (num < 0 && q * (static_cast<__int128>(1) << s) != num) --q;
        ASSERT_EQ(SaturatingRoundingMulWithShift(a, b, s), static_cast<int64_t>(q))
            << a << " " << b << " " << s;
      }
  EXPECT_EQ(Requantize<uint8_t>(1000, 10, int32_t{1} << 30, 31, 8), 255);
  EXPECT_EQ(Requantize<uint8_t>(101, 10, int32_t{1} << 30, 31, 8), 61);  // 50.5 rounds half up
  EXPECT_EQ(Requantize<int8_t>(-101, 0, int32_t{1} << 30, 31, 8, true), -50);  // -50.5 -> -50
}

TEST(Requantize, FloatScalarFollowsFormula) {
  EXPECT_EQ(Requantize<uint8_t>(5, 10, 0.5f, 8), 12);  // 2.5 -> 2, + 10
  EXPECT_EQ(Requantize<uint8_t>(7, 10, 0.5f, 8), 14);  // 3.5 -> 4, + 10
  EXPECT_EQ(Requantize<uint8_t>(-1000, 10, 0.5f, 8), 0);
  EXPECT_EQ(Requantize<int8_t>(1000, 0, 0.5f, 8, true), 127);
  EXPECT_EQ(Requantize<int32_t>(std::numeric_limits<int32_t>::max(), 1000, 1.0f, 32, true),
            std::numeric_limits<int32_t>::max());
  EXPECT_EQ(Requantize<int32_t>(-2000000000, -1000000000, 1.0f, 32, true),
            std::numeric_limits<int32_t>::min());
}

template <class T>
void check_requantize_arrays(float real, int32_t zp, int precision) {
  std::vector<int32_t> src(1100);
  std::mt19937 gen(17);
  std::uniform_int_distribution<int32_t> dist(std::numeric_limits<int32_t>::min(),
                                              std::numeric_limits<int32_t>::max());
  std::uniform_int_distribution<int32_t> small(-5000, 5000);
  for (size_t i = 0; i < src.size(); ++i) src[i] = i % 3 == 0 ? dist(gen) : small(gen);
  src[0] = std::numeric_limits<int32_t>::min();
  src[1] = std::numeric_limits<int32_t>::max();
  RequantizationParams rp;
  rp.real_multiplier = real;
  ChooseRequantizationMultiplier(real, &rp.multiplier, &rp.right_shift);
  rp.target_qparams = {1.0f, zp, precision};
  const auto [lo, hi] = range_of<T>(precision);
  for (int64_t len : kLengths) {
    std::vector<T> ef(len), ex(len), gf(len), gx(len), sf(len), sx(len);
    for (int64_t i = 0; i < len; ++i) {
      ef[i] = Requantize<T>(src[i], rp);
      ex[i] = RequantizeFixedPoint<T>(src[i], rp);
      const float r = std::nearbyint(static_cast<float>(src[i]) * real);
      ASSERT_EQ(int64_t{ef[i]}, ref_saturate(double{r} + zp, lo, hi));
    }
    Requantize<T>(src.data(), gf.data(), len, rp);
    RequantizeFixedPoint<T>(src.data(), gx.data(), len, rp);
    for (int t = 0; t < 3; ++t) {
      Requantize<T>(src.data(), sf.data(), len, rp, t, 3);
      RequantizeFixedPoint<T>(src.data(), sx.data(), len, rp, t, 3);
    }
    ASSERT_TRUE(same_bits(ef, gf) && same_bits(ef, sf)) << "float, len " << len;
    ASSERT_TRUE(same_bits(ex, gx) && same_bits(ex, sx)) << "fixed, len " << len;
  }
}

TEST(Requantize, ArraysMatchScalarOnEveryPath) {
  for_each_isa([] {
    for (float real : {0.0123f, 0.5f, 1.0f, 3.75f, 1e-9f, 4e-10f, 1.5e-10f}) {
      check_requantize_arrays<uint8_t>(real, 7, 8);
      check_requantize_arrays<uint8_t>(real, -300, 8);
      check_requantize_arrays<uint8_t>(real, 128, 5);
      check_requantize_arrays<int8_t>(real, 3, 8);
      check_requantize_arrays<uint16_t>(real, 40000, 16);
      check_requantize_arrays<int16_t>(real, -5, 16);
      check_requantize_arrays<int32_t>(real, 1000, 32);  // wide clamp
      check_requantize_arrays<int32_t>(real, std::numeric_limits<int32_t>::min(), 32);
    }
  });
}

// FBGEMM's right shift counts from 31 whatever the precision p, so the multiplier is
// real ~ q / 2^s * 2^(32 - p) (q / 2^s for the default p = 32).
TEST(ChooseRequantizationMultiplier, RepresentsTheMultiplier) {
  for (int p : {32, 16, 8}) {
    for (float real : {1e-7f, 0.001f, 0.37f, 0.5f, 0.99999999f, 1.0f, 7.5f, 60.0f}) {
      int32_t q = 0;
      int s = 0;
      ChooseRequantizationMultiplier(real, &q, &s, p);
      EXPECT_GE(q, int64_t{1} << (p - 2));
      EXPECT_LT(q, int64_t{1} << (p - 1));
      EXPECT_NEAR(std::ldexp(static_cast<double>(q), 32 - p - s) / real, 1.0,
                  std::ldexp(1.0, 2 - p))
          << real << " " << p;
    }
  }
  int32_t q = 0;
  int s = 0;
  ChooseRequantizationMultiplier(0.5f, &q, &s);
  EXPECT_EQ(q, 1 << 30);
  EXPECT_EQ(s, 31);
}

}  // namespace
}  // namespace quire::test
