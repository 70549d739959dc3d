// Convolution client code written for FBGEMM, compiled against quire through the
// compatibility headers only (no quire header is included by name): a quantized conv
// layer through fbgemmConv (the way FBGEMM's own conv tests drive it), the fused-im2col
// GEMM written out by hand (PackAWithIm2Col + fbgemmPacked), and a depthwise layer
// through depthwise_2d_same_pad. Results are checked against a naive reference written
// here, bit for bit.
#include <fbgemm/ConvUtils.h>
#include <fbgemm/Fbgemm.h>
#include <fbgemm/FbgemmI8Depthwise.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

using namespace fbgemm;

namespace {

// ---- client code, FBGEMM style ------------------------------------------------------

// One requantized conv layer, per-channel quantization, int32 bias, ReLU.
void conv_layer(const conv_param_t<>& conv_p, const uint8_t* act, int32_t act_zp,
                PackWeightsForConv<2>& packed_w, const float* multiplier, int32_t out_zp,
                const int32_t* w_zp, const int32_t* col_offsets, const int32_t* bias,
                uint8_t* out, int32_t* out_buffer, int thread_id, int num_threads) {
  DoNothing<> doNothingObj{};
  ReQuantizeOutput<true, QuantizationGranularity::OUT_CHANNEL> outputProcObj(
      doNothingObj, multiplier, out_zp, act_zp, w_zp, nullptr, col_offsets, bias, conv_p.OC,
      conv_p.G);
  fbgemmConv(conv_p, act, packed_w, out, out_buffer, outputProcObj, thread_id, num_threads);
}

// The fused-im2col GEMM spelled out, per-tensor quantization.
void im2col_layer(const conv_param_t<>& conv_p, const uint8_t* act, int32_t act_zp,
                  PackBMatrix<int8_t>& packed_b, float multiplier, int32_t out_zp, int32_t w_zp,
                  const int32_t* col_offsets, uint8_t* out, int32_t* out_buffer) {
  std::vector<int32_t> row_offset_buf(PackAWithIm2Col<uint8_t>::rowOffsetBufferSize());
  PackAWithIm2Col<uint8_t> packA(conv_p, act, nullptr, act_zp, row_offset_buf.data());
  DoNothing<> doNothingObj{};
  ReQuantizeOutput<false> outputProcObj(doNothingObj, &multiplier, out_zp, act_zp, &w_zp,
                                        packA.getRowOffsetBuffer(), col_offsets, nullptr,
                                        conv_p.OC, conv_p.G);
  fbgemmPacked(packA, packed_b, out, out_buffer, conv_p.OC, outputProcObj, 0, 1);
}

// ---- the test's own reference -------------------------------------------------------

struct Layer {
  conv_param_t<> p;
  std::vector<uint8_t> act;
  std::vector<int8_t> w;  // KRSC
  int32_t act_zp = 7;
};

Layer make_layer(const conv_param_t<>& p) {
  Layer l{p, {}, {}};
  std::mt19937 rng(42);
  l.act.resize(size_t(p.MB) * p.IN_DIM[0] * p.IN_DIM[1] * p.IC);
  for (auto& a : l.act) a = static_cast<uint8_t>(rng());
  l.w.resize(size_t(p.OC) * p.K[0] * p.K[1] * (p.IC / p.G));
  for (auto& w : l.w) w = static_cast<int8_t>(rng());
  return l;
}

// out = clamp(round((acc - a_zp * colsum - w_zp * rowsum + bias) * multiplier) + out_zp)
std::vector<uint8_t> naive(const Layer& l, const std::vector<int32_t>& w_zp,
                           const std::vector<float>& mult, int32_t out_zp,
                           const std::vector<int32_t>& bias, bool relu, bool per_channel) {
  const conv_param_t<>& p = l.p;
  const int icg = p.IC / p.G, ocg = p.OC / p.G, OH = p.OUT_DIM[0], OW = p.OUT_DIM[1];
  std::vector<uint8_t> out(size_t(p.MB) * OH * OW * p.OC);
  for (int n = 0; n < p.MB; ++n)
    for (int oh = 0; oh < OH; ++oh)
      for (int ow = 0; ow < OW; ++ow)
        for (int oc = 0; oc < p.OC; ++oc) {
          const int g = oc / ocg, q = per_channel ? oc : 0;
          int64_t acc = 0;
          for (int r = 0; r < p.K[0]; ++r)
            for (int s = 0; s < p.K[1]; ++s)
              for (int c = 0; c < icg; ++c) {
                const int ih = oh * p.stride[0] - p.pad[0] + r * p.dilation[0];
                const int iw = ow * p.stride[1] - p.pad[1] + s * p.dilation[1];
                const bool inside = ih >= 0 && ih < p.IN_DIM[0] && iw >= 0 && iw < p.IN_DIM[1];
                const int a = inside ? l.act[((size_t(n) * p.IN_DIM[0] + ih) * p.IN_DIM[1] + iw) * p.IC + g * icg + c]
                                     : l.act_zp;
                const int w = l.w[((size_t(oc) * p.K[0] + r) * p.K[1] + s) * icg + c];
                acc += int64_t(a - l.act_zp) * (w - w_zp[q]);
              }
          const float x = static_cast<float>(acc + (bias.empty() ? 0 : bias[oc])) * mult[q];
          const int lo = relu ? out_zp : 0;
          out[((size_t(n) * OH + oh) * OW + ow) * p.OC + oc] =
              static_cast<uint8_t>(std::clamp(static_cast<int>(std::nearbyint(x)) + out_zp, lo, 255));
        }
  return out;
}

// col_offsets[oc] = sum of the weights - Kg * w_zp (the form ReQuantizeOutput expects).
std::vector<int32_t> col_offsets(const Layer& l, const std::vector<int32_t>& w_zp, bool per_channel) {
  const int kg = l.p.K[0] * l.p.K[1] * (l.p.IC / l.p.G);
  std::vector<int32_t> col(l.p.OC);
  for (int oc = 0; oc < l.p.OC; ++oc) {
    int32_t s = 0;
    for (int k = 0; k < kg; ++k) s += l.w[size_t(oc) * kg + k];
    col[oc] = s - kg * w_zp[per_channel ? oc : 0];
  }
  return col;
}

TEST(ConvCompat, FbgemmConvLayers) {
  const std::vector<conv_param_t<>> shapes = {
      conv_param_t<>(1, 32, 32, {9, 9}, 32, {3, 3}, {1, 1}, {1, 1, 1, 1}),    // depthwise
      conv_param_t<>(1, 64, 64, {7, 7}, 16, {3, 3}, {2, 2}, {1, 1, 1, 1}),    // groupwise
      conv_param_t<>(2, 16, 24, {5, 6}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}),     // pointwise
      conv_param_t<>(1, 3, 16, {15, 15}, 1, {7, 7}, {2, 2}, {3, 3, 3, 3}),    // im2col
  };
  const optimized_conv_t paths[] = {optimized_conv_t::depthwise, optimized_conv_t::groupwise,
                                    optimized_conv_t::pointwise, optimized_conv_t::im2col};
  for (size_t i = 0; i < shapes.size(); ++i) {
    const Layer l = make_layer(shapes[i]);
    SCOPED_TRACE(l.p.toString());
    EXPECT_EQ(paths[i], (ConvFastPath<2, int32_t>(l.p)));
    std::vector<int32_t> w_zp(l.p.OC), bias(l.p.OC);
    std::vector<float> mult(l.p.OC);
    for (int oc = 0; oc < l.p.OC; ++oc) {
      w_zp[oc] = oc % 5 - 2;
      bias[oc] = 100 * oc - 1000;
      mult[oc] = 0.0005f + 0.00001f * oc;
    }
    const std::vector<int32_t> col = col_offsets(l, w_zp, true);
    PackWeightsForConv<2> packed(l.p, l.w.data());
    const std::vector<uint8_t> want = naive(l, w_zp, mult, 100, bias, true, true);
    std::vector<uint8_t> got(want.size());
    std::vector<int32_t> buffer(want.size());
    for (int t = 0; t < 2; ++t)
      conv_layer(l.p, l.act.data(), l.act_zp, packed, mult.data(), 100, w_zp.data(), col.data(),
                 bias.data(), got.data(), buffer.data(), t, 2);
    EXPECT_EQ(want, got);
  }
}

