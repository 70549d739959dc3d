// The fused row-wise formats of QuantUtils (8-bit codes with a float scale and bias per
// row, 2/4/8-bit codes with a half scale and bias): quantizing from float and half, and
// dequantizing to float, half and bfloat16, on every ISA path and by the Ref functions,
// against the row formulas written out independently here, bit for bit. Rows with NaN,
// inf, constant values and tiny or huge ranges; given per-row min/max; scale and bias first;
// half scale and bias in the 8-bit format. The dequantizers are called as FBGEMM's callers
// call them: input_columns is the fused row's width in bytes, and every output buffer is
// sized exactly from FBGEMM's documented sizes (so ASan catches a stride error).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "quant_test_util.h"
#include "quire/QuantUtils.h"

namespace quire::test {
namespace {

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
      float s = cpu_half2float(cpu_float2half_rn(range == 0 ? 1.0f : range / float((1 << bits) - 1)));
      if (s == 0) s = 1.0f;
      inv = 1.0f / s;
      if (std::isinf(inv)) s = inv = 1.0f;
      scale_h = cpu_float2half_rn(s);
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

// Dequantizes rows of `width` bytes (codes, then scale and bias of sb bytes each pair):
// (width - sb) * (8 / bits) values per row, x = fma(q, scale, bias).
std::vector<float> ref_unrowwise(const std::vector<uint8_t>& in, int rows, int width, int bits,
                                 int sb, bool half_sb) {
  const int per_byte = 8 / bits, bytes = width - sb, cols = bytes * per_byte;
  std::vector<float> out(size_t(rows) * cols);
  for (int r = 0; r < rows; ++r) {
    const uint8_t* row = in.data() + size_t(r) * width;
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
      out[size_t(r) * cols + j] = std::fma(
          float((row[j / per_byte] >> (j % per_byte * bits)) & ((1 << bits) - 1)), scale, bias);
  }
  return out;
}

// Rows of `width` bytes with the scale and bias (sb bytes) moved before the codes.
std::vector<uint8_t> scale_bias_first(const std::vector<uint8_t>& in, int rows, int width, int sb) {
  std::vector<uint8_t> out(in.size());
  for (int r = 0; r < rows; ++r) {
    const uint8_t* src = in.data() + size_t(r) * width;
    std::memcpy(out.data() + size_t(r) * width, src + width - sb, size_t(sb));
    std::memcpy(out.data() + size_t(r) * width + sb, src, size_t(width - sb));
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
  if (half_sb && cols % (8 / bits) != 0) {
    // FBGEMM's quantizer refuses a partly filled last byte; the Ref form computes it.
    EXPECT_THROW(FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf(bits, data.data(), rows, cols,
                                                              got.data()),
                 std::runtime_error);
    FloatOrHalfToFusedNBitRowwiseQuantizedSBHalfRef(bits, data.data(), rows, cols, got_ref.data());
    FloatOrHalfToFusedNBitRowwiseQuantizedSBHalfRef(bits, data_h.data(), rows, cols, got_h.data());
    got = got_ref;
  } else if (half_sb) {
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
  // Dequantize as FBGEMM's callers do: input_columns is the fused row width.
  const int sb = half_sb ? 4 : 8, width = (cols * bits + 7) / 8 + sb;
  const auto back = ref_unrowwise(expect, rows, width, bits, sb, half_sb);
  std::vector<float> f(back.size()), f_ref(back.size()), f_first(back.size());
  std::vector<float16> h(back.size()), h_expect(back.size());
  std::vector<bfloat16> b(back.size()), b_expect(back.size());
  for (size_t i = 0; i < back.size(); ++i)
    h_expect[i] = cpu_float2half_rn(back[i]), b_expect[i] = cpu_float2bfloat16(back[i]);
  const auto first = scale_bias_first(expect, rows, width, sb);
  if (half_sb) {
    FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf(bits, expect.data(), rows, width, f.data());
    FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf(bits, expect.data(), rows, width, h.data());
    FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf(bits, expect.data(), rows, width, b.data());
    FusedNBitRowwiseQuantizedSBHalfToFloatOrHalfRef(bits, expect.data(), rows, width, f_ref.data());
    FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf(bits, first.data(), rows, width, f_first.data(),
                                                 false);
  } else {
    Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf(expect.data(), rows, width, f.data());
    Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf(expect.data(), rows, width, h.data());
    Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf(expect.data(), rows, width, b.data());
    Fused8BitRowwiseQuantizedSBFloatToFloatOrHalfRef(expect.data(), rows, width, f_ref.data());
    Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf(first.data(), rows, width, f_first.data(), false);
  }
  ASSERT_TRUE(same_bits(back, f));
  ASSERT_TRUE(same_bits(back, f_ref));
  ASSERT_TRUE(same_bits(back, f_first));
  ASSERT_TRUE(same_bits(bits16(h_expect), bits16(h)));
  ASSERT_TRUE(same_bits(bits16(b_expect), bits16(b)));
}

// The 8-bit format with half scale and bias (quant_padding_float_type = false): rows of
// cols + 4 bytes, x = fma(q, half scale, half bias), scale and bias last or first.
void check_8bit_half_padding(int rows, int cols) {
  SCOPED_TRACE("cols " + std::to_string(cols));
  const int width = cols + 4;
  auto fused = random_vector<uint8_t>(size_t(rows) * width, 0, 255, 7 + cols);
  for (int r = 0; r < rows; ++r) {
    const float16 sb[2] = {cpu_float2half_rn(0.01f * (r + 1)), cpu_float2half_rn(-1.5f + r)};
    std::memcpy(fused.data() + size_t(r) * width + cols, sb, 4);
  }
  const auto expect = ref_unrowwise(fused, rows, width, 8, 4, true);
  std::vector<float> got(expect.size()), got_ref(expect.size()), got_first(expect.size());
  Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf(fused.data(), rows, width, got.data(), true, false);
  Fused8BitRowwiseQuantizedSBFloatToFloatOrHalfRef(fused.data(), rows, width, got_ref.data(), true,
                                                   false);
  const auto first = scale_bias_first(fused, rows, width, 4);
  Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf(first.data(), rows, width, got_first.data(), false,
                                                false);
  ASSERT_TRUE(same_bits(expect, got));
  ASSERT_TRUE(same_bits(expect, got_ref));
  ASSERT_TRUE(same_bits(expect, got_first));
}

TEST(Rowwise, EightBitWithHalfScaleAndBias) {
  for_each_isa([] {
    for (int cols : {0, 1, 3, 17, 63, 65}) check_8bit_half_padding(5, cols);
  });
}

// A fused row too narrow for its scale and bias has a negative value count: rejected.
TEST(Rowwise, DequantizeRejectsRowsWithoutScaleAndBias) {
  std::vector<uint8_t> in(16);
  std::vector<float> out(16);
  expect_invalid([&] { Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf(in.data(), 1, 7, out.data()); },
                 "input_columns");
  expect_invalid(
      [&] { FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf(4, in.data(), 1, 3, out.data()); },
      "input_columns");
}

TEST(Rowwise, MatchesFormulasOnEveryPath) {
  for_each_isa([] {
    // Around the kernels' steps of 4 vectors (32 columns on AVX2, 64 on AVX-512) and
    // their partial last step.
    for (int cols : {0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 129, 1023}) {
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
  Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf(q.data(), 1, 58, back.data());
  for (int j = 0; j < 50; ++j) EXPECT_NEAR(back[j], row[j], 6.0 / 255 * 0.51);
}

}  // namespace
}  // namespace quire::test
