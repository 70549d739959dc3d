// Quantization utilities: choosing parameters, quantizing, dequantizing, requantizing,
// and the fused row-wise formats of embedding tables. Names, signatures and numbers
// follow FBGEMM's QuantUtils.h (commit 71d6f8b2), bit for bit on every instruction set
// (the array forms are vectorized, src/quant/quant_kernels.h); where FBGEMM's result is
// undefined quire throws, and docs/quantization.md lists the few places that differ.
//
// Affine quantization: real = scale * (q - zero_point), q in [qmin, qmax] with
//   qmin = is_signed ? -2^(precision-1) : 0,  qmax = is_signed ? 2^(precision-1)-1 : 2^precision-1
//
// Quantize (FBGEMM's):          q = sat(zero_point + nearbyint(src * (1.0f / scale)))
// Quantize<T, true> (legacy):   q = sat(nearbyint(src * (1.0f / scale) + zero_point))
//   all in float, multiply by the float reciprocal (never a division), round half to
//   even; sat() saturates to [qmin, qmax]: +inf -> qmax, -inf -> qmin, NaN -> qmin.
//   A negative scale is a scale like any other.
// Dequantize: real = scale * (float)(q - zero_point), the difference exact (no overflow)
//   and rounded once to float; any scale.
// Requantize (float): q = sat(zero_point + nearbyint((float)src * multiplier)), the
//   addition exact, NaN -> qmin.
// Requantize (fixed point): q = clamp(zero_point + SaturatingRoundingMulWithShift(src,
//   multiplier, right_shift), qmin, qmax).
//
// Array forms take thread_id / num_threads: each caller converts its contiguous share
// [begin, end) of [0, len) (fbgemmPartition1D). Every function checks its arguments
// and throws std::invalid_argument naming the parameter where FBGEMM's result would be
// undefined: null pointers with len > 0, len < 0, a precision whose range does not fit
// the type, a quantization scale that is 0, not finite or has no finite reciprocal, bad
// groups or bit rates.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "quire/FloatConversion.h"
#include "quire/Utils.h"  // as FBGEMM's QuantUtils.h does: clients rely on it
#include "quire/detail/QuantFormulas.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

// Memory layouts of a weight tensor for QuantizeGroupwise: K output channels, C input
// channels, X = product of the kernel's spatial sizes. KCX is KCRS (X innermost),
// KXC is KRSC (channels innermost).
enum class layout_t { KCX, KXC };

// Columns of the rowwise_min_max buffer: (min, max) per row.
constexpr int kRowwiseMinMaxNumCols = 2;

struct TensorQuantizationParams {
  float scale = 1.0f;
  std::int32_t zero_point = 0;
  int precision = 8;
  // The real values of the unsigned codes 0 and 2^precision - 1 (FBGEMM's convention:
  // for signed data they are not the ends of the range).
  float Min() const;
  float Max() const;
};

struct RequantizationParams {
  float real_multiplier = 1.0f;  // for Requantize
  std::int32_t multiplier = 0;   // for RequantizeFixedPoint: real ~ multiplier / 2^right_shift
  int right_shift = 0;
  TensorQuantizationParams target_qparams;
};

// FBGEMM's chooser, operation for operation (float and double exactly where FBGEMM
// uses them, so the bits match):
//  1. preserve_sparsity with min < 0 < max: symmetric range. With h = (qmax - qmin) / 2
//     (integer division), s = max(|min / -(h + 1)|, |max / h|) (float divisions);
//     min = (float)(s * -(h + 1)), max = (float)(s * h) in double.
//  2. The range is extended to contain 0: min = min(min, 0), max = max(max, 0).
//  3. scale = (float)(((double)max - min) / (qmax - qmin)); 0.1f if that is 0 or its
//     float reciprocal is infinite.
//  4. force_scale_power_of_two: scale < 1 becomes 2^-floor(log2(1.0 / scale)) (double
//     log2), else 2^ceil(log2f(scale)) (float log2, as FBGEMM's overload resolution picks).
//  5. scale < 6.1e-5f (the smallest normal half, rounded): scale = 6.1e-5f and the range
//     follows it: min == 0 gives max = 6.1e-5f * (qmax - qmin), max == 0 gives
//     min = -6.1e-5f * (qmax - qmin), else both are multiplied by 6.1e-5f / old scale.
//  6. zero point: of qmin - min / scale and qmax - max / scale (double), the one whose
//     terms have the smaller magnitude sum |q| + |r / scale|; (qmin + qmax) / 2 in the
//     symmetric case; clamped to [qmin, qmax], else nearbyint (half to even).
// min > max is accepted (step 2 turns it into a range containing 0). precision is set to
// the bits of qmax - qmin (8 for [0, 255]; FBGEMM leaves it unset).
// Throws if min or max is not finite, qmin >= qmax, or qmax - qmin < 2 with
// preserve_sparsity and min < 0 < max (FBGEMM's result is then NaN or undefined).
TensorQuantizationParams ChooseQuantizationParams(float min, float max, std::int32_t qmin,
                                                  std::int32_t qmax, bool preserve_sparsity = false,
                                                  bool force_scale_power_of_two = false);

