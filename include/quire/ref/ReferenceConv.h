// Reference convolution: direct loops over batch, output positions, groups, output
// channels, kernel taps and input channels, written from the definition (not from the
// library's im2col or kernels), used by the tests as ground truth, bit for bit.
// Layouts as in quire/ConvUtils.h: A is N x IN_DIM x IC, W is G x OC/G x K x IC/G (KRSC),
// outputs are N x OUT_DIM x OC. Positions outside the input (padding, and for a
// transposed convolution the positions no input maps to) read A_zero_point, the
// quantized zero.
#pragma once

#include <cstdint>

#include "quire/ConvUtils.h"
#include "quire/Types.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire::ref {

// C[m * OC + oc] = sum over taps k and channels c of group g = oc / (OC/G) of
//   A(input position of m through k, channel g * IC/G + c) * W[oc][k][c]
// for output position m of the batch (row-major over N x OUT_DIM).
template <int D>
void conv_u8s8s32(const conv_param_t<D>& p, const uint8_t* A, int32_t A_zero_point,
                  const int8_t* W, int32_t* C);

// row_offsets[m * G + g] = the sum of A over output position m's window in group g (the
// row sums of the im2col matrix, per group), with A_zero_point at positions outside A.
template <int D>
void conv_row_offsets(const conv_param_t<D>& p, const uint8_t* A, int32_t A_zero_point,
                      int32_t* row_offsets);

// col_offsets[oc] = sum_k W[oc][k] - Kg * B_zero_point[oc / ncols_per_quant_group]
// with Kg = kernel size * IC/G, the form ReQuantizeOutput expects.
template <int D>
void conv_col_offsets(const conv_param_t<D>& p, const int8_t* W, const int32_t* B_zero_point,
                      int ncols_per_quant_group, int32_t* col_offsets);

// The explicit im2col matrix: MB * OUT_DIM rows of G * kernel size * IC/G bytes, laid out
// group, tap, channel (the columns PackAWithIm2Col packs).
template <int D>
void im2col(const conv_param_t<D>& p, const uint8_t* A, int32_t A_zero_point, uint8_t* out);

// The requantization of ReQuantizeOutput applied to the conv's int32 result C, group by
// group with that group's row offsets (row_offsets as conv_row_offsets gives them).
// GROUP granularity means one quantization group per conv group.
struct ConvRequant {
  QuantizationGranularity granularity = QuantizationGranularity::TENSOR;
  int32_t A_zero_point = 0;
  const int32_t* B_zero_point = nullptr;  // per quantization group
  const int32_t* col_offsets = nullptr;   // per output channel
  const float* C_multiplier = nullptr;    // per quantization group
  int32_t C_zero_point = 0;
  bool fuse_relu = false;
  const float* act_times_w_scale = nullptr;  // per quantization group (float bias)
};
template <int D, class BiasT>
void conv_requantize_u8(const conv_param_t<D>& p, const int32_t* C, const int32_t* row_offsets,
                        const ConvRequant& q, const BiasT* bias, uint8_t* out);

}  // namespace quire::ref
QUIRE_API_END
