// What the direct convolution kernels (depthwise, groupwise) take besides the shape:
// the requantization they apply in registers, and their non-template entry points
// (src/conv/).
#pragma once

#include <climits>
#include <cstdint>
#include <type_traits>

#include "quire/ConvUtils.h"
#include "quire/Types.h"
#include "quire/detail/ConvGeometry.h"
#include "quire/detail/Epilogue.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire::detail {

// ReQuantizeOutput's formula, for output channel c in quantization group
// q = c / channels_per_q and conv group g:
//   raw = acc - a_zero_point * col_offsets[c] - b_zero_point[q] * row_sum(g)
//   x   = (float)(raw + bias_i32[c]) * c_multiplier[q]                        (int32 bias)
//       = ((float)raw + bias_f32[c] / act_times_w_scale[q]) * c_multiplier[q]  (float bias)
//       = (float)raw * c_multiplier[q]                                         (no bias)
//   out = clamp(nearbyint(x) + c_zero_point, fuse_relu ? c_zero_point : 0, 255)
// where row_sum(g) is the sum of the pixel's window in group g (zero point where it
// reads padding). col_offsets may be null (then the a_zero_point term is skipped: it is
// folded into the bias).
struct DirectRequant {
  int32_t a_zero_point = 0;
  const int32_t* b_zero_point = nullptr;
  const int32_t* col_offsets = nullptr;
  const float* c_multiplier = nullptr;
  int32_t c_zero_point = 0;
  BiasKind bias_kind = BiasKind::none;
  const int32_t* bias_i32 = nullptr;
  const float* bias_f32 = nullptr;
  const float* act_times_w_scale = nullptr;
  bool fuse_relu = false;
  int channels_per_q = INT_MAX;  // 1: per channel; OC / G: per group; INT_MAX: per tensor
};

// Fills the bias and granularity fields from template arguments; channels_per_group is
// OC / G (what GROUP granularity means for a convolution: one group per conv group).
template <QuantizationGranularity Q_GRAN, typename BIAS_T>
void set_bias_and_granularity(DirectRequant& r, const BIAS_T* bias, int channels_per_group) {
  static_assert(std::is_same_v<BIAS_T, int32_t> || std::is_same_v<BIAS_T, float>,
                "BIAS_TYPE is int32_t or float");
  if (bias == nullptr) {
    r.bias_kind = BiasKind::none;
  } else if constexpr (std::is_same_v<BIAS_T, float>) {
    r.bias_kind = BiasKind::float32;
    r.bias_f32 = bias;
  } else {
    r.bias_kind = BiasKind::int32;
    r.bias_i32 = bias;
  }
  r.channels_per_q = Q_GRAN == QuantizationGranularity::TENSOR  ? INT_MAX
                     : Q_GRAN == QuantizationGranularity::GROUP ? channels_per_group
                                                                : 1;
}

// Whether every B zero point the pipeline uses is 0 (then A's row sums are not needed).
// GROUP granularity has one zero point per conv group.
template <class Op, int D>
bool b_symmetric(const Op& op, const conv_param_t<D>& p) {
  if constexpr (requires { op.getBZeroPoint(); Op::QGRANType; }) {
    const int count = Op::QGRANType == QuantizationGranularity::TENSOR  ? 1
                      : Op::QGRANType == QuantizationGranularity::GROUP ? p.G
                                                                        : p.OC;
    const int32_t* zp = op.getBZeroPoint();
    for (int i = 0; i < count; ++i)
      if (zp[i] != 0) return false;
    return true;
  }
  return false;
}

// Checks the requantization arguments; throws std::invalid_argument naming them.
void check_direct_requant(const DirectRequant& r, const char* where);

// Depthwise convolution (G == IC, OC = IC or 2 IC; output channel c reads input channel
// c * IC / OC) over output pixels [thread's share of MB * OUT_DIM): packed is a
// PackedDepthWiseConvMatrix buffer of OC channels and `kernel_prod` taps (any kernel).
void depthwise_conv(const ConvGeometry& g, const uint8_t* A, const int8_t* packed,
                    const DirectRequant& r, uint8_t* C, int thread_id, int num_threads,
                    const char* where);

// Groupwise convolution (IC/G == OC/G in {2, 4, 8, 16}): packed is a
// PackWeightMatrixForGConv buffer of the direct layout.
void groupwise_conv(const ConvGeometry& g, const uint8_t* A, const int8_t* packed,
                    const DirectRequant& r, uint8_t* C, int thread_id, int num_threads,
                    const char* where);

}  // namespace quire::detail
QUIRE_API_END
