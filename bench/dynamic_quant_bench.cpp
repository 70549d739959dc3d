// quire-dynamic-bench: what dynamic quantization costs. For each inference shape, one
// thread, float output through ReQuantizeForFloat:
//   static   uint8 A already quantized: PackAWithRowOffset + fbgemmPacked
//   dynamic  float A quantized while packed: PackAWithQuantRowOffset + fbgemmPacked
//   +choose  the same, plus ChooseActivationQuantization (FindMinMax) on A first
// and the ratio dynamic / static time (the extra cost of quantizing in the packing pass).
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "quire/quire.h"
#include "shapes.h"
#include "timing.h"

namespace quire::bench {
namespace {

struct Row {
  double static_s, dynamic_s, choose_s;
};

Row run(const Shape& s, double min_time) {
  std::mt19937 gen(7);
  std::normal_distribution<float> act(0.0f, 1.0f);
  std::vector<float> Af(size_t(s.M) * s.K);
  for (float& x : Af) x = act(gen);
  const TensorQuantizationParams qa = ChooseActivationQuantization(Af.data(), s.M, s.K, s.K);
  std::vector<uint8_t> Aq(Af.size());
  Quantize<uint8_t>(Af.data(), Aq.data(), static_cast<int64_t>(Aq.size()), qa);
  std::vector<int8_t> B(size_t(s.K) * s.N);
  for (auto& b : B) b = static_cast<int8_t>(gen());
  const std::vector<int32_t> b_zp(s.N, 1);
  const std::vector<float> b_scale(s.N, 0.01f);
  std::vector<int32_t> col_offsets(s.N);
  for (int j = 0; j < s.N; ++j) {
    int32_t sum = 0;
    for (int k = 0; k < s.K; ++k) sum += B[size_t(k) * s.N + j];
    col_offsets[j] = sum - s.K * b_zp[j];
  }
  PackBMatrix<int8_t> packedB(matrix_op_t::NoTranspose, s.K, s.N, B.data(), s.N);
  std::vector<float> C(size_t(s.M) * s.N);
  DoNothing<float, float> done;
  auto output = [&](auto& packA) {
    return ReQuantizeForFloat<false, QuantizationGranularity::OUT_CHANNEL>(
        done, qa.scale, b_scale.data(), qa.zero_point, b_zp.data(), packA.getRowOffsetBuffer(),
        col_offsets.data(), nullptr, s.N);
  };
  auto* c32 = reinterpret_cast<int32_t*>(C.data());
  const Timing st = time_calls([&] {
    PackAWithRowOffset<uint8_t> packA(matrix_op_t::NoTranspose, s.M, s.K, Aq.data(), s.K);
    fbgemmPacked(packA, packedB, C.data(), c32, s.N, output(packA), 0, 1);
  }, min_time, nullptr);
  const Timing dy = time_calls([&] {
    PackAWithQuantRowOffset<uint8_t> packA(matrix_op_t::NoTranspose, s.M, s.K, Af.data(), s.K, nullptr,
                                           qa.scale, qa.zero_point);
    fbgemmPacked(packA, packedB, C.data(), c32, s.N, output(packA), 0, 1);
  }, min_time, nullptr);
  const Timing ch = time_calls([&] {
    const TensorQuantizationParams q = ChooseActivationQuantization(Af.data(), s.M, s.K, s.K);
    PackAWithQuantRowOffset<uint8_t> packA(matrix_op_t::NoTranspose, s.M, s.K, Af.data(), s.K, nullptr,
                                           q.scale, q.zero_point);
    fbgemmPacked(packA, packedB, C.data(), c32, s.N, output(packA), 0, 1);
  }, min_time, nullptr);
  return Row{st.median, dy.median, ch.median};
}

}  // namespace
}  // namespace quire::bench

int main(int argc, char** argv) {
  using namespace quire::bench;
  const double min_time = argc > 1 ? std::atof(argv[1]) : 0.1;
  std::printf("path %s, 1 thread, float output (ReQuantizeForFloat), median per call\n",
              quire::instSetName(quire::fbgemmInstructionSet()));
  std::printf("%-14s %12s %12s %12s %10s %10s\n", "M x N x K", "static GOPS", "dynamic GOPS",
              "+choose GOPS", "dyn/static", "cho/static");
  double log_ratio = 0, log_ratio_k256 = 0;
  int n = 0, n_k256 = 0;
  for (const Shape& s : inference_shapes()) {
    const Row r = run(s, min_time);
    const double ops = 2.0 * s.M * s.N * s.K * 1e-9;
    std::printf("%-14s %12.1f %12.1f %12.1f %10.3f %10.3f\n", to_string(s).c_str(), ops / r.static_s,
                ops / r.dynamic_s, ops / r.choose_s, r.dynamic_s / r.static_s, r.choose_s / r.static_s);
    log_ratio += std::log(r.dynamic_s / r.static_s);
    ++n;
    if (s.K >= 256) {
      log_ratio_k256 += std::log(r.dynamic_s / r.static_s);
      ++n_k256;
    }
  }
  std::printf("geomean dynamic/static time: %.3f (all shapes), %.3f (K >= 256)\n",
              std::exp(log_ratio / n), std::exp(log_ratio_k256 / n_k256));
  return 0;
}
