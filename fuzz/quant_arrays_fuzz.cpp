// Differential fuzzer for QuantUtils' array forms against their scalar forms: the input
// chooses the ISA path, the element type (uint8, int8, uint16, int16, int32), the
// function (Quantize, Dequantize, FusedQuantizeDequantize, Requantize,
// RequantizeFixedPoint, FindMinMax), the thread split (calls one after another) and the
// parameters as raw bits (any float scale or multiplier: NaN, infinities, denormals,
// negatives; any zero point, precision and shift); the rest of the input is the array,
// also as raw bits. For a non-empty array the array form must throw
// std::invalid_argument exactly when the scalar form does, and otherwise give the scalar
// form's bits element by element. FindMinMax is checked against its documented
// semantics (NaN ignored, +0.0 for a zero result, 0 and 0 when empty, NaN when all NaN).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "fuzz_util.h"
#include "quire/QuantUtils.h"

namespace quire::fuzz {
namespace {

template <class F>
bool throws(const F& f) {
  try {
    f();
  } catch (const std::invalid_argument&) {
    return true;
  }
  return false;
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
std::vector<T> rest_as(FuzzedDataProvider& in) {
  const std::vector<uint8_t> raw = in.ConsumeRemainingBytes<uint8_t>();
  std::vector<T> v(raw.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), raw.data(), v.size() * sizeof(T));
  return v;
}

// Runs the array form over [0, len) as `threads` calls; true if any call threw.
template <class F>
bool array_throws(int threads, const F& call) {
  return throws([&] {
    for (int t = 0; t < threads; ++t) call(t);
  });
}

template <class T>
void fuzz_type(FuzzedDataProvider& in, int fn, int threads) {
  TensorQuantizationParams qp;
  qp.scale = in.ConsumeFloatingPoint<float>();
  if (in.ConsumeBool()) qp.scale = std::fabs(qp.scale) * 1e-30f;  // reach small scales too
  qp.zero_point = in.ConsumeIntegral<int32_t>();
  if (in.ConsumeBool()) qp.zero_point %= 300;
  qp.precision = in.ConsumeIntegralInRange(0, 33);
  if (in.ConsumeBool()) qp.precision = 8 * sizeof(T);
  const bool is_signed = std::is_signed_v<T>;

  if (fn == 0 || fn == 2) {  // Quantize, FusedQuantizeDequantize
    const std::vector<float> src = rest_as<float>(in);
    const int64_t len = int64_t(src.size());
    if (fn == 0) {
      std::vector<T> got(src.size());
      const bool bad = array_throws(threads, [&](int t) {
        Quantize<T>(src.data(), got.data(), len, qp, t, threads);
      });
      if (len == 0) return;
      FUZZ_CHECK(bad == throws([&] { Quantize<T>(src[0], qp.zero_point, qp.scale, qp.precision, is_signed); }));
      if (bad) return;
      for (size_t i = 0; i < src.size(); ++i)
        FUZZ_CHECK(got[i] == Quantize<T>(src[i], qp.zero_point, qp.scale, qp.precision, is_signed));
    } else if constexpr (sizeof(T) == 1) {
      const float noise = in.ConsumeBool() ? 1.0f : 0.0f;
      std::vector<float> got(src.size());
      const bool bad = array_throws(threads, [&](int t) {
        FusedQuantizeDequantize<T>(src.data(), got.data(), len, qp, t, threads, noise);
      });
      if (len == 0) return;
      FUZZ_CHECK(bad == throws([&] { FusedQuantizeDequantize<T>(src[0], qp); }));
      if (bad) return;
      for (size_t i = 0; i < src.size(); ++i)
        FUZZ_CHECK(same_bits(got[i], noise == 1.0f ? src[i] : FusedQuantizeDequantize<T>(src[i], qp)));
    }
  } else if (fn == 1) {  // Dequantize
    const std::vector<T> src = rest_as<T>(in);
    std::vector<float> got(src.size());
    const int64_t len = int64_t(src.size());
    const bool bad = array_throws(threads, [&](int t) {
      Dequantize<T>(src.data(), got.data(), len, qp, t, threads);
    });
    if (len == 0) return;
    FUZZ_CHECK(bad == throws([&] { Dequantize<T>(src[0], qp); }));
    if (bad) return;
    for (size_t i = 0; i < src.size(); ++i) FUZZ_CHECK(same_bits(got[i], Dequantize<T>(src[i], qp)));
  } else {  // Requantize (float or fixed point)
    RequantizationParams rp;
    rp.real_multiplier = in.ConsumeFloatingPoint<float>();
    rp.multiplier = in.ConsumeIntegral<int32_t>();
    rp.right_shift = in.ConsumeIntegralInRange(-1, 64);
    rp.target_qparams = qp;
    const bool fixed = fn == 4;
    const std::vector<int32_t> src = rest_as<int32_t>(in);
    std::vector<T> got(src.size());
    const int64_t len = int64_t(src.size());
    const bool bad = array_throws(threads, [&](int t) {
      if (fixed) RequantizeFixedPoint<T>(src.data(), got.data(), len, rp, t, threads);
      else Requantize<T>(src.data(), got.data(), len, rp, t, threads);
    });
    if (len == 0) return;
    const auto scalar = [&](int32_t x) {
      return fixed ? RequantizeFixedPoint<T>(x, rp) : Requantize<T>(x, rp);
    };
    FUZZ_CHECK(bad == throws([&] { scalar(src[0]); }));
    if (bad) return;
    for (size_t i = 0; i < src.size(); ++i) FUZZ_CHECK(got[i] == scalar(src[i]));
  }
}

void fuzz_min_max(FuzzedDataProvider& in) {
  const std::vector<float> m = rest_as<float>(in);
  float lo = 1.0f, hi = -1.0f;
  FindMinMax(m.data(), &lo, &hi, int64_t(m.size()));
  bool any = false;
  float want_lo = 0.0f, want_hi = 0.0f;
  for (float x : m) {
    if (std::isnan(x)) continue;
    want_lo = any ? std::fmin(want_lo, x) : x;
    want_hi = any ? std::fmax(want_hi, x) : x;
    any = true;
  }
  if (!m.empty() && !any) {
    FUZZ_CHECK(std::isnan(lo) && std::isnan(hi));
    return;
  }
  // A zero result is +0.0 (the sign of zero is not ordered).
  if (want_lo == 0.0f) want_lo = 0.0f * 1.0f;
  if (want_hi == 0.0f) want_hi = 0.0f * 1.0f;
  if (lo == 0.0f) FUZZ_CHECK(!std::signbit(lo));
  if (hi == 0.0f) FUZZ_CHECK(!std::signbit(hi));
  FUZZ_CHECK(lo == want_lo && hi == want_hi);
}

}  // namespace
}  // namespace quire::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace quire::fuzz;
  FuzzedDataProvider in(data, size);
  ScopedIsa isa(pick_isa(in));
  const int fn = in.ConsumeIntegralInRange(0, 5);
  const int type = in.ConsumeIntegralInRange(0, 4);
  const int threads = in.ConsumeIntegralInRange(1, 5);
  if (fn == 5) {
    fuzz_min_max(in);
    return 0;
  }
  switch (type) {
    case 0: fuzz_type<uint8_t>(in, fn, threads); break;
    case 1: fuzz_type<int8_t>(in, fn, threads); break;
    case 2: fuzz_type<uint16_t>(in, fn, threads); break;
    case 3: fuzz_type<int16_t>(in, fn, threads); break;
    case 4: fuzz_type<int32_t>(in, fn, threads); break;
  }
  return 0;
}