// quire's own chooser (not FBGEMM's numbers): the least scale whose code range covers
// [min, max] in Dequantize's float arithmetic, with a zero point kept off qmin and qmax
// so that both signs have codes:
//  - the range is first extended to contain 0, and 0 is exactly representable;
//  - min < 0 < max, affine: of the two integers around the real zero point
//    qmin - min / ((max - min) / (qmax - qmin)), the one needing the smaller scale;
//  - preserve_sparsity with min < 0 < max: zero_point = qmin + ceil((qmax - qmin) / 2);
//  - min >= 0 gives zero_point = qmin, max <= 0 gives qmax; min == max == 0 gives
//    scale 1 and the zero point nearest to 0;
//  - force_scale_power_of_two: the scale is rounded up to a power of two;
//  - the scale is at least 2^-126 (a finite reciprocal); precision as above.
// Throws if min or max is not finite, min > max, qmin >= qmax, or qmax - qmin < 2 with
// min < 0 < max.
TensorQuantizationParams ChooseQuantizationParamsCoveringRange(
    float min, float max, std::int32_t qmin, std::int32_t qmax, bool preserve_sparsity = false,
    bool force_scale_power_of_two = false);

// real_multiplier ~ quantized_multiplier / 2^right_shift with quantized_multiplier in
// [2^(precision-2), 2^(precision-1)) (round to nearest, half to even). Requires a
// positive finite real_multiplier, precision in [2, 32] and a resulting right_shift in
// [0, 63].
void ChooseRequantizationMultiplier(float real_multiplier, std::int32_t* quantized_multiplier,
                                    int* right_shift, int requantization_multiplier_precision = 32);

// The smallest and largest element; NaN elements are ignored. len == 0 gives 0 and 0;
// all NaN gives NaN and NaN. A zero result is +0.0 (the sign of zero is not ordered).
void FindMinMax(const float* m, float* min, float* max, std::int64_t len);

namespace detail {

[[noreturn]] void fail_precision(const char* where, int precision, bool is_signed);
[[noreturn]] void fail_float(const char* where, const char* param, float value,
                             const char* requirement);

// A quantization scale: src * (1.0f / scale) must be a number for every finite src
// (0 * inf is NaN, whose conversion FBGEMM leaves undefined). Negative scales are fine.
inline constexpr const char* kScaleRequirement =
    "must be finite and nonzero, with a finite reciprocal";

inline bool valid_scale(float scale) {
  return scale != 0.0f && std::isfinite(scale) && std::isfinite(1.0f / scale);
}

inline void check_scale(const char* where, float scale) {
  if (!valid_scale(scale)) fail_float(where, "scale", scale, kScaleRequirement);
}

// The element selector of FusedQuantizeDequantize's noise: a 64-bit finalizer mix
// (xor-shift, multiply) of the element index, top bits kept.
constexpr uint32_t noise_hash(uint64_t i) {
  i ^= i >> 33;
  i *= 0xff51afd7ed558ccdull;
  i ^= i >> 33;
  i *= 0xc4ceb9fe1a85ec53ull;
  i ^= i >> 33;
  return static_cast<uint32_t>(i >> 32);
}

inline void check_multiplier(const char* where, float multiplier) {
  if (!std::isfinite(multiplier)) fail_float(where, "multiplier", multiplier, "must be finite");
}

// [lo, hi] of `precision` bits; throws unless 1 <= precision <= 32 and T holds the range.
template <class T>
std::pair<int64_t, int64_t> quantized_range(const char* where, int precision, bool is_signed) {
  if (precision < 1 || precision > 32) fail_precision(where, precision, is_signed);
  const int64_t lo = is_signed ? -(int64_t{1} << (precision - 1)) : 0;
  const int64_t hi =
      is_signed ? (int64_t{1} << (precision - 1)) - 1 : (int64_t{1} << precision) - 1;
  if (lo < static_cast<int64_t>(std::numeric_limits<T>::lowest()) ||
      hi > static_cast<int64_t>(std::numeric_limits<T>::max())) {
    fail_precision(where, precision, is_signed);
  }
  return {lo, hi};
}

template <class T>
QuantizeArgs quantize_args(const char* where, float scale, std::int32_t zero_point, int precision,
                           bool is_signed, bool legacy) {
  check_scale(where, scale);
  const auto [lo, hi] = quantized_range<T>(where, precision, is_signed);
  return make_quantize_args(1.0f / scale, zero_point, static_cast<int32_t>(lo),
                            static_cast<int32_t>(hi), legacy);
}

}  // namespace detail

