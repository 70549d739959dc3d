// Depthwise convolution (one input channel per group, G == IC, OC = IC or 2 x IC): a
// direct kernel that gathers each output pixel's window straight from the NHWC
// activations, 64 channels per zmm (32 per ymm), and requantizes in registers.
//
// Weights are packed once by PackedDepthWiseConvMatrix: channels in blocks of 64, taps
// in quads of 4, so that one 32-bit lane holds the four taps of one channel, the operand
// shape of vpdpbusd (docs/convolution.md, "Depthwise").
#pragma once

#include <cstdint>
#include <string>

#include "quire/ConvUtils.h"
#include "quire/Types.h"
#include "quire/detail/Check.h"
#include "quire/detail/ConvDirect.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

class PackedDepthWiseConvMatrix {
 public:
  // OC (output) channels, kernel_prod taps each (9 for 3x3, 25 for 5x5, 49 for 7x7, 27
  // for 3x3x3, ...); smat is OC x kernel_prod, taps row-major over the kernel (the KRSC
  // weights of a depthwise convolution, with or without channel multiplier). Throws
  // std::invalid_argument on bad arguments.
  PackedDepthWiseConvMatrix(int OC, int kernel_prod, const int8_t* smat);
  virtual ~PackedDepthWiseConvMatrix();
  PackedDepthWiseConvMatrix(const PackedDepthWiseConvMatrix&) = delete;
  PackedDepthWiseConvMatrix& operator=(const PackedDepthWiseConvMatrix&) = delete;

  const int8_t* PackedMat() const { return pmat_; }
  int GetKernelProduct() const { return kernel_prod_; }
  int numChannels() const { return OC_; }
  // Writes the weights back as OC x kernel_prod.
  void unpack(int8_t* unpacked_data) const;
  // Index in PackedMat() of weight (channel r, tap c).
  int addr(int r, int c) const;
  // Bytes of the packed quads (what PackedMat() and addr() index): ceil(OC / 64) blocks x
  // ceil(kernel_prod / 4) quads x 256. A 3x3 kernel with OC a multiple of 16 also keeps,
  // after them, the weights of the row kernels and of the ymm paths' tap-pair kernel in
  // their own layouts (docs/convolution.md), which this does not count.
  static int64_t packedBytes(int OC, int kernel_prod);

 private:
  int OC_;
  int kernel_prod_;
  int8_t* pmat_;
};

namespace detail {

inline DirectRequant depthwise_requant(int32_t A_zero_point, const int32_t* B_zero_point,
                                       const float* C_multiplier, int32_t C_zero_point,
                                       const int32_t* col_offsets, bool fuse_relu,
                                       const float* act_times_w_scale) {
  DirectRequant r;
  r.a_zero_point = A_zero_point;
  r.b_zero_point = B_zero_point;
  r.col_offsets = col_offsets;
  r.c_multiplier = C_multiplier;
  r.c_zero_point = C_zero_point;
  r.act_times_w_scale = act_times_w_scale;
  r.fuse_relu = fuse_relu;
  return r;
}

}  // namespace detail

