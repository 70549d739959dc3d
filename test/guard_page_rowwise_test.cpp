// The fused row-wise formats (embedding tables) with their buffers flush against a
// PROT_NONE page (test/guard_alloc.h), at the end and then at the start, on every
// quantization path the CPU has, sized as FBGEMM's callers size them:
//   8-bit:      a fused row is cols + 2 * sizeof(float) bytes (codes, float scale, float bias)
//   4- / 2-bit: a fused row is ceil(cols * bit_rate / 8) + 2 * sizeof(float16) bytes
// The quantizers take input_columns = values per row; the dequantizers take
// input_columns = the fused row width in bytes and write
//   8-bit: width - 8 values,  N-bit: (width - 4) * (8 / bit_rate) values
// per row (FBGEMM's meaning). Results are compared with the portable (...Ref) forms
// called the same way.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <random>
#include <string>
#include <vector>

#include "guard_alloc.h"
#include "quant_test_util.h"
#include "quire/QuantUtils.h"

namespace quire::test {
namespace {

const int kCols[] = {1, 2, 3, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 127};
const size_t kRows[] = {1, 3};

template <class In>
std::vector<In> row_values(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-3.0f, 5.0f);
  std::vector<In> v(n);
  for (In& x : v) {
    if constexpr (std::is_same_v<In, float16>) x = cpu_float2half_rn(dist(gen));
    else x = dist(gen);
  }
  return v;
}

int nbit_width(int cols, int bit_rate) {
  const int per_byte = 8 / bit_rate;
  return (cols + per_byte - 1) / per_byte + 2 * int(sizeof(float16));
}

template <class T>
::testing::AssertionResult same(const std::vector<T>& want, const GuardedArray<T>& got) {
  if (want.size() != got.size()) return ::testing::AssertionFailure() << "sizes differ";
  if (!want.empty() && std::memcmp(want.data(), got.data(), want.size() * sizeof(T)) != 0)
    return ::testing::AssertionFailure() << "bytes differ";
  return ::testing::AssertionSuccess();
}

template <class In>
void quantize_rows(size_t rows, int cols, Guard g, uint32_t seed) {
  const std::vector<In> in_v = row_values<In>(rows * size_t(cols), seed);
  const GuardedArray<In> in(in_v, g);
  {
    const size_t width = size_t(cols) + 2 * sizeof(float);
    GuardedArray<uint8_t> out(rows * width, g);
    FloatOrHalfToFused8BitRowwiseQuantizedSBFloat<In>(in.data(), rows, cols, out.data());
    std::vector<uint8_t> want(rows * width);
    FloatOrHalfToFused8BitRowwiseQuantizedSBFloatRef<In>(in_v.data(), rows, cols, want.data());
    EXPECT_TRUE(same(want, out)) << "8-bit";
  }
  std::vector<In> minmax_v(rows * kRowwiseMinMaxNumCols);
  for (size_t r = 0; r < rows; ++r) {
    float lo = 1e30f, hi = -1e30f;
    for (int c = 0; c < cols; ++c) {
      const In x = in_v[r * size_t(cols) + size_t(c)];
      float v;
      if constexpr (std::is_same_v<In, float16>) v = cpu_half2float(x);
      else v = x;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    if constexpr (std::is_same_v<In, float16>) {
      minmax_v[2 * r] = cpu_float2half_rn(lo);
      minmax_v[2 * r + 1] = cpu_float2half_rn(hi);
    } else {
      minmax_v[2 * r] = lo;
      minmax_v[2 * r + 1] = hi;
    }
  }
  const GuardedArray<In> minmax(minmax_v, g);
  for (int bit_rate : {2, 4, 8}) {
    const size_t width = size_t(nbit_width(cols, bit_rate));
    GuardedArray<uint8_t> out(rows * width, g), out_mm(rows * width, g);
    if (cols % (8 / bit_rate) != 0) {  // FBGEMM's refusal of a partly filled last byte
      EXPECT_THROW(FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf<In>(bit_rate, in.data(), rows,
                                                                    cols, out.data()),
                   std::runtime_error);
      continue;
    }
    FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf<In>(bit_rate, in.data(), rows, cols, out.data());
    FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf<In>(bit_rate, in.data(), rows, cols,
                                                     out_mm.data(), minmax.data());
    std::vector<uint8_t> want(rows * width);
    FloatOrHalfToFusedNBitRowwiseQuantizedSBHalfRef<In>(bit_rate, in_v.data(), rows, cols,
                                                        want.data());
    EXPECT_TRUE(same(want, out)) << bit_rate << "-bit";
  }
}

TEST(GuardPageRowwise, QuantizeToFusedRowsOnEveryPath) {
  for_each_isa([] {
    uint32_t seed = 3;
    for (Guard g : kGuards)
      for (size_t rows : kRows)
        for (int cols : kCols) {
          SCOPED_TRACE(std::string(guard_name(g)) + " rows=" + std::to_string(rows) +
                       " cols=" + std::to_string(cols));
          quantize_rows<float>(rows, cols, g, ++seed);
          quantize_rows<float16>(rows, cols, g, ++seed);
          if (HasFailure()) return;
        }
  });
}

template <class Out>
void dequantize_rows(size_t rows, int cols, Guard g, uint32_t seed) {
  const std::vector<float> values = row_values<float>(rows * size_t(cols), seed);
  {
    const int width = cols + 2 * int(sizeof(float));
    std::vector<uint8_t> fused(rows * size_t(width));
    FloatOrHalfToFused8BitRowwiseQuantizedSBFloatRef<float>(values.data(), rows, cols, fused.data());
    const GuardedArray<uint8_t> in(fused, g);
    const size_t out_cols = size_t(width) - 2 * sizeof(float);
    GuardedArray<Out> out(rows * out_cols, g);
    Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf<Out>(in.data(), rows, width, out.data());
    std::vector<Out> want(rows * out_cols);
    Fused8BitRowwiseQuantizedSBFloatToFloatOrHalfRef<Out>(fused.data(), rows, width, want.data());
    EXPECT_TRUE(same(want, out)) << "8-bit";
  }
  for (int bit_rate : {2, 4, 8}) {
    const int width = nbit_width(cols, bit_rate);
    std::vector<uint8_t> fused(rows * size_t(width));
    FloatOrHalfToFusedNBitRowwiseQuantizedSBHalfRef<float>(bit_rate, values.data(), rows, cols,
                                                           fused.data());
    const GuardedArray<uint8_t> in(fused, g);
    const size_t out_cols = size_t(width - 2 * int(sizeof(float16))) * size_t(8 / bit_rate);
    for (bool last : {true, false}) {
      GuardedArray<Out> out(rows * out_cols, g);
      FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf<Out>(bit_rate, in.data(), rows, width,
                                                        out.data(), last);
      std::vector<Out> want(rows * out_cols);
      FusedNBitRowwiseQuantizedSBHalfToFloatOrHalfRef<Out>(bit_rate, fused.data(), rows, width,
                                                           want.data(), last);
      EXPECT_TRUE(same(want, out)) << bit_rate << "-bit, scale_bias_last " << last;
    }
  }
}

// The defect this test was written for: the dequantizers once read input_columns as the
// number of values (not FBGEMM's fused row width) and wrote 8 (or 4 * 8 / bit_rate) values
// per row past a buffer sized the FBGEMM way, which this test catches as SIGSEGV.
TEST(GuardPageRowwise, DequantizeFusedRowsGivenTheirWidthOnEveryPath) {
  for_each_isa([] {
    uint32_t seed = 300;
    for (Guard g : kGuards)
      for (size_t rows : kRows)
        for (int cols : kCols) {
          SCOPED_TRACE(std::string(guard_name(g)) + " rows=" + std::to_string(rows) +
                       " cols=" + std::to_string(cols));
          dequantize_rows<float>(rows, cols, g, ++seed);
          dequantize_rows<float16>(rows, cols, g, ++seed);
          if (HasFailure()) return;
        }
  });
}

}  // namespace
}  // namespace quire::test
