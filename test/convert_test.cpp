// FbgemmConvert: the _ref forms at known values (the clip's NaN, fp16 NaN payloads, the
// bf16 bit trick), and the _simd / _avx2 / _avx512 forms against _ref bit for bit over odd
// lengths, every half, a dense sweep of float bit patterns and every instruction-set path
// (fp16 with do_clip and RoundToFloat16, where a NaN's result depends on its position, are
// checked against FBGEMM's rule in half_conversion_fbgemm_test.cpp); fp8 against an exact
// nearest-even search over the format's values; bad arguments.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "quire/FbgemmConvert.h"
#include "quire/compat/fbgemm/FbgemmConvert.h"
#include "test_util.h"

namespace quire::test {
namespace {

#define W(...) ({__VA_ARGS__})

constexpr float kInf = INFINITY;
float bf(uint32_t u) { return std::bit_cast<float>(u); }
uint32_t bits(float x) { return std::bit_cast<uint32_t>(x); }

// Inputs that decide the conversions: specials, NaN payloads, fp16 range edges and
// ties, denormals; then random bit patterns.
std::vector<float> inputs(size_t n, uint32_t seed) {
  std::vector<float> v = {0.0f,         -0.0f,        1.0f,         -2.5f,        kInf,
                          -kInf,        bf(0x7fc00000), bf(0xffc00001), bf(0x7f800001),
                          bf(0x7fffffff), bf(0xffffffff), bf(0x7f808000), 65504.0f,
                          -65504.0f,    65519.0f,     65520.0f,     -65520.0f,    1e10f,
                          -1e10f,       0x1p-24f,     0x1p-25f,     0x3p-26f,     0x1p-14f,
                          0x1.ffcp-15f, bf(0x00000001), bf(0x807fffff), bf(0x3f808000),
                          bf(0xbf808000), bf(0x3f818000), 1.0f + 0x1p-11f};
  std::mt19937 gen(seed);
  while (v.size() < n) v.push_back(bf(static_cast<uint32_t>(gen())));
  v.resize(n);
  return v;
}

const size_t kSizes[] = {0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 65, 1000, 1027};

// The instruction-set paths of this CPU, each forced in turn.
void for_each_path(const std::function<void()>& fn) {
  for (const IsaCase& c : all_isas()) {
    if (skip_unsupported(c)) continue;
    ScopedIsa isa(c.isa);
    SCOPED_TRACE(static_cast<int>(c.isa));
    fn();
  }
}

// The explicit vector forms this CPU can run, named.
struct Forms {
  const char* name;
  void (*f2h)(const float*, float16*, size_t, bool);
  void (*h2f)(const float16*, float*, size_t);
  void (*f2b)(const float*, bfloat16*, size_t);
  void (*b2f)(const bfloat16*, float*, size_t);
};

std::vector<Forms> vector_forms() {
  std::vector<Forms> f = {{"simd", FloatToFloat16_simd, Float16ToFloat_simd, FloatToBfloat16_simd,
                           Bfloat16ToFloat_simd}};
  if (fbgemmHasAvx2Support())
    f.push_back({"avx2", FloatToFloat16_avx2, Float16ToFloat_avx2, FloatToBfloat16_avx2,
                 Bfloat16ToFloat_avx2});
  if (fbgemmHasAvx512Support())
    f.push_back({"avx512", FloatToFloat16_avx512, Float16ToFloat_avx512, FloatToBfloat16_avx512,
                 Bfloat16ToFloat_avx512});
  return f;
}

TEST(Convert, RefFollowsFbgemm) {
  const std::vector<float> x = {NAN, kInf, -kInf, 65520.0f, -1e10f, 0x1p-25f, 1.0f};
  std::vector<float16> h(x.size()), hc(x.size());
  FloatToFloat16_ref(x.data(), h.data(), x.size());
  FloatToFloat16_ref(x.data(), hc.data(), x.size(), true);
  const uint16_t expect[] = {0x7e00, 0x7c00, 0xfc00, 0x7c00, 0xfc00, 0x0000, 0x3c00};
  // std::max(-m, std::min(x, m)): NaN -> -65504, infinities -> +-65504.
  const uint16_t expect_clip[] = {0xfbff, 0x7bff, 0xfbff, 0x7bff, 0xfbff, 0x0000, 0x3c00};
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(h[i].val, expect[i]) << i;
    EXPECT_EQ(hc[i].val, expect_clip[i]) << i;
  }
  // vcvtph2ps (FBGEMM's cpu_half2float with F16C): NaN quiet, sign and payload kept.
  const std::vector<float16> nans = {{0x7c01}, {0xfe00}, {0x7fff}};
  const uint32_t expect_nan[] = {0x7fc02000, 0xffc00000, 0x7fffe000};
  std::vector<float> f(nans.size());
  Float16ToFloat_ref(nans.data(), f.data(), nans.size());
  for (size_t i = 0; i < f.size(); ++i) EXPECT_EQ(bits(f[i]), expect_nan[i]) << i;

