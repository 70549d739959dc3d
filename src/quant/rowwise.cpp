// The fused row-wise formats of embedding tables, with FBGEMM's per-row formulas.
//
// 8-bit, float scale and bias (cols + 8 bytes per row: codes, scale, bias):
//   min, max = the row's (FindMinMax; rowwise_min_max if given); a row with no
//   columns or nothing but NaN uses 0, 0
//   range = max - min, scale = range / 255, bias = min, inv = 255 / (range + 1e-8f)
//   q = clamp(nearbyint((x - bias) * inv), 0, 255), NaN -> 0
// N-bit (2, 4, 8), half scale and bias (ceil(cols * bit_rate / 8) + 4 bytes per row; the
// table's nbit_block_params, formula in quant_kernels.h):
//   bias = half(min) (round to nearest even), read back as float; range = max - bias
//   scale = range == 0 ? 1 : range / (2^bit_rate - 1), rounded to half and read back;
//   0 (underflow) becomes 1, and so does a scale whose reciprocal is infinite;
//   inv = 1 / scale, stored scale = half(scale)
//   q = clamp(nearbyint((x - bias) * inv), 0, 2^bit_rate - 1), NaN -> 0
//   (range can be negative when min rounds up to a half above max: FBGEMM then stores
//   the negative scale, and so does quire.)
// Dequantize: x = fma(q, scale, bias), rounded once to float, then rounded to the output
// type (cpu_float2half_rn / cpu_float2bfloat16 bits). The dequantizers take FBGEMM's
// input_columns, the bytes of one fused row, and derive the values per row from it.
// All the arithmetic is done in this file or by the kernels' exact formulas, so every
// ISA gives the same bytes.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "quant/checks.h"
#include "quant/kernel_select.h"
#include "quire/QuantUtils.h"

