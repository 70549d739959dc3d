// PyTorch's quantized transposed convolution (ConvTranspose2d, FBGEMM backend), written
// the way aten/src/ATen/native/quantized/cpu does it and compiled against quire through
// the compatibility headers only: prepack with a dummy batch and image size, compute the
// direct path's per-pixel column offsets on the first forward call when
// getPackedWForDirectconv() is set, then fbgemmConv once per task with a
// ReQuantizeOutput<relu, TENSOR, float> pipeline. Checked bit for bit against a naive
// transposed convolution written here (scatter form) and ReQuantizeOutput's formula.
// Also: the older header name fbgemm/FbgemmI8DepthwiseAvx2.h still compiles and works.
#include <fbgemm/Fbgemm.h>
#include <fbgemm/FbgemmI8DepthwiseAvx2.h>
#include <fbgemm/FbgemmI8DirectconvAvx2.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

using namespace fbgemm;

namespace {

// ---- client code, PyTorch style ------------------------------------------------------

struct PackedConvTransposeWeight {
  std::unique_ptr<PackWeightsForConv<2>> w;
  std::vector<int32_t> col_offsets;  // per channel at prepack; per pixel once direct
  std::vector<int32_t> w_zp;
  std::array<int, 2> kernel, stride, padding, output_padding;
};

// weight: KRSC (OC x KH x KW x IC, G = 1), per-tensor zero point.
PackedConvTransposeWeight prepack(const std::vector<int8_t>& weight, int IC, int OC,
                                  std::array<int, 2> kernel, std::array<int, 2> stride,
                                  std::array<int, 2> padding, std::array<int, 2> output_padding,
                                  int32_t w_zp) {
  const conv_param_t<2> conv_p(1, IC, OC, {28, 28}, 1, kernel, stride,
                               {padding[0], padding[1], padding[0], padding[1]}, {1, 1},
                               output_padding, true);
  PackedConvTransposeWeight p;
  p.w = std::make_unique<PackWeightsForConv<2>>(conv_p, weight.data());
  const int inner = kernel[0] * kernel[1] * IC;
  p.col_offsets.resize(OC);
  for (int c = 0; c < OC; ++c) {
    int32_t sum = 0;
    for (int j = 0; j < inner; ++j) sum += weight[static_cast<size_t>(c) * inner + j];
    p.col_offsets[c] = sum - w_zp * inner;
  }
  p.w_zp = {w_zp};
  p.kernel = kernel;
  p.stride = stride;
  p.padding = padding;
  p.output_padding = output_padding;
  return p;
}

template <bool kReluFused>
std::vector<uint8_t> apply(PackedConvTransposeWeight& pw, const std::vector<uint8_t>& act, int N,
                           int H, int W, int32_t act_zp, float act_scale, float w_scale,
                           const float* bias, float output_scale, int32_t output_zp,
                           int num_tasks) {
  const int IC = pw.w->inputChannels(), M = pw.w->outputChannels();
  const conv_param_t<2> conv_p(N, IC, M, {H, W}, 1, pw.kernel, pw.stride,
                               {pw.padding[0], pw.padding[1], pw.padding[0], pw.padding[1]},
                               {1, 1}, pw.output_padding, true);
  const float act_times_w_scale = act_scale * w_scale;
  const float output_multiplier = act_times_w_scale / output_scale;
  if (pw.w->getPackedWForDirectconv().get() &&
      pw.w->getPackedWForDirectconv().get()->is_first_call()) {
    pw.w->getPackedWForDirectconv().get()->col_offsets_with_zero_pt_s8acc32_DirectConvT(
        conv_p, pw.w_zp.data(), pw.col_offsets, M);
  }
  std::vector<uint8_t> output(static_cast<size_t>(N) * conv_p.OUT_DIM[0] * conv_p.OUT_DIM[1] * M);
  std::vector<int32_t> buffer(output.size());
  for (int task_id = 0; task_id < num_tasks; ++task_id) {
    DoNothing<> kNoOpObj{};
    ReQuantizeOutput<kReluFused, QuantizationGranularity::TENSOR, float> output_proc_obj(
        kNoOpObj, &output_multiplier, output_zp, act_zp, pw.w_zp.data(), nullptr,
        pw.col_offsets.data(), bias, M, 1, &act_times_w_scale);
    fbgemmConv<decltype(output_proc_obj), 2, int32_t>(conv_p, act.data(), *pw.w, output.data(),
                                                      buffer.data(), output_proc_obj, task_id,
                                                      num_tasks);
  }
  return output;
}

// ---- naive reference: scatter each input pixel through each tap ---------------------

std::vector<uint8_t> naive(const std::vector<uint8_t>& act, const std::vector<int8_t>& weight,
                           int N, int H, int W, int IC, int OC, std::array<int, 2> k,
                           std::array<int, 2> s, std::array<int, 2> pad, std::array<int, 2> opad,
                           int32_t a_zp, int32_t w_zp, float multiplier, float act_w_scale,
                           const float* bias, int32_t out_zp, bool relu) {
  const int OH = (H - 1) * s[0] - 2 * pad[0] + k[0] - 1 + opad[0] + 1;
  const int OW = (W - 1) * s[1] - 2 * pad[1] + k[1] - 1 + opad[1] + 1;
  std::vector<int64_t> acc(static_cast<size_t>(N) * OH * OW * OC, 0);
  for (int n = 0; n < N; ++n)
    for (int ih = 0; ih < H; ++ih)
      for (int iw = 0; iw < W; ++iw)
        for (int kh = 0; kh < k[0]; ++kh)
          for (int kw = 0; kw < k[1]; ++kw) {
            const int oh = ih * s[0] + kh - pad[0], ow = iw * s[1] + kw - pad[1];
            if (oh < 0 || oh >= OH || ow < 0 || ow >= OW) continue;
            for (int oc = 0; oc < OC; ++oc)
              for (int ic = 0; ic < IC; ++ic)
                acc[((size_t(n) * OH + oh) * OW + ow) * OC + oc] +=
                    (int64_t{act[((size_t(n) * H + ih) * W + iw) * IC + ic]} - a_zp) *
                    (int64_t{weight[((size_t(oc) * k[0] + kh) * k[1] + kw) * IC + ic]} - w_zp);
          }
  std::vector<uint8_t> out(acc.size());
  for (size_t i = 0; i < acc.size(); ++i) {
    const int oc = static_cast<int>(i % OC);
    float x = static_cast<float>(static_cast<int32_t>(acc[i]));
    if (bias != nullptr) x = x + bias[oc] / act_w_scale;
    x = x * multiplier;
    const float lo = relu ? static_cast<float>(out_zp) : 0.0f;
    out[i] = static_cast<uint8_t>(std::clamp(std::nearbyint(x) + out_zp, lo, 255.0f));
  }
  return out;
}

std::vector<uint8_t> random_bytes(size_t n, int lo, int hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = static_cast<uint8_t>(std::uniform_int_distribution<int>(lo, hi)(rng));
  return v;
}

TEST(TransposedConvCompat, PyTorchCallSequence) {
  struct Layer {
    int IC, OC;
    std::array<int, 2> k, s, pad, opad;
    int N, H, W;
    bool direct;
  };
  const Layer layers[] = {
      {256, 176, {2, 6}, {1, 2}, {0, 0}, {0, 0}, 1, 2, 4, true},
      {64, 32, {2, 4}, {2, 2}, {0, 0}, {1, 1}, 2, 5, 7, true},
      {16, 8, {3, 3}, {2, 2}, {1, 1}, {1, 1}, 2, 4, 5, false},
      {12, 20, {2, 2}, {2, 2}, {0, 0}, {0, 0}, 1, 3, 3, false},
      // output_padding at or past the stride (PyTorch refuses it, FBGEMM computes it).
      {16, 16, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, 6, 5, false},
      {8, 24, {3, 3}, {2, 2}, {1, 0}, {2, 3}, 2, 4, 3, false},
  };
  for (const Layer& l : layers) {
    SCOPED_TRACE("IC=" + std::to_string(l.IC) + " OC=" + std::to_string(l.OC));
    std::vector<int8_t> weight(static_cast<size_t>(l.OC) * l.k[0] * l.k[1] * l.IC);
    const std::vector<uint8_t> wb = random_bytes(weight.size(), 0, 255, 11);
    std::transform(wb.begin(), wb.end(), weight.begin(),
                   [](uint8_t b) { return static_cast<int8_t>(b - 128); });
    const std::vector<uint8_t> act =
        random_bytes(static_cast<size_t>(l.N) * l.H * l.W * l.IC, 0, 255, 12);
    std::vector<float> bias(l.OC);
    for (int i = 0; i < l.OC; ++i) bias[i] = static_cast<float>((i * 37) % 101 - 50) * 0.25f;
    const int32_t w_zp = -7, act_zp = 61, out_zp = 100;
    const float act_scale = 0.05f, w_scale = 0.01f;
    const float output_scale = act_scale * w_scale * 128.0f * 74.0f * 2.0f *
                               std::sqrt(static_cast<float>(l.k[0] * l.k[1] * l.IC)) / 60.0f;
    PackedConvTransposeWeight pw =
        prepack(weight, l.IC, l.OC, l.k, l.s, l.pad, l.opad, w_zp);
    EXPECT_EQ(l.direct, pw.w->getPackedWForDirectconv() != nullptr);
    const float multiplier = act_scale * w_scale / output_scale;
    for (int call = 0; call < 2; ++call) {  // the second call reuses the offsets
      const std::vector<uint8_t> want =
          naive(act, weight, l.N, l.H, l.W, l.IC, l.OC, l.k, l.s, l.pad, l.opad, act_zp, w_zp,
                multiplier, act_scale * w_scale, bias.data(), out_zp, call == 1);
      const std::vector<uint8_t> got =
          call == 0 ? apply<false>(pw, act, l.N, l.H, l.W, act_zp, act_scale, w_scale,
                                   bias.data(), output_scale, out_zp, 3)
                    : apply<true>(pw, act, l.N, l.H, l.W, act_zp, act_scale, w_scale,
                                  bias.data(), output_scale, out_zp, 2);
      EXPECT_EQ(want, got) << "call " << call;
    }
  }
}

// Old client code including fbgemm/FbgemmI8DepthwiseAvx2.h: a 3x3 depthwise layer.
TEST(TransposedConvCompat, OldDepthwiseHeader) {
  const int C = 16, H = 5, W = 6;
  std::vector<int8_t> w(static_cast<size_t>(C) * 9);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int8_t>(static_cast<int>(i * 29 % 255) - 127);
  const std::vector<uint8_t> act = random_bytes(static_cast<size_t>(H) * W * C, 0, 255, 3);
  PackedDepthWiseConvMatrix packed(C, 9, w.data());
  const int32_t a_zp = 10, b_zp = 0, c_zp = 7;
  const float mult = 0.002f;
  std::vector<int32_t> col(C);
  for (int c = 0; c < C; ++c) {
    int32_t s = 0;
    for (int t = 0; t < 9; ++t) s += w[static_cast<size_t>(c) * 9 + t];
    col[c] = s;
  }
  std::vector<uint8_t> out(static_cast<size_t>(H) * W * C);
  depthwise_2d_same_pad<QuantizationGranularity::TENSOR>(
      1, H, W, C, C, 1, 1, a_zp, act.data(), &b_zp, packed, &mult, c_zp, out.data(), col.data(),
      static_cast<const int32_t*>(nullptr));
  for (int h = 0; h < H; ++h)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < C; ++c) {
        int32_t acc = 0;
        for (int r = 0; r < 3; ++r)
          for (int s = 0; s < 3; ++s) {
            const int ih = h + r - 1, iw = x + s - 1;
            const int a = ih < 0 || ih >= H || iw < 0 || iw >= W
                              ? a_zp
                              : act[(static_cast<size_t>(ih) * W + iw) * C + c];
            acc += (a - a_zp) * w[static_cast<size_t>(c) * 9 + r * 3 + s];
          }
        const float v = std::nearbyint(static_cast<float>(acc) * mult) + c_zp;
        ASSERT_EQ(static_cast<uint8_t>(std::clamp(v, 0.0f, 255.0f)),
                  out[(static_cast<size_t>(h) * W + x) * C + c]);
      }
}

}  // namespace