  const std::vector<float> y = {bf(0x3f808000), bf(0xbf808000), bf(0x7fffffff), bf(0x7f800001)};
  std::vector<bfloat16> b(y.size());
  FloatToBfloat16_ref(y.data(), b.data(), y.size());
  const uint16_t expect_b[] = {0x3f81, 0xbf81, 0x8000, 0x7f80};
  for (size_t i = 0; i < y.size(); ++i) EXPECT_EQ(b[i].val, expect_b[i]) << i;
  std::vector<float> back(b.size());
  Bfloat16ToFloat_ref(b.data(), back.data(), b.size());
  for (size_t i = 0; i < b.size(); ++i) EXPECT_EQ(bits(back[i]), uint32_t{b[i].val} << 16);
}

// Every vector form, on every path, gives _ref's bits at every length (remainders);
// fp16 without clip here (with clip, NaN's result depends on its position).
TEST(Convert, VectorFormsMatchRef) {
  for_each_path([] {
    for (const Forms& form : vector_forms()) {
      SCOPED_TRACE(form.name);
      for (size_t n : kSizes) {
        const std::vector<float> x = inputs(n, static_cast<uint32_t>(n));
        std::vector<float16> want(n), got(n);
        FloatToFloat16_ref(x.data(), want.data(), n);
        form.f2h(x.data(), got.data(), n, false);
        for (size_t i = 0; i < n; ++i)
          ASSERT_EQ(got[i].val, want[i].val) << "n=" << n << " x=" << std::hex << bits(x[i]);
        std::vector<bfloat16> bw(n), bg(n);
        FloatToBfloat16_ref(x.data(), bw.data(), n);
        form.f2b(x.data(), bg.data(), n);
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(bg[i].val, bw[i].val) << "n=" << n << " i=" << i;

        std::vector<float16> h(n);
        std::vector<bfloat16> b(n);
        for (size_t i = 0; i < n; ++i) {
          h[i].val = static_cast<uint16_t>(bits(x[i]) >> 7);
          b[i].val = static_cast<uint16_t>(bits(x[i]) >> 11);
        }
        std::vector<float> fw(n), fg(n);
        Float16ToFloat_ref(h.data(), fw.data(), n);
        form.h2f(h.data(), fg.data(), n);
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(bits(fg[i]), bits(fw[i])) << "n=" << n << " i=" << i;
        Bfloat16ToFloat_ref(b.data(), fw.data(), n);
        form.b2f(b.data(), fg.data(), n);
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(bits(fg[i]), bits(fw[i])) << "n=" << n << " i=" << i;
      }
    }
  });
}

// Every half, and float bit patterns 4093 apart across the whole range, through the
// fastest form this CPU has, against _ref.
TEST(Convert, DenseSweepMatchesRef) {
  std::vector<float16> halves(0x10000);
  for (uint32_t h = 0; h < 0x10000; ++h) halves[h].val = static_cast<uint16_t>(h);
  std::vector<float> floats;
  for (uint64_t u = 0; u < (uint64_t{1} << 32); u += 4093) floats.push_back(bf(static_cast<uint32_t>(u)));
  for (const Forms& form : vector_forms()) {
    SCOPED_TRACE(form.name);
    std::vector<float> fw(halves.size()), fg(halves.size());
    Float16ToFloat_ref(halves.data(), fw.data(), halves.size());
    form.h2f(halves.data(), fg.data(), halves.size());
    for (size_t i = 0; i < halves.size(); ++i) ASSERT_EQ(bits(fg[i]), bits(fw[i])) << i;
    std::vector<float16> want(floats.size()), got(floats.size());
    FloatToFloat16_ref(floats.data(), want.data(), floats.size());
    form.f2h(floats.data(), got.data(), floats.size(), false);
    for (size_t i = 0; i < floats.size(); ++i) ASSERT_EQ(got[i].val, want[i].val) << std::hex << bits(floats[i]);
    std::vector<bfloat16> bw(floats.size()), bg(floats.size());
    FloatToBfloat16_ref(floats.data(), bw.data(), floats.size());
    form.f2b(floats.data(), bg.data(), floats.size());
    for (size_t i = 0; i < floats.size(); ++i) ASSERT_EQ(bg[i].val, bw[i].val) << std::hex << bits(floats[i]);
  }
}

// ---- fp8 -----------------------------------------------------------------------------

struct Fp8Format {
  int e, bias;
};
const Fp8Format kFp8[] = {{4, 7}, {4, 8}, {5, 15}, {3, 3}, {2, 1}};

// The value of code c's magnitude bits, exactly: subnormal (field 0) M * 2^(1 - bias - m),
// normal (1 + M / 2^m) * 2^(E - bias).
double fp8_value(int c, Fp8Format f) {
  const int m = 7 - f.e, field = (c & 0x7f) >> m, man = c & ((1 << m) - 1);
  const double mag = field == 0 ? std::ldexp(man, 1 - f.bias - m)
                                : std::ldexp((1 << m) + man, field - f.bias - m);
  return (c & 0x80) ? -mag : mag;
}

TEST(Convert, Float8ToFloatIsExact) {
  for (const Fp8Format f : kFp8) {
    for (int c = 0; c < 256; ++c) {
      float out;
      Float8ToFloat_ref(static_cast<uint8_t>(c), &out, f.e, f.bias);
      ASSERT_EQ(double{out}, fp8_value(c, f)) << "e=" << f.e << " c=" << c;
      ASSERT_EQ(std::signbit(out), (c & 0x80) != 0);
    }
  }
}

// The nearest code to |x| clamped to max_pos (quiet NaN: max_pos), ties to the even
// code. A signaling NaN survives fminf (C's fmin quiets it rather than ignoring it) and
// lands in the subnormal branch: its payload's low byte, and the sign.
uint8_t nearest_fp8(float x, Fp8Format f) {
  if (std::isnan(x) && (bits(x) & 0x400000u) == 0)
    return static_cast<uint8_t>((bits(x) & 0xffu) | (std::signbit(x) ? 0x80 : 0));
  const double max_pos = std::ldexp(2.0 - std::ldexp(1.0, f.e - 7), (1 << f.e) - 2 - f.bias);
  const double a = std::isnan(x) ? max_pos : std::min(double{std::abs(x)}, max_pos);
  int best = 0;
  for (int c = 1; c < 128 && fp8_value(c, f) <= max_pos; ++c) {
    const double d = std::abs(fp8_value(c, f) - a), db = std::abs(fp8_value(best, f) - a);
    if (d < db || (d == db && (c & 1) == 0)) best = c;
  }
  return static_cast<uint8_t>(best | (std::signbit(x) ? 0x80 : 0));
}

TEST(Convert, FloatToFloat8RoundsToNearestEven) {
  for (const Fp8Format f : kFp8) {
    std::vector<float> x = inputs(3000, 5);
    for (int c = 0; c < 256; ++c) {  // every code, and the midpoints around it
      const double v = fp8_value(c, f), up = fp8_value(c + 1 == 128 ? c : (c + 1) & 0xff, f);
      x.push_back(static_cast<float>(v));
      x.push_back(static_cast<float>((v + up) / 2));
      x.push_back(std::nextafter(static_cast<float>((v + up) / 2), 0.0f));
    }
    std::mt19937 gen(3);
    std::uniform_real_distribution<float> scale(-40.0f, 20.0f);
    for (int i = 0; i < 20000; ++i) x.push_back(std::ldexp(1.0f + (gen() & 0xffff) / 65536.0f, static_cast<int>(scale(gen))));
    for (float v : x) {
      uint8_t got;
      FloatToFloat8_ref(v, &got, f.e, f.bias);
      ASSERT_EQ(got, nearest_fp8(v, f)) << "e=" << f.e << " bias=" << f.bias << " x=" << std::hexfloat << v;
    }
  }
}

TEST(Convert, BadArguments) {
  std::vector<float> f(4);
  std::vector<float16> h(4);
  std::vector<bfloat16> b(4);
  EXPECT_INVALID(W("FloatToFloat16_simd", "src"), FloatToFloat16_simd(nullptr, h.data(), 4));
  EXPECT_INVALID(W("Float16ToFloat_ref", "dst"), Float16ToFloat_ref(h.data(), nullptr, 4));
  EXPECT_INVALID(W("FloatToBfloat16_ref", "src"), FloatToBfloat16_ref(nullptr, b.data(), 1));
  EXPECT_INVALID(W("Bfloat16ToFloat_simd", "dst"), Bfloat16ToFloat_simd(b.data(), nullptr, 1));
  EXPECT_INVALID(W("RoundToFloat16", "input"), RoundToFloat16(nullptr, f.data(), 2));
  EXPECT_INVALID(W("RoundToFloat16", "output"), RoundToFloat16(f.data(), nullptr, 2));
  EXPECT_NO_THROW(FloatToFloat16_simd(nullptr, nullptr, 0));  // empty arrays
  EXPECT_NO_THROW(Bfloat16ToFloat_ref(nullptr, nullptr, 0));
  uint8_t q;
  float out;
  EXPECT_INVALID(W("FloatToFloat8_ref", "exponent_bits", "8"), FloatToFloat8_ref(1.0f, &q, 8, 7));
  EXPECT_INVALID(W("FloatToFloat8_ref", "exponent_bits", "0"), FloatToFloat8_ref(1.0f, &q, 0, 0));
  EXPECT_INVALID(W("Float8ToFloat_ref", "exponent_bias", "-1"), Float8ToFloat_ref(1, &out, 4, -1));
  EXPECT_INVALID(W("FloatToFloat8_ref", "exponent_bias", "15"), FloatToFloat8_ref(1.0f, &q, 4, 15));
  EXPECT_INVALID(W("FloatToFloat8_ref", "output"), FloatToFloat8_ref(1.0f, nullptr, 4, 7));
  EXPECT_INVALID(W("Float8ToFloat_ref", "output"), Float8ToFloat_ref(1, nullptr, 5, 15));
}

// FBGEMM spelling compiles and runs.
TEST(Convert, CompatNames) {
  std::vector<float> x = {1.0f, 2.0f, 3.0f};
  std::vector<fbgemm::float16> h(3);
  fbgemm::FloatToFloat16_simd(x.data(), h.data(), h.size());
  std::vector<float> y(3);
  fbgemm::Float16ToFloat_simd(h.data(), y.data(), y.size());
  EXPECT_EQ(x, y);
}

}  // namespace
}  // namespace quire::test
