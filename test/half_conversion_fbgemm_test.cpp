// FBGEMM's half-precision conversions bit for bit (FbgemmConvert.h, FloatConversion.h), as
// FBGEMM's x86 build computes them (-mavx2 -mfma -mf16c, so its scalar conversions are
// vcvtps2ph / vcvtph2ps). The rules are transcribed below from the IEEE formats with exact
// double arithmetic, independent of quire's bit code; the transcription is checked against
// the F16C instructions, and then every form (_ref, _avx2, _avx512, _simd) of
// FloatToFloat16 (with and without clip) and Float16ToFloat, and RoundToFloat16 in its four
// modes, on every instruction-set path, over all 65,536 halves and a float set of every
// special class, in calls of many sizes so that each element is seen both in FBGEMM's
// vector part and in its scalar remainder.
#include <gtest/gtest.h>
#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "quire/FbgemmConvert.h"
#include "quire/Utils.h"
#include "scoped_isa.h"
#include "test_util.h"

namespace quire::test {
namespace {

uint32_t bits(float x) { return std::bit_cast<uint32_t>(x); }
float from_bits(uint32_t u) { return std::bit_cast<float>(u); }

// ---- the transcription ---------------------------------------------------------------

// fp16 -> fp32: exact; a NaN keeps its sign and payload and gets the quiet bit (vcvtph2ps).
uint32_t ref_half_to_float(uint16_t h) {
  const uint32_t sign = (h & 0x8000u) ? 0x80000000u : 0u;
  const int e = (h >> 10) & 31, m = h & 0x3ff;
  if (e == 31) return sign | 0x7f800000u | (m != 0 ? 0x400000u | (uint32_t(m) << 13) : 0u);
  const float v = e == 0 ? std::ldexp(float(m), -24) : std::ldexp(float(1024 + m), e - 25);
  return sign | bits(v);
}

// fp32 -> fp16: round to nearest even, overflow to inf; a NaN keeps its sign and top 10
// payload bits and gets the quiet bit (vcvtps2ph with imm 0, FBGEMM's cpu_float2half).
uint16_t ref_float_to_half(float x) {
  const auto sign = static_cast<uint16_t>((bits(x) >> 16) & 0x8000u);
  if (std::isnan(x)) return sign | 0x7e00 | ((bits(x) >> 13) & 0x3ff);
  const double a = std::abs(double{x});
  if (std::isinf(a)) return sign | 0x7c00;
  // Subnormal range: units of 2^-24, nearbyint rounds to even; 1024 units is 2^-14.
  if (a < 0x1p-14) return sign | static_cast<uint16_t>(std::nearbyint(a * 0x1p24));
  int e;
  std::frexp(a, &e);  // a in [2^(e-1), 2^e)
  double q = std::nearbyint(std::ldexp(a, 11 - e));  // 11 significant bits: [1024, 2048]
  int exponent = e - 1;
  if (q == 2048) q = 1024, ++exponent;
  if (exponent > 15) return sign | 0x7c00;
  return sign | static_cast<uint16_t>((exponent + 15) << 10 | (static_cast<int>(q) - 1024));
}

// do_clip: clamp to [-65504, 65504]. FBGEMM's vector loops (vmaxps(-m, vminps(x, m)))
// turn NaN into +65504; its scalar _ref (std::max(-m, std::min(x, m))) into -65504.
float ref_clip(float x, bool vector_part) {
  if (std::isnan(x)) return vector_part ? 65504.0f : -65504.0f;
  return std::clamp(x, -65504.0f, 65504.0f);
}

enum class Form { ref, vector };  // _ref, or _avx2 / _avx512 / _simd

// Element i of a call of n elements: FBGEMM's vector loops take the first n - n % 8
// (AVX-512 16 then 8 at a time, AVX2 8: the same split), its _ref the rest.
bool in_vector_part(Form form, size_t i, size_t n) { return form == Form::vector && i < n - n % 8; }

// ---- inputs ----------------------------------------------------------------------------

// Every special class: zeros, float denormals, the normal range's ends, fp16's range edges
// (65504, the 65520 tie to inf), every finite half and the floats at and around each
// midpoint to its neighbour (ties to even both ways), infinities, quiet and signalling
// NaNs with many payloads and both signs, random bits and a sweep of the bit patterns.
std::vector<float> float_set() {
  std::vector<float> v;
  for (uint32_t u : {0x00000000u, 0x00000001u, 0x007fffffu, 0x00400000u, 0x00800000u, 0x7f7fffffu,
                     0x7f800000u, 0x7fc00000u, 0x7fc00001u, 0x7fffffffu, 0x7fe00000u, 0x7fd55555u,
                     0x7f800001u, 0x7fa00000u, 0x7f802000u, 0x7f801fffu, 0x7fbfffffu, 0x7f9abcdeu,
                     0x477fe000u, 0x477fefffu, 0x477ff000u, 0x477ff001u, 0x47800000u, 0x33000000u,
                     0x33000001u, 0x387fe000u, 0x387ff000u, 0x387fffffu, 0x38800000u}) {
    v.push_back(from_bits(u));
    v.push_back(from_bits(u | 0x80000000u));
  }
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    const float lo = from_bits(ref_half_to_float(static_cast<uint16_t>(h)));
    const float hi = from_bits(ref_half_to_float(static_cast<uint16_t>(h + 1)));  // 0x7c00: inf
    const float mid = std::isinf(hi) ? 65520.0f : static_cast<float>((double{lo} + hi) / 2);
    for (float x : {lo, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f)}) {
      v.push_back(x);
      v.push_back(-x);
    }
  }
  for (uint32_t p = 1; p < (1u << 23); p += 1021) {
    v.push_back(from_bits(0x7f800000u | p));
    v.push_back(from_bits(0xff800000u | p));
  }
  std::mt19937 gen(26);
  for (int i = 0; i < 100000; ++i) v.push_back(from_bits(static_cast<uint32_t>(gen())));
  for (uint64_t u = 0; u < (uint64_t{1} << 32); u += 16381) v.push_back(from_bits(static_cast<uint32_t>(u)));
  return v;
}