// Saturates src to the range of `precision` bits and converts it to T2 (floating src is
// truncated toward zero after saturation; NaN gives the range's minimum).
template <typename T1, typename T2 = std::uint8_t>
T2 clamp(T1 src, int precision, bool is_signed = false) {
  static_assert(std::is_arithmetic_v<T1> && std::is_integral_v<T2>);
  const auto [lo, hi] = detail::quantized_range<T2>("clamp", precision, is_signed);
  if constexpr (std::is_floating_point_v<T1>) {
    const double v = static_cast<double>(src);
    if (!(v >= static_cast<double>(lo))) return static_cast<T2>(lo);
    if (v > static_cast<double>(hi)) return static_cast<T2>(hi);
    return static_cast<T2>(v);
  } else {
    if (std::cmp_less(src, lo)) return static_cast<T2>(lo);
    if (std::cmp_greater(src, hi)) return static_cast<T2>(hi);
    return static_cast<T2>(src);
  }
}

// LEGACY: FBGEMM's template has only T (it removed LEGACY, whose default had become
// false); quire keeps the parameter so that Quantize<T, true> still gives the legacy
// rounding. Quantize<T> is FBGEMM's.
template <typename T, bool LEGACY = false>
T Quantize(float src, std::int32_t zero_point, float scale, int result_precision,
           bool result_is_signed = std::is_signed_v<T>) {
  const detail::QuantizeArgs args = detail::quantize_args<T>(
      "Quantize", scale, zero_point, result_precision, result_is_signed, LEGACY);
  return static_cast<T>(detail::quantize_one(src, args));
}

template <typename T, bool LEGACY = false>
T Quantize(float src, const TensorQuantizationParams& qparams) {
  return Quantize<T, LEGACY>(src, qparams.zero_point, qparams.scale, qparams.precision);
}

// T: uint8_t, int8_t, uint16_t, int16_t, int32_t (signed range for signed T).
template <typename T, bool LEGACY = false>
void Quantize(const float* src, T* dst, std::int64_t len, const TensorQuantizationParams& qparams,
              int thread_id = 0, int num_threads = 1);

// Per-group quantization of a K x C x X (KCX) or K x X x C (KXC) tensor: the C channels
// form G groups of C / G, group g uses scales[g] and zero_points[g] with Quantize's
// formula and 8 * sizeof(T) bits. T: uint8_t, int8_t, int32_t.
template <typename T, layout_t LAYOUT = layout_t::KCX>
void QuantizeGroupwise(const float* src, int K, int C, int X, int G, const float* scales,
                       const std::int32_t* zero_points, T* dst);

template <typename T>
float Dequantize(T src, const TensorQuantizationParams& qparams) {
  return detail::dequantize_one(src, qparams.scale, qparams.zero_point);
}

// T: uint8_t, int8_t, uint16_t, int16_t, int32_t.
template <typename T>
void Dequantize(const T* src, float* dst, std::int64_t len, const TensorQuantizationParams& qparams,
                int thread_id = 0, int num_threads = 1);

// Dequantize(Quantize<T, false>(src)), in float.
template <typename T>
float FusedQuantizeDequantize(float src, const TensorQuantizationParams& qparams) {
  const T q = Quantize<T, false>(src, qparams);
  return detail::dequantize_one(q, qparams.scale, qparams.zero_point);
}

// The array form (T: uint8_t, int8_t). noise_ratio in [0, 1]: the share of elements
// passed through unquantized (quantization noise for training), chosen by a fixed hash
// of the element's index: element i keeps src[i] iff
// detail::noise_hash(i) < noise_ratio * 2^32. Deterministic, and the same for every
// ISA and thread split.
template <typename T>
void FusedQuantizeDequantize(const float* src, float* dst, std::int64_t len,
                             const TensorQuantizationParams& qparams, int thread_id = 0,
                             int num_threads = 1, float noise_ratio = 0.0f);

// floor((a * b + 2^(right_shift-1)) / 2^right_shift) in 64 bits, without overflow
// (a * b when right_shift is 0). right_shift in [0, 63].
std::int64_t SaturatingRoundingMulWithShift(std::int32_t a, std::int32_t b, int right_shift);

// The scalar forms with explicit precision default result_is_signed to false, as
// FBGEMM's do; the RequantizationParams forms use T's signedness.
template <typename T>
T Requantize(std::int32_t src, std::int32_t zero_point, std::int32_t multiplier, int right_shift,
             int result_precision, bool result_is_signed = false) {
  const auto [lo, hi] =
      detail::quantized_range<T>("Requantize", result_precision, result_is_signed);
  const std::int64_t v = zero_point + SaturatingRoundingMulWithShift(src, multiplier, right_shift);
  return static_cast<T>(v < lo ? lo : v > hi ? hi : v);
}

