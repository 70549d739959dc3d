// Differential fuzzer for the fused row-wise formats (embedding tables): the input
// chooses the ISA path, the format (8-bit with float scale / bias, or 2 / 4 / 8-bit with
// half scale / bias), float or half values, the row count and width, the output type and
// scale_bias_last; the rest of the input is the values (raw bits) and then arbitrary fused
// bytes. Buffers are sized as FBGEMM's callers size them: a fused row is
//   8-bit SBFloat: cols + 8 bytes;  N-bit SBHalf: ceil(cols * bit_rate / 8) + 4 bytes,
// the quantizers take input_columns = cols, the dequantizers the fused width in bytes.
// Checked: the vectorized forms give the portable (...Ref) forms' bytes in both
// directions, on quantized rows and on arbitrary fused bytes; and for finite values of
// moderate size the round trip stays within half a quantization step plus the rounding
// of the stored scale and bias:
//   |x - deq(q(x))| <= scale * (1/2 + levels * 2^-10) + max|x| * 2^-9 + 2^-14
// (levels = 2^bit_rate - 1; the half-precision scale may round down by 2^-11 relative,
// so the top code falls up to levels * scale * 2^-11 short of the row's max; the bias is
// the row's min rounded to half, and a half output rounds again: 2^-11 relative each).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "fuzz_util.h"
#include "quire/QuantUtils.h"

namespace quire::fuzz {
namespace {

float to_float(float x) { return x; }
float to_float(float16 x) { return cpu_half2float(x); }

template <class In>
std::vector<In> values(FuzzedDataProvider& in, size_t n, bool moderate) {
  std::vector<In> v(n);
  for (In& x : v) {
    float f;
    if (moderate) {
      f = float(in.ConsumeIntegralInRange<int32_t>(-1000000, 1000000)) * 1e-3f;
    } else {
      const uint32_t bits = in.ConsumeIntegral<uint32_t>();
      std::memcpy(&f, &bits, sizeof(f));
    }
    if constexpr (std::is_same_v<In, float16>) x = cpu_float2half_rn(f);
    else x = f;
  }
  return v;
}

template <class T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

template <class In, class Out>
void round_trip(FuzzedDataProvider& in, int bit_rate, bool sb_float, size_t rows, int cols,
          bool moderate, bool last) {
  const std::vector<In> x = values<In>(in, rows * size_t(cols), moderate);
  const int per_byte = 8 / bit_rate;
  const int width = sb_float ? cols + 8 : (cols + per_byte - 1) / per_byte + 4;
  const size_t out_cols = sb_float ? size_t(cols) : size_t(width - 4) * per_byte;
  std::vector<uint8_t> fused(rows * size_t(width)), fused_ref(fused.size());
  if (sb_float) {
    FloatOrHalfToFused8BitRowwiseQuantizedSBFloat<In>(x.data(), rows, cols, fused.data());
    FloatOrHalfToFused8BitRowwiseQuantizedSBFloatRef<In>(x.data(), rows, cols, fused_ref.data());
  } else if (cols % per_byte != 0) {
    // FBGEMM's quantizer refuses a partly filled last byte; the Ref form computes it.
    bool refused = false;
    try {
      FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf<In>(bit_rate, x.data(), rows, cols,
                                                       fused.data());
    } catch (const std::runtime_error&) {
      refused = true;
    }
    FUZZ_CHECK(refused);
    FloatOrHalfToFusedNBitRowwiseQuantizedSBHalfRef<In>(bit_rate, x.data(), rows, cols,
                                                        fused_ref.data());
    fused = fused_ref;
  } else {
    FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf<In>(bit_rate, x.data(), rows, cols, fused.data());
    FloatOrHalfToFusedNBitRowwiseQuantizedSBHalfRef<In>(bit_rate, x.data(), rows, cols,
                                                        fused_ref.data());
  }
  FUZZ_CHECK(same_bytes(fused, fused_ref));

  // Dequantize the quantized rows, then arbitrary fused bytes from the input.
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      for (uint8_t& b : fused) b = in.ConsumeIntegral<uint8_t>();
      last = last || sb_float;
    }
    std::vector<Out> got(rows * out_cols), want(got.size());
    if (sb_float) {
      Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf<Out>(fused.data(), rows, width, got.data());
      Fused8BitRowwiseQuantizedSBFloatToFloatOrHalfRef<Out>(fused.data(), rows, width, want.data());
    } else {
      FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf<Out>(bit_rate, fused.data(), rows, width,
                                                        got.data(), pass == 0 || last);
      FusedNBitRowwiseQuantizedSBHalfToFloatOrHalfRef<Out>(bit_rate, fused.data(), rows, width,
                                                           want.data(), pass == 0 || last);
    }
    FUZZ_CHECK(same_bytes(got, want));
    if (pass == 1 || !moderate) continue;
    const float levels = float((1 << bit_rate) - 1);
    for (size_t r = 0; r < rows; ++r) {
      const uint8_t* sb = fused.data() + r * size_t(width) + (width - (sb_float ? 8 : 4));
      float scale;
      if (sb_float) {
        std::memcpy(&scale, sb, 4);
      } else {
        float16 s;
        std::memcpy(&s, sb, 2);
        scale = cpu_half2float(s);
      }
      double mag = 0;  // the row's largest magnitude
      for (int c = 0; c < cols; ++c) mag = std::max(mag, std::fabs(double(to_float(x[r * cols + c]))));
      // Half outputs add their own rounding, 2^-11 relative: inside the 2^-9 term.
      const double bound = double(scale) * (0.5 + levels * 0x1p-10) + mag * 0x1p-9 + 0x1p-14;
      for (int c = 0; c < cols; ++c) {
        const double err = std::fabs(double(to_float(x[r * cols + c])) -
                                     double(to_float(got[r * out_cols + c])));
        FUZZ_CHECK(err <= bound);
      }
    }
  }
}

}  // namespace
}  // namespace quire::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace quire;
  using namespace quire::fuzz;
  FuzzedDataProvider in(data, size);
  ScopedIsa isa(pick_isa(in));
  const int format = in.ConsumeIntegralInRange(0, 3);  // SBFloat, or SBHalf with 2 / 4 / 8 bits
  const bool sb_float = format == 0;
  const int bit_rate = sb_float ? 8 : 1 << format;
  const bool half_in = in.ConsumeBool(), half_out = in.ConsumeBool();
  const size_t rows = in.ConsumeIntegralInRange<size_t>(0, 6);
  const int cols = in.ConsumeIntegralInRange(0, 140);
  const bool moderate = in.ConsumeBool(), last = in.ConsumeBool();
  if (half_in) {
    if (half_out) round_trip<float16, float16>(in, bit_rate, sb_float, rows, cols, moderate, last);
    else round_trip<float16, float>(in, bit_rate, sb_float, rows, cols, moderate, last);
  } else {
    if (half_out) round_trip<float, float16>(in, bit_rate, sb_float, rows, cols, moderate, last);
    else round_trip<float, float>(in, bit_rate, sb_float, rows, cols, moderate, last);
  }
  return 0;
}
