// QuantUtils: Quantize, QuantizeGroupwise, Dequantize and FusedQuantizeDequantize, the
// scalar forms against the documented formulas (written out independently in
// quant_test_util.h), the array forms against the scalar forms bit for bit on every ISA path
// (random data, qmin/qmax, .5 ties, denormals, +-inf, NaN, empty arrays, lengths around the
// vector widths, thread splits); FindMinMax; the properties of ChooseQuantizationParams;
// clamp; the errors of bad arguments to every QuantUtils function (the row-wise and
// requantization ones too); and the fbgemm/QuantUtils.h spelling. The float conversions,
// requantization and the row-wise formats are tested in float_conversion_test.cpp,
// requantize_test.cpp and rowwise_quant_test.cpp.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "fbgemm/QuantUtils.h"  // the compat spelling must compile unchanged
#include "quant_test_util.h"
#include "quire/QuantUtils.h"

namespace quire::test {
namespace {

// ---------------------------------------------------------------- Quantize

TEST(Quantize, ScalarFollowsFormula) {
  EXPECT_EQ(Quantize<uint8_t>(0.0f, 7, 0.1f, 8), 7);  // zero -> zero point
  EXPECT_EQ(Quantize<uint8_t>(kInf, 7, 0.1f, 8), 255);
  EXPECT_EQ(Quantize<uint8_t>(-kInf, 7, 0.1f, 8), 0);
  EXPECT_EQ(Quantize<uint8_t>(kNaN, 7, 0.1f, 8), 0);  // NaN -> qmin
  EXPECT_EQ(Quantize<int8_t>(kNaN, 0, 0.1f, 8), -128);
  EXPECT_EQ(Quantize<uint8_t>(2.5f, 0, 1.0f, 8), 2);  // half to even
  EXPECT_EQ(Quantize<uint8_t>(3.5f, 0, 1.0f, 8), 4);
  EXPECT_EQ((Quantize<uint8_t, true>(0.5f, 1, 1.0f, 8)), 2);   // nearbyint(1.5)
  EXPECT_EQ((Quantize<uint8_t, false>(0.5f, 1, 1.0f, 8)), 1);  // nearbyint(0.5) + 1
  EXPECT_EQ(Quantize<uint8_t>(100.0f, 0, 1.0f, 4), 15);        // precision 4
  EXPECT_EQ(Quantize<int32_t>(3e9f, 0, 1.0f, 32), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(Quantize<int32_t>(2147483648.0f, 0, 1.0f, 32), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(Quantize<int32_t>(2147483520.0f, 0, 1.0f, 32), 2147483520);
  EXPECT_EQ(Quantize<int32_t>(-3e9f, 0, 1.0f, 32), std::numeric_limits<int32_t>::min());
  for (float x : test_floats(2000, 300.0f, 1, 0.37f)) {
    for (bool legacy : {true, false}) {
      const int64_t r = ref_quantize(x, 0.37f, 12, 0, 255, legacy);
      const uint8_t q = legacy ? Quantize<uint8_t, true>(x, 12, 0.37f, 8)
                               : Quantize<uint8_t, false>(x, 12, 0.37f, 8);
      ASSERT_EQ(q, r) << x;
    }
  }
}

template <class T, bool LEGACY>
void check_quantize_arrays(float scale, int32_t zp, int precision) {
  const auto data = test_floats(
      1100, 2.0f * scale * static_cast<float>(range_of<T>(precision).second + 1), 7, scale);
  TensorQuantizationParams qp;
  qp.scale = scale;
  qp.zero_point = zp;
  qp.precision = precision;
  for (int64_t len : kLengths) {
    std::vector<T> expect(len), got(len, T{42}), split(len, T{42});
    for (int64_t i = 0; i < len; ++i) expect[i] = Quantize<T, LEGACY>(data[i + 3], qp);
    Quantize<T, LEGACY>(data.data() + 3, got.data(), len, qp);  // unaligned
    for (int t = 0; t < 3; ++t) Quantize<T, LEGACY>(data.data() + 3, split.data(), len, qp, t, 3);
    ASSERT_TRUE(same_bits(expect, got)) << "len " << len;
    ASSERT_TRUE(same_bits(expect, split)) << "len " << len;
  }
}

TEST(Quantize, ArraysMatchScalarOnEveryPath) {
  for_each_isa([] {
    check_quantize_arrays<uint8_t, true>(0.25f, 3, 8);
    check_quantize_arrays<uint8_t, false>(0.0213f, 128, 8);
    check_quantize_arrays<uint8_t, true>(0.5f, 2, 5);
    check_quantize_arrays<int8_t, true>(0.125f, -3, 8);
    check_quantize_arrays<int8_t, false>(0.031f, 0, 8);
    check_quantize_arrays<uint16_t, true>(0.01f, 30000, 16);
    check_quantize_arrays<int16_t, false>(0.5f, -7, 16);
    check_quantize_arrays<int32_t, true>(1.0f, 5, 32);  // qmax not a float
    check_quantize_arrays<int32_t, false>(1e-3f, -100000, 24);
  });
}

template <class T, layout_t L>
void check_groupwise(int K, int C, int X, int G) {
  const auto src = test_floats(static_cast<size_t>(K) * C * X + 1, 300.0f, 11, 0.5f);
  std::vector<float> scales(G);
  std::vector<int32_t> zps(G);
  for (int g = 0; g < G; ++g) {
    scales[g] = g % 3 == 0 ? 0.5f : 0.1f + 0.37f * g;
    zps[g] = std::is_signed_v<T> ? g % 5 - 2 : g % 7 * 9;
  }
  std::vector<T> got(static_cast<size_t>(K) * C * X);
  QuantizeGroupwise<T, L>(src.data(), K, C, X, G, scales.data(), zps.data(), got.data());
  const int cpg = C / G;
  for (int k = 0; k < K; ++k)
    for (int c = 0; c < C; ++c)
      for (int x = 0; x < X; ++x) {
        const size_t i =
            L == layout_t::KCX ? (size_t(k) * C + c) * X + x : (size_t(k) * X + x) * C + c;
        const int g = c / cpg;
        ASSERT_EQ(got[i], Quantize<T>(src[i], zps[g], scales[g], 8 * sizeof(T)))
            << k << " " << c << " " << x;
      }
}

TEST(QuantizeGroupwise, MatchesScalarPerGroupOnEveryPath) {
  for_each_isa([] {
    for (auto [K, C, X, G] :
         {std::array{2, 6, 9, 3}, {3, 3, 1, 3}, {1, 64, 5, 1}, {4, 40, 3, 8}, {2, 300, 2, 300}}) {
      check_groupwise<uint8_t, layout_t::KCX>(K, C, X, G);
      check_groupwise<uint8_t, layout_t::KXC>(K, C, X, G);
      check_groupwise<int8_t, layout_t::KCX>(K, C, X, G);
      check_groupwise<int8_t, layout_t::KXC>(K, C, X, G);
      check_groupwise<int32_t, layout_t::KXC>(K, C, X, G);
    }
  });
}

// ---------------------------------------------------------------- Dequantize

template <class T>
void check_dequantize_arrays(float scale, int32_t zp) {
  const auto [lo, hi] = range_of<T>();
  std::vector<T> src(1100);
  std::mt19937 gen(5);
  std::uniform_int_distribution<int64_t> dist(lo, hi);
  for (auto& v : src) v = static_cast<T>(dist(gen));
  src[0] = static_cast<T>(lo);
  src[1] = static_cast<T>(hi);
  const TensorQuantizationParams qp{scale, zp, 8};
  for (int64_t len : kLengths) {
    std::vector<float> expect(len), got(len, -1.0f), split(len, -1.0f);
    for (int64_t i = 0; i < len; ++i) {
      expect[i] = Dequantize<T>(src[i], qp);
      ASSERT_EQ(std::bit_cast<uint32_t>(expect[i]),
                std::bit_cast<uint32_t>(ref_dequantize(src[i], scale, zp)));
    }
    Dequantize<T>(src.data(), got.data(), len, qp);
    for (int t = 0; t < 2; ++t) Dequantize<T>(src.data(), split.data(), len, qp, t, 2);
    ASSERT_TRUE(same_bits(expect, got)) << "len " << len << " zp " << zp;
    ASSERT_TRUE(same_bits(expect, split)) << "len " << len;
  }
}

TEST(Dequantize, ArraysMatchScalarOnEveryPath) {
  const int32_t big = std::numeric_limits<int32_t>::max(),
                small = std::numeric_limits<int32_t>::min();
  for_each_isa([&] {
    for (int32_t zp : {0, 3, -77, 128, big, small, big - 1000}) {
      check_dequantize_arrays<uint8_t>(0.37f, zp);
      check_dequantize_arrays<int8_t>(0.5f, zp);
      check_dequantize_arrays<uint16_t>(1e-3f, zp);
      check_dequantize_arrays<int16_t>(3.0f, zp);
      check_dequantize_arrays<int32_t>(1.1f, zp);
    }
  });
}

template <class T>
void check_fused(float scale, int32_t zp, float noise) {
  const auto data = test_floats(1100, 400.0f * scale, 9, scale);
  const TensorQuantizationParams qp{scale, zp, 8};
  std::vector<float> expect(data.size());
  for (size_t i = 0; i < data.size(); ++i) {
    const int64_t q =
        ref_quantize(data[i], scale, zp, range_of<T>().first, range_of<T>().second, false);
    expect[i] = noise > 0 && detail::noise_hash(i) < noise * 4294967296.0
                    ? data[i]
                    : ref_dequantize(q, scale, zp);
    if (noise == 0) {
      ASSERT_EQ(std::bit_cast<uint32_t>(FusedQuantizeDequantize<T>(data[i], qp)),
                std::bit_cast<uint32_t>(expect[i]));
    }
  }
  std::vector<float> got(data.size()), split(data.size());
  FusedQuantizeDequantize<T>(data.data(), got.data(), static_cast<int64_t>(data.size()), qp, 0, 1,
                             noise);
  for (int t = 0; t < 4; ++t)
    FusedQuantizeDequantize<T>(data.data(), split.data(), static_cast<int64_t>(data.size()), qp, t,
                               4, noise);
  ASSERT_TRUE(same_bits(expect, got));
  ASSERT_TRUE(same_bits(expect, split));
}

TEST(FusedQuantizeDequantize, ArraysMatchScalarOnEveryPath) {
  for_each_isa([] {
    check_fused<uint8_t>(0.25f, 100, 0.0f);
    check_fused<uint8_t>(0.0731f, 0, 0.3f);
    check_fused<int8_t>(0.5f, -5, 0.0f);
    check_fused<int8_t>(0.5f, std::numeric_limits<int32_t>::min(), 0.0f);  // wide difference
  });
}

// ---------------------------------------------------------------- FindMinMax

TEST(FindMinMax, IgnoresNaNAndMatchesOnEveryPath) {
  for_each_isa([] {
    float mn = 1, mx = 1;
    FindMinMax(nullptr, &mn, &mx, 0);
    EXPECT_EQ(mn, 0.0f);
    EXPECT_EQ(mx, 0.0f);
    const std::vector<float> nans(37, kNaN);
    FindMinMax(nans.data(), &mn, &mx, 37);
    EXPECT_TRUE(std::isnan(mn) && std::isnan(mx));
    const std::vector<float> zeros = {-0.0f, 0.0f, -0.0f, kNaN};
    FindMinMax(zeros.data(), &mn, &mx, 4);
    EXPECT_EQ(std::bit_cast<uint32_t>(mn), 0u);  // +0
    EXPECT_EQ(std::bit_cast<uint32_t>(mx), 0u);
    const auto data = test_floats(1100, 1000.0f, 3);
    for (int64_t len : kLengths) {
      if (len == 0) continue;
      for (int64_t start : {int64_t{0}, int64_t{4}}) {  // start 0: data[0] is 0.0, [5] is -inf...
        float lo = kInf, hi = -kInf;
        for (int64_t i = start; i < start + len; ++i) {
          if (data[i] < lo) lo = data[i];
          if (data[i] > hi) hi = data[i];
        }
        FindMinMax(data.data() + start, &mn, &mx, len);
        ASSERT_EQ(std::bit_cast<uint32_t>(mn), std::bit_cast<uint32_t>(lo + 0.0f)) << len;
        ASSERT_EQ(std::bit_cast<uint32_t>(mx), std::bit_cast<uint32_t>(hi + 0.0f)) << len;
      }
    }
  });
}

// ---------------------------------------------------- ChooseQuantizationParamsCoveringRange
// (quire's own chooser; FBGEMM's ChooseQuantizationParams is pinned in
// quant_fbgemm_conformance_test.cpp)

void check_choice(float mn, float mx, int32_t qmin, int32_t qmax, bool sparse, bool pow2) {
  SCOPED_TRACE(std::to_string(mn) + " " + std::to_string(mx) + " [" + std::to_string(qmin) + "," +
               std::to_string(qmax) + "]");
  const TensorQuantizationParams p =
      ChooseQuantizationParamsCoveringRange(mn, mx, qmin, qmax, sparse, pow2);
  ASSERT_TRUE(detail::valid_scale(p.scale));
  ASSERT_GE(p.zero_point, qmin);
  ASSERT_LE(p.zero_point, qmax);
  // Zero is a code and quantizes exactly.
  EXPECT_EQ(ref_dequantize(p.zero_point, p.scale, p.zero_point), 0.0f);
  EXPECT_EQ(ref_quantize(0.0f, p.scale, p.zero_point, qmin, qmax, true), p.zero_point);
  // The range covers [min, max].
  EXPECT_LE(ref_dequantize(qmin, p.scale, p.zero_point), mn);
  EXPECT_GE(ref_dequantize(qmax, p.scale, p.zero_point), mx);
  if (sparse && mn < 0 && mx > 0) {
    EXPECT_EQ(p.zero_point, qmin + (int64_t{qmax} - qmin + 1) / 2);
  }
  if (pow2) {
    int e = 0;
    EXPECT_EQ(std::frexp(p.scale, &e), 0.5f);
  }
  // Not wastefully wide: no neighbouring zero point needs a smaller scale.
  const double lo = std::min(0.0f, mn), hi = std::max(0.0f, mx);
  if (!pow2 && !sparse && lo < 0 && hi > 0 && int64_t{qmax} - qmin < (1 << 24) &&
      p.scale > std::numeric_limits<float>::min()) {  // not at the floor
    for (int64_t z : {int64_t{p.zero_point} - 1, int64_t{p.zero_point} + 1}) {
      if (z <= qmin || z >= qmax) continue;
      const double other = std::max(-lo / double(z - qmin), hi / double(qmax - z));
      EXPECT_LE(p.scale, other * (1 + 1e-6)) << "zero point " << z << " is better";
    }
  }
}

TEST(ChooseQuantizationParamsCoveringRange, Properties) {
  std::mt19937 gen(23);
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  for (int i = 0; i < 3000; ++i) {
    float a = dist(gen), b = dist(gen);
    if (i % 7 == 0) a = b;         // min == max
    if (i % 11 == 0) a *= 1e-30f;  // tiny
    if (a > b) std::swap(a, b);
    for (auto [qmin, qmax] :
         {std::pair{0, 255},
          {-128, 127},
          {0, 127},
          {0, 15},
          {-8, 7},
          {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()}})
      for (bool sparse : {false, true})
        for (bool pow2 : {false, true}) check_choice(a, b, qmin, qmax, sparse, pow2);
  }
  for (auto [a, b] : {std::pair{0.0f, 0.0f},
                      {5.0f, 5.0f},
                      {-3.0f, -3.0f},
                      {-1e-6f, 1.0f},
                      {-1.0f, 1e-6f},
                      {-3e38f, 3e38f},
                      {1e-40f, 1e-40f},
                      {-1e-38f, 1e-38f}})
    check_choice(a, b, 0, 255, false, false);
  const auto p = ChooseQuantizationParamsCoveringRange(-1.0f, 1.0f, 0, 255, true);
  EXPECT_EQ(p.zero_point, 128);
  EXPECT_EQ(p.precision, 8);
  EXPECT_EQ(ChooseQuantizationParamsCoveringRange(-1.0f, 1.0f, -128, 127, true).zero_point, 0);
  EXPECT_EQ(ChooseQuantizationParamsCoveringRange(0.0f, 0.0f, 0, 255).scale, 1.0f);
  EXPECT_EQ(ChooseQuantizationParamsCoveringRange(0.0f, 0.0f, 0, 127).precision, 7);
  EXPECT_EQ(p.Min(), ref_dequantize(0, p.scale, p.zero_point));
  EXPECT_EQ(p.Max(), ref_dequantize(255, p.scale, p.zero_point));
}

TEST(Clamp, SaturatesAndConverts) {
  EXPECT_EQ((clamp<int32_t, uint8_t>(300, 8)), 255);
  EXPECT_EQ((clamp<int32_t, uint8_t>(-3, 8)), 0);
  EXPECT_EQ((clamp<int64_t, int8_t>(-300, 8, true)), -128);
  EXPECT_EQ((clamp<float, uint8_t>(kNaN, 8)), 0);
  EXPECT_EQ((clamp<double, int32_t>(3e9, 32, true)), std::numeric_limits<int32_t>::max());
  EXPECT_EQ((clamp<float, uint8_t>(7.9f, 3)), 7);
  EXPECT_EQ((clamp<uint64_t, uint16_t>(70000, 16)), 65535);
}

// ---------------------------------------------------------------- Errors

TEST(Errors, BadArgumentsThrowNamingTheParameter) {
  float f[4] = {1, 2, 3, 4};
  uint8_t u[16] = {};
  int32_t i32[4] = {};
  const TensorQuantizationParams qp{0.5f, 3, 8};
  RequantizationParams rp{0.5f, 1 << 30, 31, qp};
  expect_invalid([&] { Quantize<uint8_t>(nullptr, u, 4, qp); }, "src");
  expect_invalid([&] { Quantize<uint8_t>(f, nullptr, 4, qp); }, "dst");
  expect_invalid([&] { Quantize<uint8_t>(f, u, -1, qp); }, "len");
  expect_invalid([&] { Quantize<uint8_t>(f, u, 4, {0.5f, 3, 9}); }, "precision");
  expect_invalid([&] { Quantize<uint8_t>(f, u, 4, {0.0f, 3, 8}); }, "scale");
  expect_invalid([&] { Quantize<uint8_t>(f, u, 4, {kNaN, 3, 8}); }, "scale");
  expect_invalid([&] { Quantize<uint8_t>(f, u, 4, qp, 3, 3); }, "thread_id");
  expect_invalid([&] { Quantize<uint8_t>(f, u, 4, qp, 0, 0); }, "num_threads");
  expect_invalid([&] { Quantize<uint8_t>(1.0f, 0, 1.0f, 8, true); }, "precision");
  expect_invalid([&] { Dequantize<uint8_t>(u, nullptr, 4, qp); }, "dst");
  expect_invalid([&] { FusedQuantizeDequantize<uint8_t>(f, f, 4, qp, 0, 1, 2.0f); }, "noise_ratio");
  float mn, mx;
  expect_invalid([&] { FindMinMax(f, nullptr, &mx, 4); }, "min");
  expect_invalid([&] { FindMinMax(nullptr, &mn, &mx, 4); }, "m");
  const float scales[2] = {1.0f, 0.0f};
  const int32_t zps[2] = {0, 0};
  expect_invalid([&] { QuantizeGroupwise<uint8_t>(f, 1, 4, 1, 3, scales, zps, u); }, "G");
  expect_invalid([&] { QuantizeGroupwise<uint8_t>(f, 1, 4, 1, 2, nullptr, zps, u); }, "scales");
  expect_invalid([&] { QuantizeGroupwise<uint8_t>(f, 1, 4, 1, 2, scales, zps, u); }, "scales[1]");
  expect_invalid([&] { QuantizeGroupwise<uint8_t>(f, -1, 4, 1, 2, scales, zps, u); }, "K");
  expect_invalid([&] { SaturatingRoundingMulWithShift(1, 1, 64); }, "right_shift");
  expect_invalid(
      [&] {
        Requantize<uint8_t>(i32, u, 4, RequantizationParams{kNaN, 0, 0, qp});
      },
      "multiplier");
  expect_invalid(
      [&] {
        RequantizeFixedPoint<uint8_t>(i32, u, 4, RequantizationParams{1, 1, -1, qp});
      },
      "right_shift");
  expect_invalid(
      [&] {
        Requantize<uint8_t>(i32, u, 4, RequantizationParams{1, 1, 1, {1, 0, 0}});
      },
      "precision");
  expect_invalid(
      [&] { RequantizeFixedPoint<int8_t>(nullptr, reinterpret_cast<int8_t*>(u), 4, rp); }, "src");
  expect_invalid([&] { ChooseQuantizationParamsCoveringRange(2.0f, 1.0f, 0, 255); }, "min");
  expect_invalid([&] { ChooseQuantizationParams(kNaN, 1.0f, 0, 255); }, "min");
  expect_invalid([&] { ChooseQuantizationParams(0.0f, kInf, 0, 255); }, "max");
  expect_invalid([&] { ChooseQuantizationParams(0.0f, 1.0f, 5, 5); }, "qmin");
  expect_invalid([&] { ChooseQuantizationParamsCoveringRange(-1.0f, 1.0f, 0, 1); }, "qmax - qmin");
  expect_invalid([&] { ChooseQuantizationParamsCoveringRange(kNaN, 1.0f, 0, 255); }, "min");
  int32_t qm;
  int sh;
  expect_invalid([&] { ChooseRequantizationMultiplier(0.0f, &qm, &sh); }, "real_multiplier");
  expect_invalid([&] { ChooseRequantizationMultiplier(0.5f, &qm, &sh, 33); },
                 "requantization_multiplier_precision");
  expect_invalid([&] { ChooseRequantizationMultiplier(0.5f, nullptr, &sh); },
                 "quantized_multiplier");
  expect_invalid([&] { ChooseRequantizationMultiplier(1e30f, &qm, &sh); }, "right_shift");
  expect_invalid([&] { FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf(3, f, 1, 4, u); }, "bit_rate");
  expect_invalid([&] { FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf(4, f, 1, -1, u); },
                 "input_columns");
  expect_invalid([&] { FloatOrHalfToFused8BitRowwiseQuantizedSBFloat<float>(f, 1, 4, nullptr); },
                 "output");
  expect_invalid([&] { FloatOrHalfToFused8BitRowwiseQuantizedSBFloat<float>(nullptr, 1, 4, u); },
                 "input");
  const float bad_mm[2] = {2.0f, 1.0f};
  expect_invalid([&] { FloatOrHalfToFused8BitRowwiseQuantizedSBFloat(f, 1, 4, u, bad_mm); },
                 "rowwise_min_max[0]");
  expect_invalid([&] { Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf<float>(u, 1, 12, nullptr); },
                 "output");
  expect_invalid([&] { FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf<float>(5, u, 1, 4, f); },
                 "bit_rate");
  expect_invalid([&] { (clamp<int, uint8_t>(3, 0)); }, "precision");
  // Empty arrays need no pointers.
  EXPECT_NO_THROW(Quantize<uint8_t>(nullptr, nullptr, 0, qp));
  EXPECT_NO_THROW(FloatOrHalfToFused8BitRowwiseQuantizedSBFloat<float>(nullptr, 0, 4, nullptr));
}

// Client code written against fbgemm/QuantUtils.h compiles and runs unchanged.
TEST(Compat, FbgemmSpelling) {
  float x[8] = {-1.0f, -0.5f, 0.0f, 0.25f, 0.5f, 0.75f, 1.0f, 2.0f};
  uint8_t y[8];
  float mn = 0, mx = 0;
  fbgemm::FindMinMax(x, &mn, &mx, 8);
  fbgemm::TensorQuantizationParams qparams = fbgemm::ChooseQuantizationParams(mn, mx, 0, 255);
  qparams.precision = 8;
  fbgemm::Quantize<uint8_t>(x, y, 8, qparams);
  fbgemm::Quantize<uint8_t>(x, y, 8, qparams, 0, 1);
  EXPECT_EQ(fbgemm::Dequantize<uint8_t>(y[2], qparams), 0.0f);
  int32_t multiplier = 0;
  int shift = 0;
  fbgemm::ChooseRequantizationMultiplier(0.01f, &multiplier, &shift, 32);
  const fbgemm::RequantizationParams rp = {0.01f, multiplier, shift, qparams};
  const int32_t acc[2] = {1000, -1000};
  fbgemm::Requantize<uint8_t>(acc, y, 2, rp, 0, 1);
  EXPECT_EQ(y[0], fbgemm::RequantizeFixedPoint<uint8_t>(acc[0], rp));
  int8_t w[8];
  fbgemm::QuantizeGroupwise<int8_t, fbgemm::layout_t::KXC>(x, 2, 2, 2, 1, &qparams.scale,
                                                          &qparams.zero_point, w);
  std::vector<uint8_t> fused(2 * (4 + 8));
  std::vector<fbgemm::float16> half(8);
  fbgemm::FloatOrHalfToFused8BitRowwiseQuantizedSBFloat<float>(x, 2, 4, fused.data());
  fbgemm::Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf<fbgemm::float16>(fused.data(), 2, 12,
                                                                         half.data());
  EXPECT_NEAR(fbgemm::cpu_half2float(half[6]), 1.0f, 0.01f);
  EXPECT_EQ((fbgemm::clamp<int32_t, uint8_t>(300, 8)), 255);
}

}  // namespace
}  // namespace quire::test
