// QuantUtils and FloatConversion: the scalar forms against the documented formulas
// (written out independently here), the array forms against the scalar forms bit for
// bit on every ISA path (random data, qmin/qmax, .5 ties, denormals, +-inf, NaN, empty
// arrays, lengths around the vector widths, thread splits), the properties of
// ChooseQuantizationParams, and the errors of bad arguments.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "fbgemm/QuantUtils.h"  // the compat spelling must compile unchanged
#include "quire/QuantUtils.h"
#include "quire/detail/IsaRecord.h"
#include "test_util.h"

namespace quire::test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kDenorm = std::numeric_limits<float>::denorm_min();

// Runs fn once per quantization path (portable, AVX2, AVX-512) the CPU has.
void for_each_isa(const std::function<void()>& fn) {
  for (inst_set_t isa : {inst_set_t::anyarch, inst_set_t::avx2, inst_set_t::avx512}) {
    const bool ok = isa == inst_set_t::anyarch ||
                    (isa == inst_set_t::avx2 ? fbgemmHasAvx2Support() : fbgemmHasAvx512Support());
    if (!ok) {
      std::cout << "[  SKIPPED ] " << instSetName(isa) << ": not supported by this CPU\n";
      continue;
    }
    SCOPED_TRACE(instSetName(isa));
    ScopedIsa scoped(isa);
    fn();
  }
}

// Lengths around the vector widths (8 and 16 lanes, 4x unrolled) and a large one.
const std::vector<int64_t> kLengths = {0, 1, 7, 8, 9, 15, 16, 17, 31, 63, 64, 65, 100, 1027};

// Random floats spanning [-span, span] plus every special value, shuffled in.
std::vector<float> test_floats(size_t n, float span, uint32_t seed, float tie_unit = 0.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-span, span);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(gen);
  const float specials[] = {0.0f,
                            -0.0f,
                            kInf,
                            -kInf,
                            kNaN,
                            -kNaN,
                            kDenorm,
                            -kDenorm,
                            std::numeric_limits<float>::min(),
                            std::numeric_limits<float>::max(),
                            -std::numeric_limits<float>::max(),
                            1e30f,
                            -1e30f};
  for (size_t i = 0; i < n; i += 5) v[i] = specials[(i / 5) % std::size(specials)];
  // Exact ties: (k + 0.5) * tie_unit quantizes to exactly k + 0.5 when tie_unit is the scale.
  if (tie_unit > 0) {
    for (size_t i = 2; i < n; i += 5) v[i] = (static_cast<float>(i % 601) - 300.5f) * tie_unit;
  }
  return v;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// The documented formulas, written independently of the library.
int64_t ref_saturate(double r, int64_t lo, int64_t hi) {
  if (std::isnan(r) || r < static_cast<double>(lo)) return lo;
  if (r > static_cast<double>(hi)) return hi;
  return static_cast<int64_t>(r);
}
int64_t ref_quantize(float x, float scale, int32_t zp, int64_t lo, int64_t hi, bool legacy) {
  const float t = x * (1.0f / scale);
  const float r = legacy ? std::nearbyint(t + static_cast<float>(zp))
                         : std::nearbyint(t) + static_cast<float>(zp);
  return ref_saturate(r, lo, hi);
}
float ref_dequantize(int64_t q, float scale, int32_t zp) {
  return scale * static_cast<float>(q - int64_t{zp});
}

template <class T>
std::pair<int64_t, int64_t> range_of(int precision = 8 * sizeof(T)) {
  if (std::is_signed_v<T>)
    return {-(int64_t{1} << (precision - 1)), (int64_t{1} << (precision - 1)) - 1};
  return {0, (int64_t{1} << precision) - 1};
}

