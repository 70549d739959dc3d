// FBGEMM's numbers under FBGEMM's names: ChooseQuantizationParams against FBGEMM's
// algorithm re-derived here step by step (float and double where FBGEMM has them), plus
// literal values worked out by hand; Quantize's rounding (round, then add the zero point;
// the legacy form as Quantize<T, true>) and negative scales on every path and thread
// split; QuantizeGroupwise and the fused N-bit format's corner cases; FBGEMM's right shift
// in ChooseRequantizationMultiplier; the *Avx2 element-wise entry points.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "quant_test_util.h"
#include "quire/compat/fbgemm/QuantUtils.h"

namespace quire::test {
namespace {

#define W(...) ({__VA_ARGS__})

// ---------------------------------------------------------------- ChooseQuantizationParams

// FBGEMM's chooser, written out from its description (QuantUtils.cc): symmetric range,
// extend to 0, double range / codes, 0.1 fallback, power of two, 6.1e-5 floor, zero point
// from the end with the smaller terms.
TensorQuantizationParams fbgemm_choose(float lo, float hi, int32_t qmin, int32_t qmax,
                                       bool sym, bool pow2) {
  const int64_t n = int64_t{qmax} - qmin;
  if (lo < 0 && hi > 0 && sym) {
    const int64_t a = -(n / 2 + 1), b = n / 2;
    const double s = std::max(std::fabs(lo / float(a)), std::fabs(hi / float(b)));
    lo = float(s * double(a));
    hi = float(s * double(b));
  }
  lo = lo < 0.0f ? lo : (0.0f < lo ? 0.0f : lo);
  hi = hi > 0.0f ? hi : (hi < 0.0f ? 0.0f : hi);
  float scale = float((double(hi) - double(lo)) / double(n));
  if (scale == 0.0f || std::isinf(1.0f / scale)) scale = 0.1f;
  if (pow2) {
    if (scale < 1) {
      scale = float(1.0 / std::pow(2.0, std::floor(std::log2(1.0 / double(scale)))));
    } else {
      scale = std::pow(2.0f, std::ceil(std::log2f(scale)));
    }
  }
  const float floor_scale = 6.1e-5f;
  if (scale < floor_scale) {
    const float old = scale;
    scale = floor_scale;
    if (lo == 0.0f) {
      hi = floor_scale * float(n);
    } else if (hi == 0.0f) {
      lo = -floor_scale * float(n);
    } else {
      lo *= floor_scale / old;
      hi *= floor_scale / old;
    }
  }
  const double zmin = double(qmin) - lo / double(scale), zmax = double(qmax) - hi / double(scale);
  const double emin = std::fabs(double(qmin)) + std::fabs(lo / double(scale));
  const double emax = std::fabs(double(qmax)) + std::fabs(hi / double(scale));
  double z = emin < emax ? zmin : zmax;
  if (lo < 0 && hi > 0 && sym) z = (double(qmin) + double(qmax)) / 2;
  TensorQuantizationParams p;
  p.scale = scale;
  p.zero_point = z < qmin ? qmin : z > qmax ? qmax : int32_t(std::nearbyint(z));
  return p;
}

void expect_choice(float lo, float hi, int32_t qmin, int32_t qmax, bool sym, bool pow2) {
  const auto want = fbgemm_choose(lo, hi, qmin, qmax, sym, pow2);
  const auto got = ChooseQuantizationParams(lo, hi, qmin, qmax, sym, pow2);
  ASSERT_EQ(std::bit_cast<uint32_t>(got.scale), std::bit_cast<uint32_t>(want.scale))
      << lo << " " << hi << " [" << qmin << ", " << qmax << "] " << sym << pow2;
  ASSERT_EQ(got.zero_point, want.zero_point) << lo << " " << hi << " " << sym << pow2;
}

TEST(FbgemmChooseQuantizationParams, HandValues) {
  // [-1, 1.7] on [0, 255]: scale = 2.7 / 255 (double, of the float inputs); the zero
  // point from min, 0 + 1 / scale = 94.44, rounds to 94.
  auto p = ChooseQuantizationParams(-1.0f, 1.7f, 0, 255);
  EXPECT_EQ(p.scale, static_cast<float>((static_cast<double>(1.7f) + 1.0) / 255));
  EXPECT_NEAR(p.scale, 0.0105882f, 1e-7f);
  EXPECT_EQ(p.zero_point, 94);
  EXPECT_EQ(p.precision, 8);
  // min > max: the range becomes [0, 0] -> the 0.1 fallback, zero point qmin.
  p = ChooseQuantizationParams(1.0f, -1.0f, 0, 255);
  EXPECT_EQ(p.scale, 0.1f);
  EXPECT_EQ(p.zero_point, 0);
  // min > max, both negative: [-2, 0] -> zero point qmax.
  p = ChooseQuantizationParams(-1.0f, -2.0f, 0, 255);
  EXPECT_EQ(p.scale, static_cast<float>(1.0 / 255));
  EXPECT_EQ(p.zero_point, 255);
  // Tiny ranges hit the 6.1e-5 floor; one-sided ones keep 0 at an end.
  p = ChooseQuantizationParams(0.0f, 1e-6f, 0, 255);
  EXPECT_EQ(p.scale, 6.1e-5f);
  EXPECT_EQ(p.zero_point, 0);
  p = ChooseQuantizationParams(-1e-6f, 0.0f, -128, 127);
  EXPECT_EQ(p.scale, 6.1e-5f);
  EXPECT_EQ(p.zero_point, 127);
  // Two-sided tiny range: scaled up around zero, the zero point where the shape says.
  p = ChooseQuantizationParams(-1e-6f, 3e-6f, 0, 255);
  EXPECT_EQ(p.scale, 6.1e-5f);
  EXPECT_EQ(p.zero_point, 64);  // 0 + 255 / 4 = 63.75
  // preserve_sparsity on [-1, 1.7]: s = max(1 / 128, 1.7 / 127) = 1.7 / 127, the range
  // becomes [-128 s, 127 s], scale = 255 s / 255 = s, zero point 127.5 -> 128 (even).
  p = ChooseQuantizationParams(-1.0f, 1.7f, 0, 255, true);
  EXPECT_NEAR(p.scale, 1.7f / 127, 1e-8f);
  EXPECT_EQ(p.zero_point, 128);
  EXPECT_EQ(ChooseQuantizationParams(-1.0f, 1.7f, -128, 127, true).zero_point, 0);  // -0.5 -> -0
  // force_scale_power_of_two: 0.0105882 -> 1 / 2^floor(log2(94.44)) = 1 / 64; 2.5 -> 4.
  p = ChooseQuantizationParams(-1.0f, 1.7f, 0, 255, false, true);
  EXPECT_EQ(p.scale, 1.0f / 64);
  EXPECT_EQ(p.zero_point, 64);  // from min: 0 + 1 * 64
  EXPECT_EQ(ChooseQuantizationParams(0.0f, 637.5f, 0, 255, false, true).scale, 4.0f);
  EXPECT_EQ(ChooseQuantizationParams(0.0f, 255.0f, 0, 255, false, true).scale, 1.0f);
}

TEST(FbgemmChooseQuantizationParams, MatchesTheAlgorithmBitForBit) {
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> expo(-40, 30);
  const std::pair<int32_t, int32_t> ranges[] = {{0, 255}, {-128, 127}, {0, 127}, {0, 15},
                                                {-8, 7},  {0, 1},      {0, 65535}, {-32768, 32767}};
  for (int i = 0; i < 4000; ++i) {
    float lo = std::ldexp(unit(gen), expo(gen)), hi = std::ldexp(unit(gen), expo(gen));
    if (i % 9 == 0) hi = lo;
    if (i % 13 == 0) lo = 0.0f;
    if (i % 17 == 0) hi = -0.0f;
    for (auto [qmin, qmax] : ranges)
      for (bool sym : {false, true})
        for (bool pow2 : {false, true}) {
          if (sym && qmax - qmin < 2 && lo < 0 && hi > 0) continue;  // NaN in FBGEMM: throws
          expect_choice(lo, hi, qmin, qmax, sym, pow2);
        }
  }
}

TEST(FbgemmChooseQuantizationParams, UndefinedInputsThrow) {
  const float nan = kNaN;
  EXPECT_INVALID(W("min", "nan"), ChooseQuantizationParams(nan, 1.0f, 0, 255));
  EXPECT_INVALID(W("max", "inf"), ChooseQuantizationParams(0.0f, kInf, 0, 255));
  EXPECT_INVALID(W("qmin", "5"), ChooseQuantizationParams(0.0f, 1.0f, 5, 5));
  EXPECT_INVALID(W("qmax - qmin", "1"), ChooseQuantizationParams(-1.0f, 1.0f, 0, 1, true));
}

// ---------------------------------------------------------------- Quantize

TEST(FbgemmQuantize, RoundsThenAddsTheZeroPoint) {
  // Halves: nearbyint(0.5) + 1 = 1 (FBGEMM) vs nearbyint(1.5) = 2 (legacy).
  EXPECT_EQ(Quantize<uint8_t>(0.5f, 1, 1.0f, 8), 1);
  EXPECT_EQ((Quantize<uint8_t, true>(0.5f, 1, 1.0f, 8)), 2);
  EXPECT_EQ(Quantize<uint8_t>(2.5f, 3, 1.0f, 8), 5);  // 2 + 3
  EXPECT_EQ((Quantize<uint8_t, true>(2.5f, 3, 1.0f, 8)), 6);  // nearbyint(5.5)
  EXPECT_EQ(Quantize<int8_t>(-1.5f, -3, 1.0f, 8), -5);  // -2 - 3
  EXPECT_EQ((Quantize<int8_t, true>(-1.5f, -3, 1.0f, 8)), -4);  // nearbyint(-4.5)
  // The inverse scale multiplies: 0.273939937 * (1 / 0.00214854861) is 127.5 in float.
  EXPECT_EQ(Quantize<uint8_t>(0.273939937f, 0, 0.00214854861f, 8), 128);
  EXPECT_EQ(fbgemm::Quantize<uint8_t>(0.5f, TensorQuantizationParams{1.0f, 1, 8}), 1);
}

TEST(FbgemmQuantize, NegativeScalesCompute) {
  EXPECT_EQ(Quantize<int8_t>(1.0f, 0, -0.5f, 8), -2);
  EXPECT_EQ(Quantize<uint8_t>(-3.0f, 10, -1.0f, 8), 13);
  EXPECT_EQ(Quantize<uint8_t>(1000.0f, 10, -1.0f, 8), 0);
  EXPECT_EQ(Dequantize<uint8_t>(13, TensorQuantizationParams{-1.0f, 10, 8}), -3.0f);
}

template <class T, bool LEGACY>
void check_arrays(float scale, int32_t zp) {
  SCOPED_TRACE("scale " + std::to_string(scale) + " zp " + std::to_string(zp));
  const auto [lo, hi] = range_of<T>();
  const auto data = test_floats(1100, 300.0f * std::fabs(scale), 9, std::fabs(scale));
  const TensorQuantizationParams qp{scale, zp, 8 * int(sizeof(T))};
  for (int64_t len : {int64_t{1}, int64_t{3}, int64_t{17}, int64_t{63}, int64_t{65}, int64_t{1027}}) {
    std::vector<T> expect(len);
    for (int64_t i = 0; i < len; ++i)
      expect[i] = T(ref_quantize(data[i], scale, zp, lo, hi, LEGACY));
    for (int threads : {1, 2, 3}) {
      std::vector<T> got(len);
      for (int t = 0; t < threads; ++t) Quantize<T, LEGACY>(data.data(), got.data(), len, qp, t, threads);
      ASSERT_TRUE(same_bits(expect, got)) << "len " << len << " threads " << threads;
    }
  }
}

TEST(FbgemmQuantize, ArraysRoundLikeTheScalarOnEveryPath) {
  for_each_isa([] {
    check_arrays<uint8_t, false>(0.5f, 3);
    check_arrays<uint8_t, true>(0.5f, 3);
    check_arrays<int8_t, false>(0.25f, -1);
    check_arrays<int8_t, true>(0.25f, -1);
    check_arrays<uint8_t, false>(-0.5f, 128);  // negative scale
    check_arrays<int8_t, false>(-0.03f, 5);
    check_arrays<int16_t, false>(-2.0f, 7);
    check_arrays<int32_t, true>(-1.0f, 0);
  });
}

TEST(FbgemmQuantize, UndefinedScalesThrow) {
  const float x[1] = {1.0f};
  uint8_t q[1];
  EXPECT_INVALID(W("scale", "0"), Quantize<uint8_t>(1.0f, 0, 0.0f, 8));
  EXPECT_INVALID(W("scale", "inf"), Quantize<uint8_t>(x, q, 1, {kInf, 0, 8}));
  EXPECT_INVALID(W("scale", "nan"), Quantize<uint8_t>(x, q, 1, {kNaN, 0, 8}));
  EXPECT_INVALID(W("scale"), Quantize<uint8_t>(x, q, 1, {kDenorm, 0, 8}));  // 1 / scale = inf
}

TEST(FbgemmQuantizeGroupwise, RoundsThenAddsTheZeroPoint) {
  // Two groups of one channel, X = 2: halves round to even before the zero point.
  const float src[4] = {0.5f, 1.5f, 2.5f, -0.5f};
  const float scales[2] = {1.0f, -1.0f};
  const int32_t zps[2] = {1, 10};
  for_each_isa([&] {
    uint8_t kcx[4], kxc[4];
    QuantizeGroupwise<uint8_t, layout_t::KCX>(src, 1, 2, 2, 2, scales, zps, kcx);
    EXPECT_EQ(kcx[0], 1);  // 0 + 1
    EXPECT_EQ(kcx[1], 3);  // 2 + 1
    EXPECT_EQ(kcx[2], 8);  // -2 + 10
    EXPECT_EQ(kcx[3], 10);  // -0 + 10
    QuantizeGroupwise<uint8_t, layout_t::KXC>(src, 1, 2, 2, 2, scales, zps, kxc);
    EXPECT_EQ(kxc[0], 1);   // c0: 0 + 1
    EXPECT_EQ(kxc[1], 8);   // c1: -2 + 10
    EXPECT_EQ(kxc[2], 3);   // c0: 2 + 1
    EXPECT_EQ(kxc[3], 10);  // c1: 0 + 10
  });
}

// ---------------------------------------------------------------- Fused N-bit rows

// A constant row whose half bias rounds above it has a negative range: FBGEMM stores the
// negative half scale (range / 15) and quantizes with its reciprocal.
TEST(FbgemmRowwise, NegativeRangeKeepsFbgemmScale) {
  const std::vector<float> row(6, 1.0009f);  // half(1.0009) = 1.0009765625
  std::vector<uint8_t> got(3 + 4);
  for_each_isa([&] {
    FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf(4, row.data(), 1, 6, got.data());
    const float bias = cpu_half2float(cpu_float2half_rn(1.0009f));
    const float scale = cpu_half2float(cpu_float2half_rn((1.0009f - bias) / 15.0f));
    ASSERT_LT(scale, 0.0f);
    float16 s, b;
    std::memcpy(&s, got.data() + 3, 2);
    std::memcpy(&b, got.data() + 5, 2);
    EXPECT_EQ(s.val, cpu_float2half_rn(scale).val);
    EXPECT_EQ(b.val, cpu_float2half_rn(bias).val);
    const int q = int(std::nearbyint((1.0009f - bias) * (1.0f / scale)));
    EXPECT_EQ(got[0], uint8_t(q | q << 4));
  });
}

// ---------------------------------------------------------------- Requantization

TEST(FbgemmChooseRequantizationMultiplier, ShiftCountsFrom31) {
  int32_t q = 0;
  int s = 0;
  ChooseRequantizationMultiplier(0.75f, &q, &s);  // 0.75 * 2^31, shift 31
  EXPECT_EQ(q, 3 << 29);
  EXPECT_EQ(s, 31);
  ChooseRequantizationMultiplier(0.75f, &q, &s, 16);  // 0.75 * 2^15, still shift 31
  EXPECT_EQ(q, 3 << 13);
  EXPECT_EQ(s, 31);
  ChooseRequantizationMultiplier(3.0f, &q, &s, 16);  // 0.75 * 2^2
  EXPECT_EQ(q, 3 << 13);
  EXPECT_EQ(s, 29);
  ChooseRequantizationMultiplier(std::nextafter(1.0f, 0.0f), &q, &s, 8);  // rounds up to 1
  EXPECT_EQ(q, 64);
  EXPECT_EQ(s, 30);
}

// ---------------------------------------------------------------- QuantUtilsAvx2.h

uint32_t xorshift128_reference(uint32_t (&s)[4]) {
  const uint32_t t = s[0] ^ (s[0] << 11);
  s[0] = s[1], s[1] = s[2], s[2] = s[3];
  s[3] = s[3] ^ (s[3] >> 19) ^ t ^ (t >> 8);
  return s[3];
}

TEST(FbgemmQuantUtilsAvx2, ElementwiseEntriesMatchQuantUtils) {
  uint32_t state[4] = {123456789, 362436069, 521288629, 88675123};
  std::thread([&] {  // a fresh thread starts from FBGEMM's seeds
    for (int i = 0; i < 100; ++i) ASSERT_EQ(fbgemm::Xor128(), xorshift128_reference(state));
  }).join();
  const auto data = test_floats(300, 100.0f, 4, 0.5f);
  TensorQuantizationParams qp{0.5f, 7, 3};  // precision ignored: T's range
  for_each_isa([&] {
    for (int len : {1, 3, 17, 63, 65, 300}) {
      std::vector<uint8_t> u(len), u_want(len);
      std::vector<int8_t> s(len), s_want(len);
      fbgemm::QuantizeAvx2(data.data(), u.data(), len, qp);
      fbgemm::QuantizeAvx2<int8_t>(data.data(), s.data(), len, qp);
      Quantize<uint8_t>(data.data(), u_want.data(), len, {0.5f, 7, 8});
      Quantize<int8_t>(data.data(), s_want.data(), len, {0.5f, 7, 8});
      ASSERT_TRUE(same_bits(u, u_want));
      ASSERT_TRUE(same_bits(s, s_want));
      std::vector<float> f(len), f_want(len);
      fbgemm::FusedQuantizeDequantizeAvx2<int8_t>(data.data(), f.data(), len, qp);
      FusedQuantizeDequantize<int8_t>(data.data(), f_want.data(), len, {0.5f, 7, 8});
      ASSERT_TRUE(same_bits(f, f_want));
      std::vector<int32_t> acc(len);
      // data holds NaN, infinities and 1e30: those become 0 (a float outside int32's
      // range converted to it is undefined).
      for (int i = 0; i < len; ++i) {
        const float v = data[i] * 1000;
        acc[i] = std::fabs(v) < 2e9f ? static_cast<int32_t>(v) : 0;
      }
      const RequantizationParams rp{0.0123f, 1689262177, 37, {1.0f, 100, 4}};
      std::vector<uint8_t> r(len), r_want(len);
      fbgemm::RequantizeAvx2(acc.data(), r.data(), len, rp);
      for (int i = 0; i < len; ++i) r_want[i] = Requantize<uint8_t>(acc[i], 100, 0.0123f, 8);
      ASSERT_TRUE(same_bits(r, r_want));
      fbgemm::RequantizeFixedPointAvx2(acc.data(), r.data(), len, rp);
      for (int i = 0; i < len; ++i) r_want[i] = Requantize<uint8_t>(acc[i], 100, 1689262177, 37, 8);
      ASSERT_TRUE(same_bits(r, r_want));
    }
  });
}

}  // namespace
}  // namespace quire::test
