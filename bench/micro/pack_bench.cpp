// Packing throughput: A as the driver packs it on every GEMM call (one packer per call,
// every MCB x KCB block packed once, row sums fused), and B as a model load packs it.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <vector>

#include "quire/quire.h"
#include "random_values.h"

namespace {

using micro::random_values;

// Args: M, K.
void BM_PackAWithRowOffset(benchmark::State& state) {
  const int M = static_cast<int>(state.range(0));
  const int K = static_cast<int>(state.range(1));
  const std::vector<uint8_t> A = random_values<uint8_t>(int64_t{M} * K, 0, 255);
  for (auto _ : state) {
    quire::PackAWithRowOffset<uint8_t> packed(quire::matrix_op_t::NoTranspose, M, K, A.data(),
                                              K);
    const int mcb = packed.blockRowSize();
    const int kcb = packed.blockColSize();
    for (int r = 0; r < M; r += mcb) {
      for (int c = 0; c < K; c += kcb) {
        packed.pack({r, std::min(mcb, M - r), c, std::min(kcb, K - c)});
      }
    }
    benchmark::DoNotOptimize(packed.getBuf());
    benchmark::DoNotOptimize(packed.getRowOffsetBuffer());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * int64_t{M} * K);
}
BENCHMARK(BM_PackAWithRowOffset)
    ->ArgNames({"M", "K"})
    ->Args({1, 1024})
    ->Args({6, 2048})
    ->Args({102, 512})
    ->Args({3136, 64});

// Args: K, N (B is K x N, packed whole).
void BM_PackBMatrix(benchmark::State& state) {
  const int K = static_cast<int>(state.range(0));
  const int N = static_cast<int>(state.range(1));
  const std::vector<int8_t> B = random_values<int8_t>(int64_t{K} * N, -128, 127);
  for (auto _ : state) {
    quire::PackBMatrix<int8_t> packed(quire::matrix_op_t::NoTranspose, K, N, B.data(), N);
    benchmark::DoNotOptimize(packed.getBuf());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * int64_t{K} * N);
}
BENCHMARK(BM_PackBMatrix)->ArgNames({"K", "N"})->Args({1024, 1024})->Args({256, 4096});

}  // namespace
