// QuantTester: one routine of one path's QuantKernels (src/quant/quant_kernels.h) called
// directly, outside the public QuantUtils functions, on arrays built from the options,
// and compared bit for bit with the formulas written out in the tests
// (quant_test_util.h's and the ones below, independent of the library). A builder in the
// manner of XNNPACK's micro-kernel testers (docs/kernel-tester.md):
//   QuantTester().len(17).scale(0.37f).zero_point(-3).bits(6).TestQuantize(t.quantize_s8);
// Inputs start one element past an aligned buffer; outputs are followed by sentinels
// that must survive (no write past len).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "../src/quant/quant_kernels.h"
#include "quant_test_util.h"

namespace quire::test {

class QuantTester {
 public:
  QuantTester& len(int64_t v) { len_ = v; return *this; }
  QuantTester& scale(float v) { scale_ = v; return *this; }
  QuantTester& zero_point(int32_t v) { zp_ = v; return *this; }
  QuantTester& bits(int v) { bits_ = v; return *this; }  // output precision; 0: the type's
  QuantTester& legacy(bool v) { legacy_ = v; return *this; }
  QuantTester& right_shift(int v) { shift_ = v; return *this; }  // requantize_fixed
  QuantTester& bit_rate(int v) { bit_rate_ = v; return *this; }  // rowwise
  QuantTester& seed(uint32_t v) { seed_ = v; return *this; }

  template <class T>
  void TestQuantize(detail::QuantizeFn<T> fn) const {
    const auto [lo, hi] = range<T>();
    const std::vector<float> src = floats(1000.0f * scale_);
    std::vector<T> got = guarded<T>(), want(got);
    fn(src.data() + 1, got.data(), len_, args<T>());
    for (int64_t i = 0; i < len_; ++i)
      want[i] = static_cast<T>(ref_quantize(src[i + 1], scale_, zp_, lo, hi, legacy_));
    expect_same(got, want);
  }

  // Element i has its own scale and zero point (a KXC row's channels): current formula.
  template <class T>
  void TestQuantizeChannels(detail::QuantizeChannelsFn<T> fn) const {
    const auto [lo, hi] = range<T>();
    const std::vector<float> src = floats(1000.0f * scale_);
    std::vector<float> inv(len_ + 1), zps(len_ + 1);
    std::mt19937 gen(seed_ + 3);
    for (int64_t i = 0; i <= len_; ++i) {
      inv[i] = 1.0f / (scale_ * std::uniform_real_distribution<float>(0.5f, 2.0f)(gen));
      zps[i] = static_cast<float>(zp_ + static_cast<int32_t>(i % 7) - 3);
    }
    std::vector<T> got = guarded<T>(), want(got);
    fn(src.data() + 1, got.data(), len_, inv.data() + 1, zps.data() + 1, args<T>());
    for (int64_t i = 0; i < len_; ++i) {
      const float r = std::nearbyint(src[i + 1] * inv[i + 1]) + zps[i + 1];
      want[i] = static_cast<T>(ref_saturate(r, lo, hi));
    }
    expect_same(got, want);
  }

  template <class T>
  void TestDequantize(detail::DequantizeFn<T> fn) const {
    const auto [lo, hi] = range<T>();
    const std::vector<int64_t> q = ints(lo, hi);
    std::vector<T> src(q.begin(), q.end());
    std::vector<float> got = guarded<float>(), want(got);
    fn(src.data() + 1, got.data(), len_, scale_, zp_);
    for (int64_t i = 0; i < len_; ++i)
      want[i] = scale_ * static_cast<float>(static_cast<double>(src[i + 1]) - zp_);
    expect_same(bits_of(got), bits_of(want));
  }

  // Quantize to the type's range (or bits()), then dequantize with the same parameters.
  template <class T>
  void TestFusedQuantizeDequantize(detail::FusedQuantizeDequantizeFn fn) const {
    const auto [lo, hi] = range<T>();
    const std::vector<float> src = floats(1000.0f * scale_);
    std::vector<float> got = guarded<float>(), want(got);
    fn(src.data() + 1, got.data(), len_, args<T>(), scale_, zp_);
    for (int64_t i = 0; i < len_; ++i)
      want[i] = ref_dequantize(ref_quantize(src[i + 1], scale_, zp_, lo, hi, legacy_), scale_, zp_);
    expect_same(bits_of(got), bits_of(want));
  }

