// The packed-weight GEMM (fp16, bf16, fp32 weights) in warm caches: packing the weights, and every kernel
// path this CPU has (including those the dispatcher never picks on it, such as the bf16
// FMA kernels next to vdpbf16ps), so paths can be compared shape by shape.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "quire/FbgemmBF16.h"
#include "quire/FbgemmFP32.h"
#include "../../src/fp16/half_gemm.h"

namespace {

std::vector<float> random_floats(size_t n) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// Args: K, N. Bytes: the fp32 weights read.
template <class T>
void BM_PackHalfWeights(benchmark::State& state) {
  const int K = static_cast<int>(state.range(0)), N = static_cast<int>(state.range(1));
  const std::vector<float> B = random_floats(size_t(K) * N);
  for (auto _ : state) {
    quire::PackedGemmMatrixB<T> packed(quire::matrix_op_t::NoTranspose, K, N, 1.0f, B.data());
    benchmark::DoNotOptimize(packed.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * int64_t{K} * N * 4);
}
BENCHMARK(BM_PackHalfWeights<quire::float16>)->ArgNames({"K", "N"})->Args({512, 512})->Args({4096, 1024});
BENCHMARK(BM_PackHalfWeights<quire::bfloat16>)->ArgNames({"K", "N"})->Args({512, 512})->Args({4096, 1024});
BENCHMARK(BM_PackHalfWeights<float>)->ArgNames({"K", "N"})->Args({512, 512})->Args({4096, 1024});

// One path on M x 512 x 512 (fp32 A, beta 0, one thread); counter GFLOPS.
template <class T>
void run_path(benchmark::State& state, const quire::detail::HalfKernelSet* set) {
  const int M = static_cast<int>(state.range(0)), N = 512, K = 512;
  const std::vector<float> A = random_floats(size_t(M) * K), B = random_floats(size_t(K) * N);
  std::vector<float> C(size_t(M) * N);
  const quire::PackedGemmMatrixB<T> packed(quire::matrix_op_t::NoTranspose, K, N, 1.0f, B.data());
  const quire::detail::HalfGemmCall call{
      std::is_same_v<T, quire::float16>    ? quire::detail::HalfType::fp16
      : std::is_same_v<T, quire::bfloat16> ? quire::detail::HalfType::bf16
                                           : quire::detail::HalfType::fp32,
      quire::detail::ActType::f32, quire::matrix_op_t::NoTranspose, M, N, K, A.data(),
      packed.data(), packed.blockRowSize(), 0.0f, C.data()};
  for (auto _ : state) {
    quire::detail::half_gemm(call, *set, 0, 1);
    benchmark::ClobberMemory();
  }
  state.counters["GFLOPS"] = benchmark::Counter(2.0 * M * N * K * state.iterations() / 1e9,
                                                benchmark::Counter::kIsRate);
}

template <class T>
void register_paths(quire::detail::HalfType type) {
  for (const quire::detail::HalfKernelSet* set : quire::detail::half_kernel_sets(type)) {
    const std::string name = std::string("BM_HalfGemm/") + quire::detail::half_kernel_set_name(*set);
    benchmark::RegisterBenchmark(name.c_str(), run_path<T>, set)
        ->ArgName("M")
        ->Arg(1)
        ->Arg(8)
        ->Arg(32)
        ->Arg(119);
  }
}

const bool kRegistered = [] {
  register_paths<quire::float16>(quire::detail::HalfType::fp16);
  register_paths<quire::bfloat16>(quire::detail::HalfType::bf16);
  register_paths<float>(quire::detail::HalfType::fp32);
  return true;
}();

}  // namespace
