// FBGEMM's QuantUtilsAvx2.h entry points. FBGEMM names them after the instruction set
// of its implementation; in quire each runs the best path the CPU has (or the one forced
// with fbgemmForceIsa), with the same numbers as its QuantUtils.h counterpart:
//   QuantizeAvx2<T>                   Quantize<T> with 8 * sizeof(T) bits (FBGEMM uses
//                                     T's limits whatever qparams.precision says)
//   FusedQuantizeDequantizeAvx2<T>    FusedQuantizeDequantize<T>, 8 * sizeof(T) bits
//   RequantizeAvx2, RequantizeFixedPointAvx2   Requantize / RequantizeFixedPoint<uint8_t>
//                                     to 8 bits
//   the row-wise *Avx2 forms          the QuantUtils.h forms with BIT_RATE as argument
//   requantizeOutputProcessingAvx2    one block of ReQuantizeOutput's formula, FBGEMM's
//                                     flags (see below)
//   requantizeForFloatAvx2            one block of ReQuantizeForFloat's formula
// Xor128 is FBGEMM's random generator (Marsaglia's xorshift128, per-thread state).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "quire/QuantUtils.h"
#include "quire/RequantizeParams.h"
#include "quire/Types.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

template <typename T = std::uint8_t>
void QuantizeAvx2(const float* src, T* dst, std::int64_t len,
                  const TensorQuantizationParams& qparams);

template <typename T = std::uint8_t>
void FusedQuantizeDequantizeAvx2(const float* src, float* dst, int len,
                                 const TensorQuantizationParams& qparams,
                                 float noise_ratio = 0.0f);

// The next number of x[t+1] = xorshift128(x[t]), from FBGEMM's seeds, one sequence per
// thread. (FBGEMM draws it % 10 for its noise; quire's FusedQuantizeDequantize selects its
// noise elements with a hash of the index instead, see QuantUtils.h.)
std::uint32_t Xor128();

void RequantizeFixedPointAvx2(const std::int32_t* src, std::uint8_t* dst, int len,
                              const RequantizationParams& params);
void RequantizeAvx2(const std::int32_t* src, std::uint8_t* dst, int len,
                    const RequantizationParams& params);

namespace detail {

// The template flags of the block routines. FBGEMM asserts that they agree with the
// values (A_SYMMETRIC iff A_zero_point == 0, ...); here the flags decide: a symmetric
// side's term is skipped, and bias is read only with has_bias.
struct BlockRequantizeFlags {
  bool a_symmetric;
  bool b_symmetric;
  QuantizationGranularity q_gran;
  bool has_bias;
  bool fuse_relu;
  bool direct;  // col_offsets hold one row of col_size values per output row
};

void requantize_block_u8(std::uint8_t* out, const std::int32_t* inp, const block_type_t& block,
                         int ld_out, int ld_in, const requantizationParams_t<std::int32_t>& r,
                         const BlockRequantizeFlags& flags);
void requantize_block_u8(std::uint8_t* out, const std::int32_t* inp, const block_type_t& block,
                         int ld_out, int ld_in, const requantizationParams_t<float>& r,
                         const BlockRequantizeFlags& flags);
void requantize_block_f32(float* out, const std::int32_t* inp, const block_type_t& block,
                          int ld_out, int ld_in, const requantizationForFloatParams_t& r,
                          const BlockRequantizeFlags& flags);

}  // namespace detail

// out[i * ld_out + j] for (i, j) in the block (absolute), from
// inp[(i - row_start) * ld_in + (j - col_start)]:
//   raw = inp - A_zero_point * col_offsets[j] - B_zero_point[q] * row_offsets[i - row_start]
//   x   = (float)(raw + bias[j]) * C_multiplier[q]                           (int32 bias)
//       = ((float)raw + bias[j] * (float)(1.0 / act_times_w_scale[q])) * C_multiplier[q]
//                                                                  (float bias, TENSOR, GROUP)
//       = ((float)raw + bias[j] / act_times_w_scale[j]) * C_multiplier[j] (float, OUT_CHANNEL)
//   out = clamp(nearbyint(x) + C_zero_point, FUSE_RELU ? C_zero_point : 0, 255)
// q = 0 (TENSOR), col_start / (ncols / groups) for the whole block (GROUP, as FBGEMM), j
// (OUT_CHANNEL). DIRECT reads col_offsets[i * col_size + j].
template <bool A_SYMMETRIC, bool B_SYMMETRIC, QuantizationGranularity Q_GRAN, bool HAS_BIAS,
          bool FUSE_RELU, typename BIAS_TYPE = std::int32_t, bool DIRECT = false>
void requantizeOutputProcessingAvx2(std::uint8_t* out, const std::int32_t* inp,
                                    const block_type_t& block, int ld_out, int ld_in,
                                    const requantizationParams_t<BIAS_TYPE>& r) {
  static_assert(std::is_same_v<BIAS_TYPE, std::int32_t> || std::is_same_v<BIAS_TYPE, float>,
                "BIAS_TYPE is int32_t or float");
  detail::requantize_block_u8(out, inp, block, ld_out, ld_in, r,
                              {A_SYMMETRIC, B_SYMMETRIC, Q_GRAN, HAS_BIAS, FUSE_RELU, DIRECT});
}

// out[i * ld_out + j] = (float)raw * (A_scale * B_scale[q]) [+ bias[j]] [then max(0, .)],
// raw and q as above.
template <bool A_SYMMETRIC, bool B_SYMMETRIC, QuantizationGranularity Q_GRAN, bool HAS_BIAS,
          bool FUSE_RELU>
void requantizeForFloatAvx2(float* out, const std::int32_t* inp, const block_type_t& block,
                            int ld_out, int ld_in, const requantizationForFloatParams_t& r) {
  detail::requantize_block_f32(out, inp, block, ld_out, ld_in, r,
                               {A_SYMMETRIC, B_SYMMETRIC, Q_GRAN, HAS_BIAS, FUSE_RELU, false});
}

template <typename InputType, int BIT_RATE>
void FloatOrHalfToFusedNBitRowwiseQuantizedSBHalfAvx2(const InputType* input, size_t input_rows,
                                                      int input_columns, std::uint8_t* output,
                                                      const InputType* rowwise_min_max = nullptr) {
  FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf(BIT_RATE, input, input_rows, input_columns, output,
                                               rowwise_min_max);
}

template <typename InputType>
void FloatOrHalfToFused8BitRowwiseQuantizedSBFloatAvx2(const InputType* input, size_t input_rows,
                                                       int input_columns, std::uint8_t* output,
                                                       const InputType* rowwise_min_max = nullptr) {
  FloatOrHalfToFused8BitRowwiseQuantizedSBFloat(input, input_rows, input_columns, output,
                                                rowwise_min_max);
}

template <typename OutputType, int BIT_RATE>
void FusedNBitRowwiseQuantizedSBHalfToFloatOrHalfAvx2(const std::uint8_t* input,
                                                      size_t input_rows, int input_columns,
                                                      OutputType* output) {
  FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf(BIT_RATE, input, input_rows, input_columns,
                                               output);
}

template <typename OutputType, bool scale_bias_last = true, bool quant_padding_float_type = true>
void Fused8BitRowwiseQuantizedSBFloatToFloatOrHalfAvx2(const std::uint8_t* input,
                                                       size_t input_rows, int input_columns,
                                                       OutputType* output) {
  Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf(input, input_rows, input_columns, output,
                                                scale_bias_last, quant_padding_float_type);
}

}  // namespace quire
QUIRE_API_END