  // nan_only: every element NaN (the bounds stay at +inf / -inf).
  void TestMinMax(detail::MinMaxFn fn, bool nan_only = false) const {
    std::vector<float> src = floats(1e6f);
    if (nan_only) src.assign(src.size(), kNaN);
    float got[2], want[2] = {kInf, -kInf};
    fn(src.data() + 1, len_, &got[0], &got[1]);
    for (int64_t i = 0; i < len_; ++i) {
      const float x = src[i + 1];
      if (std::isnan(x)) continue;
      if (x < want[0] || (x == 0.0f && want[0] == 0.0f)) want[0] = x == 0.0f ? 0.0f : x;
      if (x > want[1] || (x == 0.0f && want[1] == 0.0f)) want[1] = x == 0.0f ? 0.0f : x;
    }
    expect_same(bits_of(std::vector<float>(got, got + 2)), bits_of(std::vector<float>(want, want + 2)));
  }

  // multiplier = scale().
  template <class T>
  void TestRequantize(detail::RequantizeFn<T> fn) const {
    const auto [lo, hi] = range<T>();
    const std::vector<int64_t> wide = ints(INT32_MIN, INT32_MAX);
    const std::vector<int32_t> src(wide.begin(), wide.end());
    std::vector<T> got = guarded<T>(), want(got);
    const detail::RequantizeArgs a{scale_, zp_, static_cast<int32_t>(lo), static_cast<int32_t>(hi)};
    fn(src.data() + 1, got.data(), len_, a);
    for (int64_t i = 0; i < len_; ++i) {
      const float r = std::nearbyint(static_cast<float>(src[i + 1]) * scale_);
      want[i] = static_cast<T>(ref_saturate(static_cast<double>(zp_) + r, lo, hi));
    }
    expect_same(got, want);
  }

  // multiplier: a random positive int32 from the seed.
  template <class T>
  void TestRequantizeFixed(detail::RequantizeFixedFn<T> fn) const {
    const auto [lo, hi] = range<T>();
    const std::vector<int64_t> wide = ints(INT32_MIN, INT32_MAX);
    const std::vector<int32_t> src(wide.begin(), wide.end());
    const int32_t mult = static_cast<int32_t>(std::mt19937(seed_ + 9)() >> 1) | (1 << 29);
    std::vector<T> got = guarded<T>(), want(got);
    const detail::RequantizeFixedArgs a{mult, shift_, zp_, static_cast<int32_t>(lo),
                                        static_cast<int32_t>(hi)};
    fn(src.data() + 1, got.data(), len_, a);
    for (int64_t i = 0; i < len_; ++i) {
      // floor((p + 2^(s-1)) / 2^s) in 128 bits: no overflow to reason about.
      const __int128 p = static_cast<__int128>(src[i + 1]) * mult;
      const __int128 m = shift_ == 0 ? p : (p + (__int128{1} << (shift_ - 1))) >> shift_;
      const __int128 v = zp_ + m;
      want[i] = static_cast<T>(v < lo ? lo : v > hi ? hi : static_cast<int64_t>(v));
    }
    expect_same(got, want);
  }

  // One row of len() values with bias zero_point() and scale scale() at bit_rate().
  void TestRowwiseQuantize(detail::RowwiseQuantizeFn fn) const {
    const int per_byte = 8 / bit_rate_, qmax = (1 << bit_rate_) - 1;
    const std::vector<float> src = floats(2.0f * qmax * scale_);
    const float bias = static_cast<float>(zp_) * scale_, inv = 1.0f / scale_;
    const int64_t bytes = (len_ + per_byte - 1) / per_byte;
    std::vector<uint8_t> got(bytes + kGuard, kSentinel), want(got);
    fn(src.data() + 1, static_cast<int>(len_), bit_rate_, bias, inv, got.data());
    std::fill(want.begin(), want.begin() + bytes, uint8_t{0});
    for (int64_t j = 0; j < len_; ++j) {
      const float r = std::nearbyint((src[j + 1] - bias) * inv);
      const int q = !(r >= 0.0f) ? 0 : r > static_cast<float>(qmax) ? qmax : static_cast<int>(r);
      want[j / per_byte] |= static_cast<uint8_t>(q << (j % per_byte * bit_rate_));
    }
    expect_same(got, want);
  }

  void TestRowwiseDequantize(detail::RowwiseDequantizeFn fn) const {
    const int per_byte = 8 / bit_rate_;
    const int64_t bytes = (len_ + per_byte - 1) / per_byte;
    const std::vector<int64_t> codes = ints(0, 255);
    const std::vector<uint8_t> src(codes.begin(), codes.begin() + bytes + 1);
    const float bias = static_cast<float>(zp_) * 0.7f;
    std::vector<float> got = guarded<float>(), want(got);
    fn(src.data() + 1, static_cast<int>(len_), bit_rate_, scale_, bias, got.data());
    for (int64_t j = 0; j < len_; ++j) {
      const int q = (src[1 + j / per_byte] >> (j % per_byte * bit_rate_)) & ((1 << bit_rate_) - 1);
      want[j] = std::fma(static_cast<float>(q), scale_, bias);
    }
    expect_same(bits_of(got), bits_of(want));
  }