// Expects std::invalid_argument whose message names `param`.
void expect_invalid(const std::function<void()>& fn, const std::string& param) {
  try {
    fn();
    ADD_FAILURE() << "no exception; expected one naming " << param;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(param), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------- FloatConversion

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
  EXPECT_EQ(cpu_float2bfloat16(1.0f).val, 0x3f80);
  EXPECT_EQ(cpu_float2bfloat16(std::bit_cast<float>(0x3f808000u)).val, 0x3f80);  // tie: even
  EXPECT_EQ(cpu_float2bfloat16(std::bit_cast<float>(0x3f818000u)).val, 0x3f82);
  EXPECT_EQ(cpu_float2bfloat16(std::numeric_limits<float>::max()).val, 0x7f80);  // overflow
  EXPECT_EQ(cpu_float2bfloat16(std::bit_cast<float>(0x7f800001u)).val, 0x7fc0);  // sNaN quieted
  EXPECT_EQ(cpu_bf162float(bfloat16{0xc040}), -3.0f);
  EXPECT_TRUE(float16{5} == float16{5});
  static_assert(std::is_trivially_copyable_v<float16> && std::is_trivially_copyable_v<bfloat16>);
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

// ---------------------------------------------------------------- Requantize

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

TEST(ChooseRequantizationMultiplier, RepresentsTheMultiplier) {
  for (int p : {32, 16, 8}) {
    for (float real : {1e-7f, 0.001f, 0.37f, 0.5f, 0.99999999f, 1.0f, 7.5f, 60.0f}) {
      int32_t q = 0;
      int s = 0;
      ChooseRequantizationMultiplier(real, &q, &s, p);
      EXPECT_GE(q, int64_t{1} << (p - 2));
      EXPECT_LT(q, int64_t{1} << (p - 1));
      EXPECT_NEAR(std::ldexp(static_cast<double>(q), -s) / real, 1.0, std::ldexp(1.0, 2 - p))
          << real << " " << p;
    }
  }
  int32_t q = 0;
  int s = 0;
  ChooseRequantizationMultiplier(0.5f, &q, &s);
  EXPECT_EQ(q, 1 << 30);
  EXPECT_EQ(s, 31);
}

// ---------------------------------------------------------------- ChooseQuantizationParams

void check_choice(float mn, float mx, int32_t qmin, int32_t qmax, bool sparse, bool pow2) {
  SCOPED_TRACE(std::to_string(mn) + " " + std::to_string(mx) + " [" + std::to_string(qmin) + "," +
               std::to_string(qmax) + "]");
  const TensorQuantizationParams p = ChooseQuantizationParams(mn, mx, qmin, qmax, sparse, pow2);
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

TEST(ChooseQuantizationParams, Properties) {
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
  const auto p = ChooseQuantizationParams(-1.0f, 1.0f, 0, 255, true);
  EXPECT_EQ(p.zero_point, 128);
  EXPECT_EQ(p.precision, 8);
  EXPECT_EQ(ChooseQuantizationParams(-1.0f, 1.0f, -128, 127, true).zero_point, 0);
  EXPECT_EQ(ChooseQuantizationParams(0.0f, 0.0f, 0, 255).scale, 1.0f);
  EXPECT_EQ(ChooseQuantizationParams(0.0f, 0.0f, 0, 127).precision, 7);
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

// ---------------------------------------------------------------- Row-wise formats

// The documented row formulas, written independently (see src/quant/rowwise.cpp).
std::vector<uint8_t> ref_rowwise(const std::vector<float>& in, int rows, int cols, int bits,
                                 bool half_sb) {
  const int per_byte = 8 / bits, bytes = (cols + per_byte - 1) / per_byte, sb = half_sb ? 4 : 8;
  std::vector<uint8_t> out(size_t(rows) * (bytes + sb), 0);
  for (int r = 0; r < rows; ++r) {
    const float* x = in.data() + size_t(r) * cols;
    float lo = kInf, hi = -kInf;
    for (int j = 0; j < cols; ++j) lo = std::fmin(lo, x[j]), hi = std::fmax(hi, x[j]);
    if (!(lo <= hi)) lo = hi = 0;
    float bias = lo, inv = 0, scale = 0;
    float16 scale_h{}, bias_h{};
    if (half_sb) {
      bias_h = cpu_float2half_rn(lo);
      bias = cpu_half2float(bias_h);
      const float range = hi - bias;
      scale_h = cpu_float2half_rn(range > 0 ? range / float((1 << bits) - 1) : 1.0f);
      if (cpu_half2float(scale_h) == 0) scale_h = cpu_float2half_rn(1.0f);
      inv = 1.0f / cpu_half2float(scale_h);
    } else {
      scale = (hi - lo) / 255.0f;
      inv = 255.0f / ((hi - lo) + 1e-8f);
    }
    uint8_t* o = out.data() + size_t(r) * (bytes + sb);
    for (int j = 0; j < cols; ++j) {
      const float q = std::nearbyint((x[j] - bias) * inv);
      const int code = std::isnan(q) || q < 0       ? 0
                       : q > float((1 << bits) - 1) ? (1 << bits) - 1
                                                    : int(q);
      o[j / per_byte] |= uint8_t(code << (j % per_byte * bits));
    }
    if (half_sb) {
      std::memcpy(o + bytes, &scale_h, 2);
      std::memcpy(o + bytes + 2, &bias_h, 2);
    } else {
      std::memcpy(o + bytes, &scale, 4);
      std::memcpy(o + bytes + 4, &bias, 4);
    }
  }
  return out;
}

std::vector<float> ref_unrowwise(const std::vector<uint8_t>& in, int rows, int cols, int bits,
                                 bool half_sb) {
  const int per_byte = 8 / bits, bytes = (cols + per_byte - 1) / per_byte, sb = half_sb ? 4 : 8;
  std::vector<float> out(size_t(rows) * cols);
  for (int r = 0; r < rows; ++r) {
    const uint8_t* row = in.data() + size_t(r) * (bytes + sb);
    float scale, bias;
    if (half_sb) {
      float16 s, b;
      std::memcpy(&s, row + bytes, 2);
      std::memcpy(&b, row + bytes + 2, 2);
      scale = cpu_half2float(s), bias = cpu_half2float(b);
    } else {
      std::memcpy(&scale, row + bytes, 4);
      std::memcpy(&bias, row + bytes + 4, 4);
    }
    for (int j = 0; j < cols; ++j)
      out[size_t(r) * cols + j] =
          float((row[j / per_byte] >> (j % per_byte * bits)) & ((1 << bits) - 1)) * scale + bias;
  }
  return out;
}

// Rows of every kind: random, constant, with NaN / inf, all NaN, a tiny range, beyond half.
std::vector<float> rowwise_data(int rows, int cols) {
  auto v = test_floats(size_t(rows) * cols + 1, 10.0f, 31, 0.0f);
  v.resize(size_t(rows) * cols);
  for (int r = 0; r < rows && cols > 0; ++r) {
    float* x = v.data() + size_t(r) * cols;
    switch (r % 7) {
      case 0:
        for (int j = 0; j < cols; ++j)
          if (!std::isfinite(x[j]) || std::fabs(x[j]) > 10) x[j] = 0.5f * j;
        break;
      case 1: std::fill(x, x + cols, 3.25f); break;
      case 2:
        for (int j = 0; j < cols; ++j) x[j] = std::isfinite(x[j]) ? x[j] : kNaN;
        break;
      case 3: std::fill(x, x + cols, kNaN); break;
      case 4:
        for (int j = 0; j < cols; ++j) x[j] = 1.0f + j * 1e-9f;
        break;
      case 5:
        for (int j = 0; j < cols; ++j) x[j] = (j % 2 ? 1e6f : -2e5f) + j;
        break;
      default: break;  // random with inf and NaN
    }
  }
  return v;
}

template <class Out>
std::vector<uint16_t> bits16(const std::vector<Out>& v) {
  std::vector<uint16_t> b(v.size());
  if (!v.empty()) std::memcpy(b.data(), v.data(), v.size() * 2);
  return b;
}

void check_rowwise(int bits, bool half_sb, int rows, int cols) {
  SCOPED_TRACE("bits " + std::to_string(bits) + (half_sb ? " half" : " float") + " cols " +
               std::to_string(cols));
  const auto data = rowwise_data(rows, cols);
  std::vector<float16> data_h(data.size());
  for (size_t i = 0; i < data.size(); ++i) data_h[i] = cpu_float2half_rn(data[i]);
  std::vector<float> data_hf(data.size());
  for (size_t i = 0; i < data.size(); ++i) data_hf[i] = cpu_half2float(data_h[i]);
  const auto expect = ref_rowwise(data, rows, cols, bits, half_sb);
  const auto expect_h = ref_rowwise(data_hf, rows, cols, bits, half_sb);
  std::vector<uint8_t> got(expect.size(), 0xAB), got_h(expect.size(), 0xAB), got_ref(expect.size());
  if (half_sb) {
    FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf(bits, data.data(), rows, cols, got.data());
    FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf(bits, data_h.data(), rows, cols, got_h.data());
    FloatOrHalfToFusedNBitRowwiseQuantizedSBHalfRef(bits, data.data(), rows, cols, got_ref.data());
  } else {
    FloatOrHalfToFused8BitRowwiseQuantizedSBFloat(data.data(), rows, cols, got.data());
    FloatOrHalfToFused8BitRowwiseQuantizedSBFloat(data_h.data(), rows, cols, got_h.data());
    FloatOrHalfToFused8BitRowwiseQuantizedSBFloatRef(data.data(), rows, cols, got_ref.data());
  }
  ASSERT_TRUE(same_bits(expect, got));
  ASSERT_TRUE(same_bits(expect_h, got_h));
  ASSERT_TRUE(same_bits(expect, got_ref));
  // Given min/max per row: the (min, max) the row has gives the same bytes.
  if (!half_sb && cols > 0) {
    std::vector<float> mm(2 * size_t(rows));
    for (int r = 0; r < rows; ++r)
      FindMinMax(data.data() + size_t(r) * cols, &mm[2 * r], &mm[2 * r + 1], cols);
    for (int r = 0; r < rows; ++r)
      if (std::isnan(mm[2 * r])) mm[2 * r] = mm[2 * r + 1] = 0;
    std::vector<uint8_t> given(expect.size());
    FloatOrHalfToFused8BitRowwiseQuantizedSBFloat(data.data(), rows, cols, given.data(), mm.data());
    ASSERT_TRUE(same_bits(expect, given));
  }
  const auto back = ref_unrowwise(expect, rows, cols, bits, half_sb);
  std::vector<float> f(back.size()), f_ref(back.size());
  std::vector<float16> h(back.size()), h_expect(back.size());
  std::vector<bfloat16> b(back.size()), b_expect(back.size());
  std::vector<float16> b_in_half(back.size());
  for (size_t i = 0; i < back.size(); ++i)
    h_expect[i] = cpu_float2half_rn(back[i]), b_expect[i] = cpu_float2bfloat16(back[i]);
  if (half_sb) {
    FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf(bits, expect.data(), rows, cols, f.data());
    FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf(bits, expect.data(), rows, cols, h.data());
    FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf(bits, expect.data(), rows, cols, b.data());
    FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf<float16, true>(bits, expect.data(), rows, cols,
                                                                b_in_half.data());
    FusedNBitRowwiseQuantizedSBHalfToFloatOrHalfRef(bits, expect.data(), rows, cols, f_ref.data());
    // Scale and bias first: the same values.
    const int bytes = (cols * bits + 7) / 8;
    std::vector<uint8_t> first(expect.size());
    for (int r = 0; r < rows; ++r) {
      const uint8_t* src = expect.data() + size_t(r) * (bytes + 4);
      std::memcpy(first.data() + size_t(r) * (bytes + 4), src + bytes, 4);
      std::memcpy(first.data() + size_t(r) * (bytes + 4) + 4, src, size_t(bytes));
    }
    std::vector<float> f_first(back.size());
    FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf(bits, first.data(), rows, cols, f_first.data(),
                                                 false);
    ASSERT_TRUE(same_bits(back, f_first));
  } else {
    Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf(expect.data(), rows, cols, f.data());
    Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf(expect.data(), rows, cols, h.data());
    Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf(expect.data(), rows, cols, b.data());
    Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf<float16, true>(expect.data(), rows, cols,
                                                                 b_in_half.data());
    Fused8BitRowwiseQuantizedSBFloatToFloatOrHalfRef(expect.data(), rows, cols, f_ref.data());
  }
  ASSERT_TRUE(same_bits(back, f));
  ASSERT_TRUE(same_bits(back, f_ref));
  ASSERT_TRUE(same_bits(bits16(h_expect), bits16(h)));
  ASSERT_TRUE(same_bits(bits16(b_expect), bits16(b)));
  ASSERT_TRUE(same_bits(bits16(b_expect), bits16(b_in_half)));
}

TEST(Rowwise, MatchesFormulasOnEveryPath) {
  for_each_isa([] {
    for (int cols : {0, 1, 3, 7, 8, 9, 15, 16, 17, 33, 64, 100}) {
      check_rowwise(8, false, 8, cols);
      for (int bits : {2, 4, 8}) check_rowwise(bits, true, 8, cols);
    }
  });
  // Round trip of a plain row stays within half a step.
  std::vector<float> row(50);
  for (int j = 0; j < 50; ++j) row[j] = std::sin(float(j)) * 3;
  std::vector<uint8_t> q(58);
  std::vector<float> back(50);
  FloatOrHalfToFused8BitRowwiseQuantizedSBFloat(row.data(), 1, 50, q.data());
  Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf(q.data(), 1, 50, back.data());
  for (int j = 0; j < 50; ++j) EXPECT_NEAR(back[j], row[j], 6.0 / 255 * 0.51);
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
  expect_invalid([&] { ChooseQuantizationParams(2.0f, 1.0f, 0, 255); }, "min");
  expect_invalid([&] { ChooseQuantizationParams(kNaN, 1.0f, 0, 255); }, "min");
  expect_invalid([&] { ChooseQuantizationParams(0.0f, kInf, 0, 255); }, "max");
  expect_invalid([&] { ChooseQuantizationParams(0.0f, 1.0f, 5, 5); }, "qmin");
  expect_invalid([&] { ChooseQuantizationParams(-1.0f, 1.0f, 0, 1); }, "qmax - qmin");
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
  expect_invalid([&] { Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf<float>(u, 1, 4, nullptr); },
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
  fbgemm::Quantize<uint8_t, false>(x, y, 8, qparams, 0, 1);
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
  fbgemm::Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf<fbgemm::float16>(fused.data(), 2, 4,
                                                                         half.data());
  EXPECT_NEAR(fbgemm::cpu_half2float(half[6]), 1.0f, 0.01f);
  EXPECT_EQ((fbgemm::clamp<int32_t, uint8_t>(300, 8)), 255);
}

}  // namespace
}  // namespace quire::test
