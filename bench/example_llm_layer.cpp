// quire-example-llm-layer: one transformer MLP block of a 7B-class model (Llama's
// SwiGLU: d = 4096, hidden 11008) with 4-bit weights, on random weights:
//   y = W_down (SiLU(x W_gate) * (x W_up))
// Each weight matrix is quantized to 4 bits as Q4_0 files are made (symmetric, groups of
// 32 along K, fp16 scales) and run with int4Gemm; the block is compared with the same
// block in float (double accumulation) on the unquantized weights and on the 4-bit
// weights themselves (what the weights cost, and what the int8 activations add), and
// timed per token (M = 1, the decode step).
//   usage: quire-example-llm-layer [threads (default 1)] [tokens to time (default 50)]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <utility>
#include <vector>

#include "quire/quire.h"

using namespace quire;

namespace {

constexpr int kModel = 4096, kHidden = 11008, kGroup = 32;

// K x N float weights ~ N(0, 0.02), row-major.
std::vector<float> random_weights(int K, int N, uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> d(0.0f, 0.02f);
  std::vector<float> w(size_t(K) * N);
  for (float& x : w) x = d(gen);
  return w;
}

// Q4_0's rule per group of kGroup along K: x the weight of largest magnitude, scale
// d = x / -8 (stored as fp16), v = min(15, trunc(w / d + 8.5)) - 8 (x maps to -8).
PackedInt4Weights quantize(const std::vector<float>& w, int K, int N) {
  const int groups = K / kGroup;
  std::vector<int8_t> v(w.size());
  std::vector<float16> s(size_t(groups) * N);
  for (int g = 0; g < groups; ++g)
    for (int j = 0; j < N; ++j) {
      float x = 0;
      for (int k = g * kGroup; k < (g + 1) * kGroup; ++k)
        if (std::fabs(w[size_t(k) * N + j]) > std::fabs(x)) x = w[size_t(k) * N + j];
      const float d = x / -8;
      const float inv = d != 0 ? 1 / d : 0;
      s[size_t(g) * N + j] = cpu_float2half_rn(d);
      for (int k = g * kGroup; k < (g + 1) * kGroup; ++k)
        v[size_t(k) * N + j] = static_cast<int8_t>(std::min(15, int(w[size_t(k) * N + j] * inv + 8.5f)) - 8);
    }
  return PackedInt4Weights(matrix_op_t::NoTranspose, K, N, v.data(), N, kGroup, s.data());
}

// max |y - y_ref| / max |y_ref| and the relative RMS error, in percent.
void print_error(const char* what, const std::vector<float>& y, const std::vector<double>& y_ref) {
  double err = 0, mag = 0, err2 = 0, mag2 = 0;
  for (size_t j = 0; j < y.size(); ++j) {
    const double e = y[j] - y_ref[j];
    err = std::max(err, std::fabs(e));
    mag = std::max(mag, std::fabs(y_ref[j]));
    err2 += e * e;
    mag2 += y_ref[j] * y_ref[j];
  }
  std::printf("error against %s: max |y - y_ref| = %.2f%% of max |y_ref| (%.4f), relative RMS %.2f%%\n",
              what, 100 * err / mag, mag, 100 * std::sqrt(err2 / mag2));
}

float silu(float x) { return x / (1.0f + std::exp(-x)); }

// x (K) times W (K x N) in double.
std::vector<double> gemv(const std::vector<double>& x, const std::vector<float>& w, int K, int N) {
  std::vector<double> y(N, 0.0);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) y[j] += x[k] * w[size_t(k) * N + j];
  return y;
}

// The block in float with double sums: y = W_down (SiLU(x W_gate) * (x W_up)).
std::vector<double> float_block(const std::vector<float>& x, const std::vector<float>& w_gate,
                                const std::vector<float>& w_up, const std::vector<float>& w_down) {
  const std::vector<double> xd(x.begin(), x.end());
  const std::vector<double> g = gemv(xd, w_gate, kModel, kHidden), u = gemv(xd, w_up, kModel, kHidden);
  std::vector<double> h(kHidden);
  for (int j = 0; j < kHidden; ++j) h[j] = silu(static_cast<float>(g[j])) * u[j];
  return gemv(h, w_down, kHidden, kModel);
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  const int tokens = argc > 2 ? std::atoi(argv[2]) : 50;
  if (threads < 1 || tokens < 1) {
    std::fprintf(stderr, "usage: %s [threads >= 1] [tokens >= 1]\n", argv[0]);
    return 2;
  }
  std::printf("MLP block d=%d hidden=%d, 4-bit weights (symmetric, groups of %d, fp16 scales), "
              "%d thread(s), path %s\n", kModel, kHidden, kGroup, threads,
              instSetName(fbgemmInstructionSet()));

  std::vector<float> w_gate = random_weights(kModel, kHidden, 1), w_up = random_weights(kModel, kHidden, 2),
                     w_down = random_weights(kHidden, kModel, 3);
  const PackedInt4Weights q_gate = quantize(w_gate, kModel, kHidden), q_up = quantize(w_up, kModel, kHidden),
                          q_down = quantize(w_down, kHidden, kModel);
  std::mt19937 gen(4);
  std::normal_distribution<float> act(0.0f, 1.0f);
  std::vector<float> x(kModel);
  for (float& v : x) v = act(gen);

  const std::vector<double> y_float = float_block(x, w_gate, w_up, w_down);
  // The same block on the 4-bit weights (dequantized), activations unquantized.
  for (auto [q, w] : {std::pair{&q_gate, &w_gate}, std::pair{&q_up, &w_up}, std::pair{&q_down, &w_down}})
    q->dequantize(w->data());
  const std::vector<double> y_q4 = float_block(x, w_gate, w_up, w_down);

  // The block with 4-bit weights.
  ThreadPool pool(threads);
  std::vector<float> gate(kHidden), up(kHidden), hidden(kHidden), y(kModel);
  auto block = [&] {
    int4Gemm(1, x.data(), kModel, q_gate, gate.data(), kHidden, Int4Epilogue{}, pool);
    int4Gemm(1, x.data(), kModel, q_up, up.data(), kHidden, Int4Epilogue{}, pool);
    for (int j = 0; j < kHidden; ++j) hidden[j] = silu(gate[j]) * up[j];
    int4Gemm(1, hidden.data(), kHidden, q_down, y.data(), kModel, Int4Epilogue{}, pool);
  };
  block();
  print_error("float (unquantized weights)", y, y_float);
  print_error("the 4-bit weights in float (what int8 activations add)", y, y_q4);

  for (int i = 0; i < 3; ++i) block();  // warm: the 3 x 24 MiB of weights do not fit the L3
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < tokens; ++i) block();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / tokens;
  const double bytes = double(q_gate.streamedBytes() + q_up.streamedBytes() + q_down.streamedBytes());
  std::printf("per token: %.3f ms (%d tokens), weights %.1f MiB streamed at %.1f GB/s\n", s * 1e3, tokens,
              bytes / (1 << 20), bytes / s / 1e9);
  return 0;
}

