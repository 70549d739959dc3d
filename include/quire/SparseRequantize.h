// The requantization of FBGEMM's sparse int8 product (spmmUtilsAvx2.h / spmmUtils.h),
// which works on C^T: row i of the output is output channel i (a row of the sparse
// weights), column j a position of the activations.
//
// trRequantizeOpt (what fbgemmSparseDenseInt8MM runs), per element, s = the channel's
// act_times_w_scale (entry i for OUT_CHANNEL, entry 0 for TENSOR), in float:
//   x = inp - act_zero_point * weight_row_offsets[i]          (unless ACT_SYMMETRIC)
//           - act_col_offsets[j] * weight_zero_points[q]      (unless WEIGHT_SYMMETRIC)
//   y = (float(x) + bias[i] / s) * (s / C_scale)              (+ bias only if HAS_BIAS)
//   out = clamp(cvt(y) + C_zero_point, FUSE_RELU ? C_zero_point : 0, 255)
// with int32 arithmetic wrapping and cvt the x86 conversion: round half to even, and
// INT32_MIN for a y outside int32 or NaN (so such a y gives 0, or C_zero_point with
// ReLU). trRequantizeRef scales as (float(x) + bias[i] / s) * s / C_scale (two
// roundings), adds C_zero_point in float, subtracts the column offsets whenever
// act_col_offsets is non-null and the row offsets whenever act_zero_point != 0; it
// equals trRequantizeOpt when C_scale is a power of two.
//
// Indexing (both): inp is relative to the block (inp[(i - row_start) * ld_in + j -
// col_start]), out absolute (out[i * ld_out + j]); weight_row_offsets, bias and the
// per-channel arrays are indexed by the absolute row i, act_col_offsets by j - col_start.
#pragma once

#include <cstdint>

#include "quire/Types.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

struct trRequantizationParams_t {
  std::int32_t act_zero_point;              // activation zero point
  const std::int32_t* weight_zero_points;   // weight zero point(s)
  std::int32_t C_zero_point;                // output zero point, in [0, 255]
  const float C_scale;                      // output scale, finite and non-zero
  const std::int32_t* weight_row_offsets;   // per row of the weights: the sum of the row
  const std::int32_t* act_col_offsets;      // per column of the activations: its sum
  const float* bias;                        // per row, in real units; may be null
  const float* act_times_w_scale;           // activation scale x weight scale(s)
};

namespace detail {

// The flags of trRequantizeOpt's template, as values.
struct TrRequantizeFlags {
  bool fuse_relu, act_symmetric, weight_symmetric, has_bias, per_channel;
};

void tr_requantize_opt(uint8_t* out, const int32_t* inp, const block_type_t& block, int ld_out,
                       int ld_in, const trRequantizationParams_t& r, TrRequantizeFlags flags);
void tr_requantize_ref(uint8_t* out, const int32_t* inp, const block_type_t& block, int ld_out,
                       int ld_in, const trRequantizationParams_t& r, bool fuse_relu,
                       bool per_channel);

}  // namespace detail

// Throws std::invalid_argument for null out/inp/act_times_w_scale (and the arrays the
// flags ask for), a negative block start or size, ld_in < col_size, ld_out < the block's
// last column + 1, a non-finite or zero C_scale, or C_zero_point outside [0, 255].
template <bool FUSE_RELU, bool ACT_SYMMETRIC, bool WEIGHT_SYMMETRIC, bool HAS_BIAS,
          QuantizationGranularity Q_GRAN>
void trRequantizeOpt(uint8_t* out, const int32_t* inp, const block_type_t& block, int ld_out,
                     int ld_in, const trRequantizationParams_t& rParams) {
  static_assert(Q_GRAN != QuantizationGranularity::GROUP, "GROUP granularity is not supported");
  detail::tr_requantize_opt(
      out, inp, block, ld_out, ld_in, rParams,
      {FUSE_RELU, ACT_SYMMETRIC, WEIGHT_SYMMETRIC, HAS_BIAS,
       Q_GRAN == QuantizationGranularity::OUT_CHANNEL});
}

template <bool FUSE_RELU, QuantizationGranularity Q_GRAN>
void trRequantizeRef(uint8_t* out, const int32_t* inp, const block_type_t& block, int ld_out,
                     int ld_in, const trRequantizationParams_t& r) {
  static_assert(Q_GRAN != QuantizationGranularity::GROUP, "GROUP granularity is not supported");
  detail::tr_requantize_ref(out, inp, block, ld_out, ld_in, r, FUSE_RELU,
                            Q_GRAN == QuantizationGranularity::OUT_CHANNEL);
}

}  // namespace quire
QUIRE_API_END