TEST(ConvCompat, FusedIm2colGemm) {
  const Layer l = make_layer(conv_param_t<>(2, 8, 12, {9, 7}, 2, {3, 3}, {1, 2}, {1, 0, 1, 1}));
  const int kg = 9 * 4;
  PackBMatrix<int8_t> packed_b(matrix_op_t::Transpose, kg * 2, 6, l.w.data(), kg, nullptr, 2);
  const std::vector<int32_t> w_zp = {3};
  const std::vector<float> mult = {0.002f};
  const std::vector<int32_t> col = col_offsets(l, w_zp, false);
  const std::vector<uint8_t> want = naive(l, w_zp, mult, 128, {}, false, false);
  std::vector<uint8_t> got(want.size());
  std::vector<int32_t> buffer(want.size());
  im2col_layer(l.p, l.act.data(), l.act_zp, packed_b, mult[0], 128, w_zp[0], col.data(), got.data(),
               buffer.data());
  EXPECT_EQ(want, got);
}

TEST(ConvCompat, DepthwiseSamePad) {
  const Layer l = make_layer(conv_param_t<>(1, 48, 48, {10, 11}, 48, {5, 5}, {2, 2}, {2, 2, 2, 2}));
  PackedDepthWiseConvMatrix Bp(48, 25, l.w.data());
  const std::vector<int32_t> w_zp = {-4};
  const std::vector<float> mult = {0.003f};
  const std::vector<int32_t> col = col_offsets(l, w_zp, false);
  std::vector<int32_t> bias(48, 250);
  const std::vector<uint8_t> want = naive(l, w_zp, mult, 90, bias, false, false);
  std::vector<uint8_t> got(want.size());
  depthwise_2d_same_pad<QuantizationGranularity::TENSOR>(
      1, 10, 11, 48, 48, 2, 2, l.act_zp, l.act.data(), w_zp.data(), Bp, mult.data(), 90,
      got.data(), col.data(), bias.data());
  EXPECT_EQ(want, got);
}

}  // namespace