const std::vector<float>& floats() {
  static const std::vector<float> v = float_set();
  return v;
}

// The transcription's fp16 results for floats(), computed once: plain, and clipped as in
// FBGEMM's vector part and as in its scalar remainder.
struct HalfResults {
  uint16_t plain, clip_vector, clip_scalar;
};

const std::vector<HalfResults>& half_results() {
  static const std::vector<HalfResults> r = [] {
    std::vector<HalfResults> out;
    for (float x : floats())
      out.push_back({ref_float_to_half(x), ref_float_to_half(ref_clip(x, true)),
                     ref_float_to_half(ref_clip(x, false))});
    return out;
  }();
  return r;
}

// Element j of floats(), at offset i of a call of n elements.
uint16_t want_half(Form form, size_t j, bool clip, size_t i, size_t n) {
  const HalfResults& r = half_results()[j];
  if (!clip) return r.plain;
  return in_vector_part(form, i, n) ? r.clip_vector : r.clip_scalar;
}

const std::vector<float16>& all_halves() {
  static const std::vector<float16> v = [] {
    std::vector<float16> h(0x10000);
    for (uint32_t i = 0; i < 0x10000; ++i) h[i].val = static_cast<uint16_t>(i);
    return h;
  }();
  return v;
}

// Call sizes: each array is converted in consecutive calls of one size (the last call
// shorter), so an element sits at many offsets of a call, in and out of the vector part.
const size_t kCallSizes[] = {1, 3, 7, 8, 9, 15, 16, 17, 23, 63, 65, 1027, 0 /* one call */};

template <class Fn>
void for_each_call(size_t total, size_t call_size, Fn fn) {
  if (call_size == 0) call_size = total;
  for (size_t at = 0; at < total; at += call_size) fn(at, std::min(call_size, total - at));
}

// ---- the forms -------------------------------------------------------------------------

struct HalfForms {
  const char* name;
  Form form;
  void (*f2h)(const float*, float16*, size_t, bool);
  void (*h2f)(const float16*, float*, size_t);
};

