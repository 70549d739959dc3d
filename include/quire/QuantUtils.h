// Quantization utilities: choosing parameters, quantizing, dequantizing, requantizing,
// and the fused row-wise formats of embedding tables. Names and signatures follow
// FBGEMM's QuantUtils; the behaviour below is quire's own and is the same bit for bit
// on every instruction set (the array forms are vectorized, see detail/QuantKernels.h).
//
// Affine quantization: real = scale * (q - zero_point), q in [qmin, qmax] with
//   qmin = is_signed ? -2^(precision-1) : 0,  qmax = is_signed ? 2^(precision-1)-1 : 2^precision-1
//
// Quantize (LEGACY = true):  q = sat(nearbyint(src * (1.0f / scale) + zero_point))
// Quantize (LEGACY = false): q = sat(nearbyint(src * (1.0f / scale)) + zero_point)
//   all in float, multiply by the float reciprocal (never a division), round half to
//   even; sat() saturates to [qmin, qmax]: +inf -> qmax, -inf -> qmin, NaN -> qmin.
// Dequantize: real = scale * (float)(q - zero_point), the difference exact (no overflow)
//   and rounded once to float.
// Requantize (float): q = sat(zero_point + nearbyint((float)src * multiplier)), the
//   addition exact, NaN -> qmin.
// Requantize (fixed point): q = clamp(zero_point + SaturatingRoundingMulWithShift(src,
//   multiplier, right_shift), qmin, qmax).
//
// Array forms take thread_id / num_threads: each caller converts its contiguous share
// [begin, end) of [0, len) (fbgemmPartition1D). Every function checks its arguments
// and throws std::invalid_argument naming the parameter: null pointers with len > 0,
// len < 0, a precision whose range does not fit the type, a scale that is not positive
// and finite with a finite reciprocal, bad groups or bit rates.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "quire/FloatConversion.h"
#include "quire/Utils.h"  // as FBGEMM's QuantUtils.h does: clients rely on it
#include "quire/detail/QuantKernels.h"

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