namespace quire {
namespace {

using detail::QuantKernels;

// Half rows are converted to float (or back) in this per-thread buffer, in L1.
float* row_buffer(size_t count) {
  thread_local std::vector<float> buffer;
  if (buffer.size() < count) buffer.resize(count);
  return buffer.data();
}

// The quantizers take rows in blocks of kRowBlock: the min / max of every row, then the
// block's scales and biases (one vector operation per step of the formula on the vector
// paths), then every row's codes, so the rows' serial chains (the min / max reduction,
// the divisions and half conversions) overlap. A block has at most 4096 floats (16 KiB,
// in L1 between the passes): wider rows go one at a time.
constexpr size_t kMaxRowBlock = detail::kRowBlock;
size_t rows_per_block(int cols) {
  return std::clamp<size_t>(4096 / static_cast<size_t>(std::max(cols, 1)), 1, kMaxRowBlock);
}

template <class In>
float to_float(In v) {
  if constexpr (std::is_same_v<In, float>) {
    return v;
  } else {
    return cpu_half2float(v);
  }
}

// n rows of cols values as floats: the input itself, or converted in the row buffer.
template <class In>
const float* rows_as_float(const QuantKernels& k, const In* rows, size_t n, int cols) {
  if constexpr (std::is_same_v<In, float>) {
    return rows;
  } else {
    const size_t count = n * static_cast<size_t>(cols);
    float* buffer = row_buffer(count);
    k.half_to_float(rows, buffer, static_cast<int64_t>(count));
    return buffer;
  }
}

// The row's (min, max): given, or found with NaN ignored; (0, 0) when there is none.
template <class In>
std::pair<float, float> row_range(const QuantKernels& k, const char* where, const float* row,
                                  int cols, const In* rowwise_min_max, size_t r) {
  if (rowwise_min_max != nullptr) {
    const float lo = to_float(rowwise_min_max[r * kRowwiseMinMaxNumCols]);
    const float hi = to_float(rowwise_min_max[r * kRowwiseMinMaxNumCols + 1]);
    if (!(lo <= hi)) {
      const std::string name = "rowwise_min_max[" + std::to_string(r) + "]";
      detail::fail_float(where, name.c_str(), lo, "(min) must be <= max and not NaN");
    }
    return {lo, hi};
  }
  float lo = 0, hi = 0;
  k.find_min_max(row, cols, &lo, &hi);
  if (!(lo <= hi)) return {0.0f, 0.0f};
  return {lo, hi};
}

// Dequantizes a row into out, through the float buffer when Out is a 16-bit type.
template <class Out>
void dequantize_row(const QuantKernels& k, const uint8_t* codes, int cols, int bit_rate,
                    float scale, float bias, Out* out) {
  if constexpr (std::is_same_v<Out, float>) {
    k.rowwise_dequantize(codes, cols, bit_rate, scale, bias, out);
  } else {
    float* buffer = row_buffer(static_cast<size_t>(cols));
    k.rowwise_dequantize(codes, cols, bit_rate, scale, bias, buffer);
    if constexpr (std::is_same_v<Out, bfloat16>) {
      k.float_to_bfloat16(buffer, out, cols);
    } else {
      k.float_to_half(buffer, out, cols);
    }
  }
}

// The values side (float or half) is empty when rows or cols is 0; the fused side has
// scale and bias even for 0 columns.
void check_shape(const char* where, size_t rows, int cols, const void* values,
                 const char* values_name, const void* fused, const char* fused_name) {
  detail::check_arg(cols >= 0, where, "input_columns", cols, "must be >= 0");
  if (rows > 0 && cols > 0) detail::check_not_null(values, where, values_name);
  if (rows > 0) detail::check_not_null(fused, where, fused_name);
}

void check_bit_rate(const char* where, int bit_rate) {
  detail::check_arg(bit_rate == 2 || bit_rate == 4 || bit_rate == 8, where, "bit_rate", bit_rate,
                    "must be 2, 4 or 8");
}

int code_bytes(int cols, int bit_rate) {
  const int per_byte = 8 / bit_rate;
  return (cols + per_byte - 1) / per_byte;
}

// Runs body(r0, n, x, lo, hi) on the rows in blocks of rows_per_block: x the block's n
// rows as float (cols apart), lo / hi each row's range (rowwise_min_max's, or the row's
// own min and max), zero past n.
template <class In, class Body>
void for_row_blocks(const QuantKernels& k, const char* where, const In* input, size_t rows,
                    int cols, const In* rowwise_min_max, Body&& body) {
  const auto width = static_cast<size_t>(cols);
  const size_t block = rows_per_block(cols);
  for (size_t r0 = 0; r0 < rows; r0 += block) {
    const size_t n = std::min(block, rows - r0);
    const float* x = rows_as_float(k, input + r0 * width, n, cols);
    float lo[kMaxRowBlock] = {}, hi[kMaxRowBlock] = {};
    for (size_t i = 0; i < n; ++i)
      std::tie(lo[i], hi[i]) = row_range(k, where, x + i * width, cols, rowwise_min_max, r0 + i);
    body(r0, n, x, lo, hi);
  }
}

template <class In>
void to_nbit(const QuantKernels& k, int bit_rate, const In* input, size_t rows, int cols,
             uint8_t* output, const In* rowwise_min_max) {
  constexpr const char* kWhere = "FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf";
  check_bit_rate(kWhere, bit_rate);
  check_shape(kWhere, rows, cols, input, "input", output, "output");
  const int bytes = code_bytes(cols, bit_rate);
  const auto width = static_cast<size_t>(cols);
  for_row_blocks(k, kWhere, input, rows, cols, rowwise_min_max,
                 [&](size_t r0, size_t n, const float* x, float* lo, float* hi) {
                   detail::NBitBlockParams p;
                   k.nbit_block_params(lo, hi, bit_rate, &p);
                   for (size_t i = 0; i < n; ++i) {
                     uint8_t* out = output + (r0 + i) * static_cast<size_t>(bytes + 2 * sizeof(float16));
                     k.rowwise_quantize(x + i * width, cols, bit_rate, p.bias[i], p.inv_scale[i], out);
                     std::memcpy(out + bytes, &p.scale_bias[i], sizeof(p.scale_bias[i]));
                   }
                 });
}

// Bytes of a fused row -> values per row; throws when the row cannot hold its scale and
// bias (FBGEMM would compute a negative count).
int dequantized_columns(const char* where, int input_columns, int scale_bias_bytes,
                        int per_byte) {
  detail::check_arg(input_columns >= scale_bias_bytes, where, "input_columns", input_columns,
                    scale_bias_bytes == 4 ? "must be >= 4 (the fused row's scale and bias)"
                                          : "must be >= 8 (the fused row's scale and bias)");
  return (input_columns - scale_bias_bytes) * per_byte;
}

template <class Out>
void from_nbit(const QuantKernels& k, int bit_rate, const uint8_t* input, size_t rows,
               int input_columns, Out* output, bool scale_bias_last) {
  constexpr const char* kWhere = "FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf";
  check_bit_rate(kWhere, bit_rate);
  constexpr int kScaleBias = 2 * sizeof(float16);
  const int cols = dequantized_columns(kWhere, input_columns, kScaleBias, 8 / bit_rate);
  check_shape(kWhere, rows, cols, output, "output", input, "input");
  const int bytes = input_columns - kScaleBias;
  for (size_t r = 0; r < rows; ++r) {
    const uint8_t* in = input + r * static_cast<size_t>(input_columns);
    const uint8_t* scale_bias = scale_bias_last ? in + bytes : in;
    const uint8_t* codes = scale_bias_last ? in : in + kScaleBias;
    float16 scale_h, bias_h;
    std::memcpy(&scale_h, scale_bias, sizeof(scale_h));
    std::memcpy(&bias_h, scale_bias + sizeof(scale_h), sizeof(bias_h));
    dequantize_row<Out>(k, codes, cols, bit_rate, cpu_half2float(scale_h), cpu_half2float(bias_h),
                        output + r * static_cast<size_t>(cols));
  }
}

template <class In>
void to_8bit(const QuantKernels& k, const In* input, size_t rows, int cols, uint8_t* output,
             const In* rowwise_min_max) {
  constexpr const char* kWhere = "FloatOrHalfToFused8BitRowwiseQuantizedSBFloat";
  check_shape(kWhere, rows, cols, input, "input", output, "output");
  const auto width = static_cast<size_t>(cols);
  for_row_blocks(k, kWhere, input, rows, cols, rowwise_min_max,
                 [&](size_t r0, size_t n, const float* x, const float* bias, const float* hi) {
                   // A loop of its own over the whole block, so that it compiles to vector
                   // divisions.
                   float scale[kMaxRowBlock], inv_scale[kMaxRowBlock];
                   for (size_t i = 0; i < kMaxRowBlock; ++i) {
                     const float range = hi[i] - bias[i];
                     scale[i] = range / 255.0f;
                     inv_scale[i] = 255.0f / (range + 1e-8f);
                   }
                   for (size_t i = 0; i < n; ++i) {
                     uint8_t* out = output + (r0 + i) * (width + 2 * sizeof(float));
                     k.rowwise_quantize(x + i * width, cols, 8, bias[i], inv_scale[i], out);
                     std::memcpy(out + cols, &scale[i], sizeof(float));
                     std::memcpy(out + cols + sizeof(float), &bias[i], sizeof(float));
                   }
                 });
}

// Scale and bias are two floats, or two halves when padding_float is false.
template <class Out>
void from_8bit(const QuantKernels& k, const uint8_t* input, size_t rows, int input_columns,
               Out* output, bool scale_bias_last, bool padding_float) {
  constexpr const char* kWhere = "Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf";
  const int pad = padding_float ? sizeof(float) : sizeof(float16);
  const int cols = dequantized_columns(kWhere, input_columns, 2 * pad, 1);
  check_shape(kWhere, rows, cols, output, "output", input, "input");
  for (size_t r = 0; r < rows; ++r) {
    const uint8_t* in = input + r * static_cast<size_t>(input_columns);
    const uint8_t* scale_bias = scale_bias_last ? in + cols : in;
    const uint8_t* codes = scale_bias_last ? in : in + 2 * pad;
    float scale, bias;
    if (padding_float) {
      std::memcpy(&scale, scale_bias, sizeof(scale));
      std::memcpy(&bias, scale_bias + pad, sizeof(bias));
    } else {
      float16 scale_h, bias_h;
      std::memcpy(&scale_h, scale_bias, sizeof(scale_h));
      std::memcpy(&bias_h, scale_bias + pad, sizeof(bias_h));
      scale = cpu_half2float(scale_h);
      bias = cpu_half2float(bias_h);
    }
    dequantize_row<Out>(k, codes, cols, 8, scale, bias, output + r * static_cast<size_t>(cols));
  }
}

}  // namespace

template <typename InputType>
void FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf(int bit_rate, const InputType* input,
                                                  size_t input_rows, int input_columns,
                                                  uint8_t* output,
                                                  const InputType* rowwise_min_max) {
  // FBGEMM's dequantizers cannot read a row whose last byte is partly filled, so its
  // quantizer refuses such rows with this std::runtime_error (the Ref form computes them).
  check_bit_rate("FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf", bit_rate);
  if (input_columns > 0 && input_columns % (8 / bit_rate) != 0)
    throw std::runtime_error("Unsupported number of columns: input_columns=" +
                             std::to_string(input_columns) + " is not a multiple of " +
                             std::to_string(8 / bit_rate) + " (values per byte at bit_rate " +
                             std::to_string(bit_rate) + ")");
  to_nbit(detail::quant_kernels(), bit_rate, input, input_rows, input_columns, output,
          rowwise_min_max);
}

template <typename OutputType>
void FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf(int bit_rate, const uint8_t* input,
                                                  size_t input_rows, int input_columns,
                                                  OutputType* output, bool scale_bias_last) {
  from_nbit(detail::quant_kernels(), bit_rate, input, input_rows, input_columns, output,
            scale_bias_last);
}

template <typename InputType>
void FloatOrHalfToFused8BitRowwiseQuantizedSBFloat(const InputType* input, size_t input_rows,
                                                   int input_columns, uint8_t* output,
                                                   const InputType* rowwise_min_max) {
  to_8bit(detail::quant_kernels(), input, input_rows, input_columns, output, rowwise_min_max);
}

template <typename OutputType>
void Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf(const uint8_t* input, size_t input_rows,
                                                   int input_columns, OutputType* output,
                                                   const bool scale_bias_last,
                                                   const bool quant_padding_float_type) {
  from_8bit(detail::quant_kernels(), input, input_rows, input_columns, output, scale_bias_last,
            quant_padding_float_type);
}

template <typename InputType>
void FloatOrHalfToFusedNBitRowwiseQuantizedSBHalfRef(int bit_rate, const InputType* input,
                                                     size_t input_rows, int input_columns,
                                                     uint8_t* output) {
  to_nbit<InputType>(detail::kQuantPortable, bit_rate, input, input_rows, input_columns, output,
                     nullptr);
}

template <typename OutputType>
void FusedNBitRowwiseQuantizedSBHalfToFloatOrHalfRef(int bit_rate, const uint8_t* input,
                                                     size_t input_rows, int input_columns,
                                                     OutputType* output, bool scale_bias_last) {
  from_nbit(detail::kQuantPortable, bit_rate, input, input_rows, input_columns, output,
            scale_bias_last);
}

template <typename InputType>
void FloatOrHalfToFused8BitRowwiseQuantizedSBFloatRef(const InputType* input, size_t input_rows,
                                                      int input_columns, uint8_t* output) {
  to_8bit<InputType>(detail::kQuantPortable, input, input_rows, input_columns, output, nullptr);
}

template <typename OutputType>
void Fused8BitRowwiseQuantizedSBFloatToFloatOrHalfRef(const uint8_t* input, size_t input_rows,
                                                      int input_columns, OutputType* output,
                                                      const bool scale_bias_last,
                                                      const bool quant_padding_float_type) {
  from_8bit(detail::kQuantPortable, input, input_rows, input_columns, output, scale_bias_last,
            quant_padding_float_type);
}

#define QUIRE_INSTANTIATE_ROWWISE_IN(In)                                                    \
  template void FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf<In>(int, const In*, size_t, int, \
                                                                 uint8_t*, const In*);       \
  template void FloatOrHalfToFused8BitRowwiseQuantizedSBFloat<In>(const In*, size_t, int,    \
                                                                  uint8_t*, const In*);      \
  template void FloatOrHalfToFusedNBitRowwiseQuantizedSBHalfRef<In>(int, const In*, size_t,  \
                                                                    int, uint8_t*);          \
  template void FloatOrHalfToFused8BitRowwiseQuantizedSBFloatRef<In>(const In*, size_t, int, \
                                                                     uint8_t*);
QUIRE_INSTANTIATE_ROWWISE_IN(float)
QUIRE_INSTANTIATE_ROWWISE_IN(float16)
#undef QUIRE_INSTANTIATE_ROWWISE_IN

#define QUIRE_INSTANTIATE_ROWWISE_OUT(Out)                                                     \
  template void FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf<Out>(int, const uint8_t*, size_t, \
                                                                  int, Out*, bool);            \
  template void Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf<Out>(                            \
      const uint8_t*, size_t, int, Out*, const bool, const bool);                              \
  template void FusedNBitRowwiseQuantizedSBHalfToFloatOrHalfRef<Out>(                          \
      int, const uint8_t*, size_t, int, Out*, bool);                                           \
  template void Fused8BitRowwiseQuantizedSBFloatToFloatOrHalfRef<Out>(                         \
      const uint8_t*, size_t, int, Out*, const bool, const bool);
QUIRE_INSTANTIATE_ROWWISE_OUT(float)
QUIRE_INSTANTIATE_ROWWISE_OUT(float16)
QUIRE_INSTANTIATE_ROWWISE_OUT(bfloat16)
#undef QUIRE_INSTANTIATE_ROWWISE_OUT

}  // namespace quire