// The explicit forms this CPU runs (named when skipped); _simd is run on every path.
std::vector<HalfForms> explicit_forms() {
  std::vector<HalfForms> f = {{"_ref", Form::ref, FloatToFloat16_ref, Float16ToFloat_ref}};
  if (fbgemmHasAvx2Support())
    f.push_back({"_avx2", Form::vector, FloatToFloat16_avx2, Float16ToFloat_avx2});
  else
    std::printf("[ SKIPPED  ] _avx2 forms: need AVX2 with FMA and F16C\n");
  if (fbgemmHasAvx512Support())
    f.push_back({"_avx512", Form::vector, FloatToFloat16_avx512, Float16ToFloat_avx512});
  else
    std::printf("[ SKIPPED  ] _avx512 forms: need AVX-512 F/BW/DQ/VL\n");
  return f;
}

const HalfForms kSimd = {"_simd", Form::vector, FloatToFloat16_simd, Float16ToFloat_simd};

// Runs check(forms) for the explicit forms once, and for _simd under every path.
template <class Check>
void for_each_form_and_path(Check check) {
  for (const HalfForms& f : explicit_forms()) {
    SCOPED_TRACE(f.name);
    check(f);
  }
  for (const IsaCase& c : all_isas()) {
    if (skip_unsupported(c)) continue;
    ScopedIsa isa(c.isa);
    SCOPED_TRACE(std::string("_simd on ") + instSetName(c.isa));
    check(kSimd);
  }
}

void check_float_to_half(const HalfForms& f) {
  const std::vector<float>& x = floats();
  std::vector<float16> out(x.size());
  std::vector<uint16_t> want(x.size());
  std::vector<size_t> call_of(x.size()), offset(x.size());
  for (bool clip : {false, true}) {
    for (size_t call : kCallSizes) {
      for_each_call(x.size(), call, [&](size_t at, size_t n) {
        f.f2h(x.data() + at, out.data() + at, n, clip);
        for (size_t i = 0; i < n; ++i)
          want[at + i] = want_half(f.form, at + i, clip, i, n), call_of[at + i] = n, offset[at + i] = i;
      });
      for (size_t j = 0; j < x.size(); ++j)
        ASSERT_EQ(out[j].val, want[j]) << std::hex << "x=0x" << bits(x[j]) << std::dec << " clip=" << clip
                                       << " call size " << call_of[j] << " offset " << offset[j];
    }
  }
}

void check_half_to_float(const HalfForms& f) {
  const std::vector<float16>& h = all_halves();
  std::vector<float> out(h.size());
  for (size_t call : kCallSizes) {
    for_each_call(h.size(), call, [&](size_t at, size_t n) { f.h2f(h.data() + at, out.data() + at, n); });
    for (size_t i = 0; i < h.size(); ++i)
      ASSERT_EQ(bits(out[i]), ref_half_to_float(h[i].val)) << std::hex << "h=0x" << h[i].val << std::dec << " call size " << call;
  }
}

// ---- tests -----------------------------------------------------------------------------

__attribute__((target("f16c"))) uint32_t f16c_half_to_float(uint16_t h) {
  return bits(_mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(h))));
}

__attribute__((target("f16c"))) uint16_t f16c_float_to_half(float x) {
  return static_cast<uint16_t>(_mm_extract_epi16(_mm_cvtps_ph(_mm_set_ss(x), _MM_FROUND_TO_NEAREST_INT), 0));
}

// The transcription is what FBGEMM's build computes: the F16C instructions.
TEST(HalfConversionFbgemm, TranscriptionIsF16c) {
  if (!fbgemmHasAvx2Support()) GTEST_SKIP() << "needs F16C (AVX2 CPUs have it)";
  for (uint32_t h = 0; h < 0x10000; ++h)
    ASSERT_EQ(ref_half_to_float(static_cast<uint16_t>(h)), f16c_half_to_float(static_cast<uint16_t>(h))) << h;
  for (float x : floats()) ASSERT_EQ(ref_float_to_half(x), f16c_float_to_half(x)) << std::hex << bits(x);
}