// Chooses scale and zero point for real values in [min, max] and codes [qmin, qmax]:
//  - the range is first extended to contain 0, and 0 is always exactly representable:
//    zero_point is an integer in [qmin, qmax] that is also a float, so Quantize(0) is
//    zero_point and Dequantize(zero_point) is 0;
//  - the chosen range [Dequantize(qmin), Dequantize(qmax)] covers [min, max], in the
//    float arithmetic of Dequantize (the scale is rounded up where needed);
//  - min < 0 < max, affine: of the two integers around the real zero point
//    qmin - min / ((max - min) / (qmax - qmin)), the one needing the smaller scale, kept
//    off qmin and qmax so both signs have codes; the scale is then the least covering
//    one for that zero point;
//  - preserve_sparsity with min < 0 < max: symmetric, zero_point = qmin +
//    ceil((qmax - qmin) / 2) (128 for [0, 255], 0 for [-128, 127]);
//  - min >= 0 gives zero_point = qmin, max <= 0 gives qmax; min == max == 0 gives
//    scale 1 and the zero point nearest to 0;
//  - force_scale_power_of_two: the scale is rounded up to a power of two;
//  - the scale is at least 2^-126 (a finite reciprocal);
//  - precision is set to the bits of qmax - qmin (8 for 255).
// Throws if min or max is not finite, min > max, qmin >= qmax, or qmax - qmin < 2 with
// min < 0 < max.
TensorQuantizationParams ChooseQuantizationParams(float min, float max, std::int32_t qmin,
                                                  std::int32_t qmax, bool preserve_sparsity = false,
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

inline constexpr const char* kScaleRequirement =
    "must be positive and finite, with a finite reciprocal";

inline bool valid_scale(float scale) {
  return scale > 0.0f && std::isfinite(scale) && std::isfinite(1.0f / scale);
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

template <typename T, bool LEGACY = true>
T Quantize(float src, std::int32_t zero_point, float scale, int result_precision,
           bool result_is_signed = std::is_signed_v<T>) {
  const detail::QuantizeArgs args = detail::quantize_args<T>(
      "Quantize", scale, zero_point, result_precision, result_is_signed, LEGACY);
  return static_cast<T>(detail::quantize_one(src, args));
}

template <typename T, bool LEGACY = true>
T Quantize(float src, const TensorQuantizationParams& qparams) {
  return Quantize<T, LEGACY>(src, qparams.zero_point, qparams.scale, qparams.precision);
}

// T: uint8_t, int8_t, uint16_t, int16_t, int32_t (signed range for signed T).
template <typename T, bool LEGACY = true>
void Quantize(const float* src, T* dst, std::int64_t len, const TensorQuantizationParams& qparams,
              int thread_id = 0, int num_threads = 1);

// Per-group quantization of a K x C x X (KCX) or K x X x C (KXC) tensor: the C channels
// form G groups of C / G, group g uses scales[g] and zero_points[g] with the LEGACY
// Quantize formula and 8 * sizeof(T) bits. T: uint8_t, int8_t, int32_t.
template <typename T, layout_t LAYOUT = layout_t::KCX>
void QuantizeGroupwise(const float* src, int K, int C, int X, int G, const float* scales,
                       const std::int32_t* zero_points, T* dst);

template <typename T>
float Dequantize(T src, const TensorQuantizationParams& qparams) {
  detail::check_scale("Dequantize", qparams.scale);
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
// OutputType: float, float16 or bfloat16 (or float16 holding bfloat16 bits when
// is_uint16_t_of_type_bf16). rowwise_min_max, when given, holds (min, max) per row
// (kRowwiseMinMaxNumCols columns) and replaces the row's own.

// 2-, 4- or 8-bit codes, then half scale and half bias: ceil(cols * bit_rate / 8) + 4
// bytes per row.
template <typename InputType>
void FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf(int bit_rate, const InputType* input,
                                                  size_t input_rows, int input_columns,
                                                  std::uint8_t* output,
                                                  const InputType* rowwise_min_max = nullptr);
// scale_bias_last == false reads scale and bias at the start of each row instead.
template <typename OutputType, bool is_uint16_t_of_type_bf16 = false>
void FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf(int bit_rate, const std::uint8_t* input,
                                                  size_t input_rows, int input_columns,
                                                  OutputType* output, bool scale_bias_last = true);

// 8-bit codes, then float scale and float bias: cols + 8 bytes per row.
template <typename InputType>
void FloatOrHalfToFused8BitRowwiseQuantizedSBFloat(const InputType* input, size_t input_rows,
                                                   int input_columns, std::uint8_t* output,
                                                   const InputType* rowwise_min_max = nullptr);
template <typename OutputType, bool is_uint16_t_of_type_bf16 = false>
void Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf(const std::uint8_t* input, size_t input_rows,
                                                   int input_columns, OutputType* output);

// The same conversions through the portable scalar code, whatever the CPU (for tests).
template <typename InputType>
void FloatOrHalfToFusedNBitRowwiseQuantizedSBHalfRef(int bit_rate, const InputType* input,
                                                     size_t input_rows, int input_columns,
                                                     std::uint8_t* output);
template <typename OutputType, bool is_uint16_t_of_type_bf16 = false>
void FusedNBitRowwiseQuantizedSBHalfToFloatOrHalfRef(int bit_rate, const std::uint8_t* input,
                                                     size_t input_rows, int input_columns,
                                                     OutputType* output,
                                                     bool scale_bias_last = true);
template <typename InputType>
void FloatOrHalfToFused8BitRowwiseQuantizedSBFloatRef(const InputType* input, size_t input_rows,
                                                      int input_columns, std::uint8_t* output);
template <typename OutputType, bool is_uint16_t_of_type_bf16 = false>
void Fused8BitRowwiseQuantizedSBFloatToFloatOrHalfRef(const std::uint8_t* input, size_t input_rows,
                                                      int input_columns, OutputType* output);

}  // namespace quire
