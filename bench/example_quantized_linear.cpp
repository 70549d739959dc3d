// quire-example-linear: a float linear layer y = x W^T + b run as an int8 GEMM, two ways,
// with the error against the float result. docs/quantization.md walks through it.
//   weights  W (N x K) quantized once, symmetric per output channel, to int8
//   dynamic  x (M x K) float, quantized to uint8 while it is packed; float y out
//   static   x quantized beforehand, y requantized to uint8 with a chosen output scale
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "quire/quire.h"

using namespace quire;

int main() {
  const int M = 8, N = 256, K = 1024;
  std::mt19937 gen(2026);
  std::normal_distribution<float> act(0.3f, 1.0f), wgt(0.0f, 0.05f);
  std::vector<float> x(size_t(M) * K), W(size_t(N) * K), bias(N);
  for (float& v : x) v = act(gen);
  for (float& v : W) v = wgt(gen);
  for (float& v : bias) v = wgt(gen);

  // The float layer, in double: the reference.
  std::vector<double> y_ref(size_t(M) * N);
  for (int i = 0; i < M; ++i)
    for (int n = 0; n < N; ++n) {
      double s = bias[n];
      for (int k = 0; k < K; ++k) s += double(x[size_t(i) * K + k]) * W[size_t(n) * K + k];
      y_ref[size_t(i) * N + n] = s;
    }

  // 1. Weights, once: per output channel n, symmetric int8 (zero point 0):
  //    scale_w[n] = max|W[n]| / 127 (ChooseQuantizationParams with preserve_sparsity).
  std::vector<int8_t> Wq(W.size());
  std::vector<float> w_scale(N);
  std::vector<int32_t> w_zp(N);
  for (int n = 0; n < N; ++n) {
    const float* row = W.data() + size_t(n) * K;
    const auto [lo, hi] = std::minmax_element(row, row + K);
    const TensorQuantizationParams q = ChooseQuantizationParams(*lo, *hi, -128, 127, true);
    w_scale[n] = q.scale;
    w_zp[n] = q.zero_point;
    Quantize<int8_t>(row, Wq.data() + size_t(n) * K, K, q);
  }
  // B = W^T: W is stored N x K, which is B's Transpose form with ld = K.
  PackBMatrix<int8_t> packedW(matrix_op_t::Transpose, K, N, Wq.data(), K);
  // col_offsets[n] = sum_k Wq[n][k] - K * w_zp[n]: the correction for x's zero point.
  std::vector<int32_t> col_offsets(N);
  for (int n = 0; n < N; ++n) {
    int32_t s = 0;
    for (int k = 0; k < K; ++k) s += Wq[size_t(n) * K + k];
    col_offsets[n] = s - K * w_zp[n];
  }

  auto report = [&](const char* name, const std::vector<float>& y, double bound) {
    double max_err = 0, max_ref = 0;
    for (size_t i = 0; i < y.size(); ++i) {
      max_err = std::max(max_err, std::fabs(y[i] - y_ref[i]));
      max_ref = std::max(max_ref, std::fabs(y_ref[i]));
    }
    std::printf("%-8s max |y - y_float| = %.5f  (%.3f%% of max |y_float| = %.3f; bound %.5f)\n",
                name, max_err, 100 * max_err / max_ref, max_ref, bound);
  };

  // 2a. Dynamic: x's scale and zero point from the data, quantized while packed.
  const TensorQuantizationParams qx = ChooseActivationQuantization(x.data(), M, K, K);
  std::vector<float> y_dyn(size_t(M) * N);
  {
    PackAWithQuantRowOffset<uint8_t> packX(matrix_op_t::NoTranspose, M, K, x.data(), K, nullptr,
                                           qx.scale, qx.zero_point);
    DoNothing<float, float> done;
    // y = scale_x * scale_w[n] * (acc - zp_x * col_offsets[n] - zp_w[n] * row_offsets[i]) + b[n]
    ReQuantizeForFloat<false, QuantizationGranularity::OUT_CHANNEL> out(
        done, qx.scale, w_scale.data(), qx.zero_point, w_zp.data(), packX.getRowOffsetBuffer(),
        col_offsets.data(), bias.data(), N);
    fbgemmPacked(packX, packedW, y_dyn.data(), reinterpret_cast<int32_t*>(y_dyn.data()), N, out, 0, 1);
  }
  // Each x element is off by at most scale_x / 2 and each weight by scale_w[n] / 2, so
  // |error| <= sum_k (|W| scale_x / 2 + |x| scale_w / 2 + scale_x scale_w / 4).
  double bound = 0;
  for (int i = 0; i < M; ++i)
    for (int n = 0; n < N; ++n) {
      double b = 0;
      for (int k = 0; k < K; ++k)
        b += std::fabs(W[size_t(n) * K + k]) * qx.scale / 2 +
             std::fabs(x[size_t(i) * K + k]) * w_scale[n] / 2 + qx.scale * w_scale[n] / 4;
      bound = std::max(bound, b);
    }
  report("dynamic", y_dyn, bound);

  // 2b. Static: x quantized beforehand, y requantized to uint8 with an output scale
  // chosen from y's expected range (here: the reference's), then dequantized to compare.
  const auto [ylo, yhi] = std::minmax_element(y_ref.begin(), y_ref.end());
  const TensorQuantizationParams qy = ChooseQuantizationParams(float(*ylo), float(*yhi), 0, 255);
  std::vector<uint8_t> xq(x.size());
  Quantize<uint8_t>(x.data(), xq.data(), int64_t(xq.size()), qx);
  std::vector<float> multiplier(N), act_times_w_scale(N);
  for (int n = 0; n < N; ++n) {
    act_times_w_scale[n] = qx.scale * w_scale[n];
    multiplier[n] = act_times_w_scale[n] / qy.scale;  // accumulator units -> y codes
  }
  std::vector<uint8_t> yq(size_t(M) * N);
  std::vector<int32_t> scratch(size_t(M) * N);
  {
    PackAWithRowOffset<uint8_t> packX(matrix_op_t::NoTranspose, M, K, xq.data(), K);
    DoNothing<> done;
    // y_code = clamp(nearbyint((raw + bias[n] / (scale_x scale_w[n])) * multiplier[n]) + zp_y, 0, 255)
    ReQuantizeOutput<false, QuantizationGranularity::OUT_CHANNEL, float> out(
        done, multiplier.data(), qy.zero_point, qx.zero_point, w_zp.data(), packX.getRowOffsetBuffer(),
        col_offsets.data(), bias.data(), N, 1, act_times_w_scale.data());
    fbgemmPacked(packX, packedW, yq.data(), scratch.data(), N, out, 0, 1);
  }
  std::vector<float> y_static(yq.size());
  for (size_t i = 0; i < yq.size(); ++i) y_static[i] = Dequantize<uint8_t>(yq[i], qy);
  report("static", y_static, bound + qy.scale / 2);

  std::printf("scales: x %.6f (zero point %d), y %.6f (zero point %d), w[0] %.6f\n", qx.scale,
              qx.zero_point, qy.scale, qy.zero_point, w_scale[0]);
  return 0;
}