template <typename T>
T RequantizeFixedPoint(std::int32_t src, const RequantizationParams& params) {
  return Requantize<T>(src, params.target_qparams.zero_point, params.multiplier, params.right_shift,
                       params.target_qparams.precision, std::is_signed_v<T>);
}

template <typename T>
T Requantize(std::int32_t src, std::int32_t zero_point, float multiplier, int result_precision,
             bool result_is_signed = false) {
  detail::check_multiplier("Requantize", multiplier);
  const auto [lo, hi] =
      detail::quantized_range<T>("Requantize", result_precision, result_is_signed);
  const detail::RequantizeArgs args{multiplier, zero_point, static_cast<int32_t>(lo),
                                    static_cast<int32_t>(hi)};
  return static_cast<T>(detail::requantize_one(src, args));
}

template <typename T>
T Requantize(std::int32_t src, const RequantizationParams& params) {
  return Requantize<T>(src, params.target_qparams.zero_point, params.real_multiplier,
                       params.target_qparams.precision, std::is_signed_v<T>);
}

// Array forms; T: uint8_t, int8_t, uint16_t, int16_t, int32_t (signed range for signed T).
template <typename T>
void RequantizeFixedPoint(const std::int32_t* src, T* dst, std::int64_t len,
                          const RequantizationParams& params, int thread_id = 0,
                          int num_threads = 1);
template <typename T>
void Requantize(const std::int32_t* src, T* dst, std::int64_t len,
                const RequantizationParams& params, int thread_id = 0, int num_threads = 1);

// ---- Fused row-wise formats (embedding tables) ----
// See src/quant/rowwise.cpp for the per-row formulas. InputType: float or float16;
// OutputType: float, float16 or bfloat16. As in FBGEMM, the quantizers take
// input_columns = values per row and the dequantizers input_columns = bytes per fused row
// (codes plus scale and bias); the output buffers hold input_rows rows of:
//   N-bit:  ceil(cols * bit_rate / 8) + 2 * sizeof(float16) bytes (codes, scale, bias)
//   8-bit:  cols + 2 * sizeof(float) bytes (codes, scale, bias)
//   dequantized N-bit: (input_columns - 4) * (8 / bit_rate) values
//   dequantized 8-bit: input_columns - 2 * (quant_padding_float_type ? 4 : 2) values
// rowwise_min_max, when given, holds (min, max) per row (kRowwiseMinMaxNumCols columns)
// and replaces the row's own. scale_bias_last == false reads scale and bias before the
// codes; quant_padding_float_type == false reads them as float16 instead of float.
// FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf throws std::runtime_error("Unsupported
// number of columns...") when input_columns is not a multiple of 8 / bit_rate, as FBGEMM's
// does (no dequantizer reads such rows); its Ref form computes them.

template <typename InputType>
void FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf(int bit_rate, const InputType* input,
                                                  size_t input_rows, int input_columns,
                                                  std::uint8_t* output,
                                                  const InputType* rowwise_min_max = nullptr);
template <typename OutputType>
void FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf(int bit_rate, const std::uint8_t* input,
                                                  size_t input_rows, int input_columns,
                                                  OutputType* output, bool scale_bias_last = true);

template <typename InputType>
void FloatOrHalfToFused8BitRowwiseQuantizedSBFloat(const InputType* input, size_t input_rows,
                                                   int input_columns, std::uint8_t* output,
                                                   const InputType* rowwise_min_max = nullptr);
template <typename OutputType>
void Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf(const std::uint8_t* input, size_t input_rows,
                                                   int input_columns, OutputType* output,
                                                   const bool scale_bias_last = true,
                                                   const bool quant_padding_float_type = true);

// The same conversions through the portable scalar code, whatever the CPU (for tests).
template <typename InputType>
void FloatOrHalfToFusedNBitRowwiseQuantizedSBHalfRef(int bit_rate, const InputType* input,
                                                     size_t input_rows, int input_columns,
                                                     std::uint8_t* output);
template <typename OutputType>
void FusedNBitRowwiseQuantizedSBHalfToFloatOrHalfRef(int bit_rate, const std::uint8_t* input,
                                                     size_t input_rows, int input_columns,
                                                     OutputType* output,
                                                     bool scale_bias_last = true);
template <typename InputType>
void FloatOrHalfToFused8BitRowwiseQuantizedSBFloatRef(const InputType* input, size_t input_rows,
                                                      int input_columns, std::uint8_t* output);
template <typename OutputType>
void Fused8BitRowwiseQuantizedSBFloatToFloatOrHalfRef(const std::uint8_t* input,
                                                      size_t input_rows, int input_columns,
                                                      OutputType* output,
                                                      const bool scale_bias_last = true,
                                                      const bool quant_padding_float_type = true);

}  // namespace quire
QUIRE_API_END