  // The array conversions against the scalar FBGEMM names of quire/FloatConversion.h.
  void TestFloatToHalf(void (*fn)(const float*, float16*, int64_t)) const {
    const std::vector<float> src = floats(70000.0f);
    std::vector<float16> got = guarded<float16>(), want(got);
    fn(src.data() + 1, got.data(), len_);
    for (int64_t i = 0; i < len_; ++i) want[i] = cpu_float2half_rn(src[i + 1]);
    expect_same(got, want);
  }
  void TestFloatToBfloat16(void (*fn)(const float*, bfloat16*, int64_t)) const {
    const std::vector<float> src = floats(1e30f);
    std::vector<bfloat16> got = guarded<bfloat16>(), want(got);
    fn(src.data() + 1, got.data(), len_);
    for (int64_t i = 0; i < len_; ++i) want[i] = cpu_float2bfloat16(src[i + 1]);
    expect_same(got, want);
  }
  void TestHalfToFloat(void (*fn)(const float16*, float*, int64_t)) const {
    const std::vector<int64_t> h = ints(0, 0xFFFF);  // every class: NaN, inf, subnormal
    std::vector<float16> src;
    for (int64_t x : h) src.push_back(float16{static_cast<uint16_t>(x)});
    std::vector<float> got = guarded<float>(), want(got);
    fn(src.data() + 1, got.data(), len_);
    for (int64_t i = 0; i < len_; ++i) want[i] = cpu_half2float(src[i + 1]);
    expect_same(bits_of(got), bits_of(want));
  }

 private:
  static constexpr int kGuard = 8;
  static constexpr uint8_t kSentinel = 0xA5;

  template <class T>
  std::pair<int64_t, int64_t> range() const {
    return bits_ == 0 ? range_of<T>() : range_of<T>(bits_);
  }
  template <class T>
  detail::QuantizeArgs args() const {
    const auto [lo, hi] = range<T>();
    return detail::make_quantize_args(1.0f / scale_, zp_, static_cast<int32_t>(lo),
                                      static_cast<int32_t>(hi), legacy_);
  }
  // len + 1 inputs (the routine reads from the second) with every special value.
  std::vector<float> floats(float span) const { return test_floats(len_ + 1, span, seed_, scale_); }
  std::vector<int64_t> ints(int64_t lo, int64_t hi) const {
    std::mt19937_64 gen(seed_);
    std::uniform_int_distribution<int64_t> dist(lo, hi);
    std::vector<int64_t> v(len_ + 1);
    for (int64_t& x : v) x = dist(gen);
    if (len_ > 2) v[1] = lo, v[2] = hi;
    return v;
  }
  // len outputs then kGuard sentinels (bytes 0xA5 of the type).
  template <class T>
  std::vector<T> guarded() const {
    std::vector<T> v(len_ + kGuard);
    std::memset(v.data(), kSentinel, v.size() * sizeof(T));
    return v;
  }
  static std::vector<uint32_t> bits_of(const std::vector<float>& v) {
    std::vector<uint32_t> b(v.size());
    std::memcpy(b.data(), v.data(), v.size() * sizeof(float));
    return b;
  }
  template <class T>
  static auto printable(T v) {
    if constexpr (std::is_arithmetic_v<T>) return +v;
    else return v.val;  // float16, bfloat16: the bits
  }
  template <class T>
  void expect_same(const std::vector<T>& got, const std::vector<T>& want) const {
    int mismatches = 0;
    for (size_t i = 0; i < got.size() && mismatches < 5; ++i) {
      if (got[i] == want[i]) continue;
      ++mismatches;
      ADD_FAILURE() << "element " << i << (int64_t(i) >= len_ ? " (past len)" : "") << ": got "
                    << printable(got[i]) << ", want " << printable(want[i]) << " (len " << len_ << ", scale "
                    << scale_ << ", zero point " << zp_ << ", bits " << bits_ << ")";
    }
  }

  int64_t len_ = 1;
  float scale_ = 0.25f;
  int32_t zp_ = 0;
  int bits_ = 0;
  bool legacy_ = false;
  int shift_ = 20;
  int bit_rate_ = 8;
  uint32_t seed_ = 1;
};

}  // namespace quire::test