// cpu_half2float / cpu_float2half(_rn) are the F16C forms; cpu_half2float_ref is FBGEMM's
// portable form, which differs only in turning every NaN into 0x7fffffff.
TEST(HalfConversionFbgemm, Scalars) {
  for (uint32_t u = 0; u < 0x10000; ++u) {
    const float16 h{static_cast<uint16_t>(u)};
    const uint32_t want = ref_half_to_float(h.val);
    ASSERT_EQ(bits(cpu_half2float(h)), want) << u;
    const bool nan = (u & 0x7c00) == 0x7c00 && (u & 0x3ff) != 0;
    ASSERT_EQ(bits(cpu_half2float_ref(h)), nan ? 0x7fffffffu : want) << u;
  }
  for (float x : floats()) {
    ASSERT_EQ(cpu_float2half(x).val, ref_float_to_half(x)) << std::hex << bits(x);
    ASSERT_EQ(cpu_float2half_rn(x).val, ref_float_to_half(x)) << std::hex << bits(x);
  }
}

TEST(HalfConversionFbgemm, FloatToFloat16EveryFormAndPath) { for_each_form_and_path(check_float_to_half); }

TEST(HalfConversionFbgemm, Float16ToFloatEveryFormAndPath) { for_each_form_and_path(check_half_to_float); }

// The clipped NaN at known offsets: 17 NaNs in one call are +65504 at offsets 0..15 and
// -65504 at 16 (17 % 8 = 1 left to _ref), on every path; _ref gives -65504 everywhere.
TEST(HalfConversionFbgemm, ClippedNaNByPosition) {
  const std::vector<float> nan(17, from_bits(0xffc12345u));
  std::vector<float16> out(nan.size());
  for_each_form_and_path([&](const HalfForms& f) {
    f.f2h(nan.data(), out.data(), nan.size(), true);
    for (size_t i = 0; i < out.size(); ++i)
      EXPECT_EQ(out[i].val, f.form == Form::vector && i < 16 ? 0x7bff : 0xfbff) << i;
  });
}

// RoundToFloat16 converts the whole array with the _simd forms; clamp_denorms makes
// |y| < 2^-14 (an fp16 subnormal result) +0.
uint32_t want_round(size_t j, bool clamp, bool clamp_denorms, size_t i, size_t n) {
  const uint32_t y = ref_half_to_float(want_half(Form::vector, j, clamp, i, n));
  if (clamp_denorms && std::abs(from_bits(y)) < 0x1p-14f) return 0;
  return y;
}

// RoundToFloat16 in its four modes, in place and not, against the transcription.
TEST(HalfConversionFbgemm, RoundToFloat16FourModes) {
  const std::vector<float>& x = floats();
  std::vector<float> out(x.size()), in_place;
  std::vector<uint32_t> want(x.size());
  for (const IsaCase& c : all_isas()) {
    if (skip_unsupported(c)) continue;
    ScopedIsa isa(c.isa);
    SCOPED_TRACE(instSetName(c.isa));
    for (int mode = 0; mode < 4; ++mode) {
      const bool clamp = mode & 1, clamp_denorms = mode & 2;
      for (size_t call : {size_t{1}, size_t{9}, size_t{17}, size_t{1027}, size_t{0}}) {
        in_place = x;
        for_each_call(x.size(), call, [&](size_t at, size_t n) {
          RoundToFloat16(x.data() + at, out.data() + at, n, clamp, clamp_denorms);
          RoundToFloat16(in_place.data() + at, in_place.data() + at, n, clamp, clamp_denorms);
          for (size_t i = 0; i < n; ++i) want[at + i] = want_round(at + i, clamp, clamp_denorms, i, n);
        });
        for (size_t j = 0; j < x.size(); ++j) {
          ASSERT_EQ(bits(out[j]), want[j]) << std::hex << "x=0x" << bits(x[j]) << std::dec << " clamp=" << clamp
                                           << " clamp_denorms=" << clamp_denorms << " calls of " << call;
          ASSERT_EQ(bits(in_place[j]), want[j]);
        }
      }
    }
  }
}

}  // namespace
}  // namespace quire::test