// Depthwise 2D convolution, N x H x W x IC (NHWC) -> N x OH x OW x OC uint8, with the
// padding that keeps the size at stride 1: (K - 1) / 2 on every side, K = 3, 5 or 7
// from Bp. OC is IC or 2 x IC (channel multiplier 2: output channel c reads input
// channel c / 2, with Bp's row c of weights). Requantization as
// ReQuantizeOutput<fuse_relu, Q_GRAN, BIAS_T> with one quantization group per conv
// group (input channel) for GROUP and per output channel for OUT_CHANNEL; col_offsets
// (sum of the channel's weights - kernel_prod * B_zero_point) may be null when the
// A_zero_point term is folded into the bias. Each of num_threads calls computes its
// share of the output pixels. Bad arguments throw std::invalid_argument whose message
// starts with "[FBGEMM_CONV_ERROR]", FBGEMM's prefix for conv errors.
template <QuantizationGranularity Q_GRAN, typename BIAS_T = int32_t>
void depthwise_2d_same_pad(int N, int H, int W, int IC, int OC, int stride_h, int stride_w,
                           int32_t A_zero_point, const uint8_t* A, const int32_t* B_zero_point,
                           const PackedDepthWiseConvMatrix& Bp, const float* C_multiplier,
                           int32_t C_zero_point, uint8_t* C, const int32_t* col_offsets,
                           const BIAS_T* bias, bool fuse_relu = false,
                           const float* act_times_w_scale = nullptr, int thread_id = 0,
                           int num_threads = 1) {
  constexpr const char* kWhere = "[FBGEMM_CONV_ERROR] depthwise_2d_same_pad";
  detail::check_arg(IC >= 1, kWhere, "IC", IC, "must be >= 1");
  detail::check_arg(OC == IC || OC == 2 * IC, kWhere, "OC", OC,
                    "must be IC or 2 x IC (channel multiplier 1 or 2)");
  detail::check_arg(Bp.numChannels() == OC, kWhere, "Bp.numChannels()", Bp.numChannels(),
                    "must equal OC");
  const int kp = Bp.GetKernelProduct();
  detail::check_arg(kp == 9 || kp == 25 || kp == 49, kWhere, "Bp.GetKernelProduct()", kp,
                    "must be 9 (3x3), 25 (5x5) or 49 (7x7)");
  const int k = kp == 9 ? 3 : kp == 25 ? 5 : 7, pad = (k - 1) / 2;
  const conv_param_t<2> p(N, IC, OC, {H, W}, IC, {k, k}, {stride_h, stride_w},
                          {pad, pad, pad, pad});
  detail::DirectRequant r = detail::depthwise_requant(A_zero_point, B_zero_point, C_multiplier,
                                                      C_zero_point, col_offsets, fuse_relu,
                                                      act_times_w_scale);
  detail::set_bias_and_granularity<Q_GRAN>(r, bias, OC / IC);
  detail::depthwise_conv(detail::conv_geometry(p), A, Bp.PackedMat(), r, C, thread_id,
                         num_threads, kWhere);
}

// Depthwise 3D convolution with conv_p's kernel, strides and pads (G == IC, OC = IC or
// 2 x IC, dilation 1; any kernel: FBGEMM's fast path sends 3, 5 or 7 in time by 3x3,
// 5x5 or 7x7 here); otherwise as depthwise_2d_same_pad.
template <QuantizationGranularity Q_GRAN, typename BIAS_T = int32_t>
void depthwise_3d_same_pad(const conv_param_t<3>& conv_p, int32_t A_zero_point,
                           const uint8_t* A, const int32_t* B_zero_point,
                           const PackedDepthWiseConvMatrix& Bp, const float* C_multiplier,
                           int32_t C_zero_point, uint8_t* C, const int32_t* col_offsets,
                           const BIAS_T* bias, bool fuse_relu = false,
                           const float* act_times_w_scale = nullptr, int thread_id = 0,
                           int num_threads = 1) {
  constexpr const char* kWhere = "[FBGEMM_CONV_ERROR] depthwise_3d_same_pad";
  detail::check_conv_param(conv_p, kWhere);
  detail::check_arg(conv_p.G == conv_p.IC, kWhere, "conv_p.G", conv_p.G, "must equal IC");
  detail::check_arg(conv_p.OC == conv_p.IC || conv_p.OC == 2 * conv_p.IC, kWhere, "conv_p.OC",
                    conv_p.OC, "must be IC or 2 x IC (channel multiplier 1 or 2)");
  detail::check_arg(!conv_p.transposed, kWhere, "conv_p.transposed", 1, "is not supported");
  for (int d = 0; d < 3; ++d)
    detail::check_arg(conv_p.dilation[d] == 1, kWhere, "conv_p.dilation[d]", conv_p.dilation[d],
                      "must be 1");
  const int kp = conv_p.K[0] * conv_p.K[1] * conv_p.K[2];
  detail::check_arg(Bp.GetKernelProduct() == kp, kWhere, "Bp.GetKernelProduct()",
                    Bp.GetKernelProduct(), "must equal conv_p.K[0] * K[1] * K[2]");
  detail::check_arg(Bp.numChannels() == conv_p.OC, kWhere, "Bp.numChannels()", Bp.numChannels(),
                    "must equal OC");
  detail::DirectRequant r = detail::depthwise_requant(A_zero_point, B_zero_point, C_multiplier,
                                                      C_zero_point, col_offsets, fuse_relu,
                                                      act_times_w_scale);
  detail::set_bias_and_granularity<Q_GRAN>(r, bias, conv_p.OC / conv_p.IC);
  detail::depthwise_conv(detail::conv_geometry(conv_p), A, Bp.PackedMat(), r, C, thread_id,
                         num_threads, kWhere);
}

}  // namespace quire
QUIRE_API_END
