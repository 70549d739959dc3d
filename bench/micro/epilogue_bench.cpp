// Output-pipeline throughput: ReQuantizeOutput (ReLU fused) on one int32 tile, for each
// compiled epilogue, per-tensor and per-channel. Bytes = int32 read + uint8 written.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "../../src/cpu/isa_traits.h"
#include "quire/quire.h"

namespace {

using quire::inst_set_t;
using quire::QuantizationGranularity;

// Whether the CPU has every capability the path needs (its row of the traits table).
bool cpu_has(inst_set_t isa) {
  return quire::detail::cpu_has(quire::detail::isa_from_inst_set(isa));
}

// Args: rows, cols of the tile.
template <inst_set_t ISA, QuantizationGranularity Q>
void BM_ReQuantizeOutput(benchmark::State& state) {
  if (!cpu_has(ISA)) {
    state.SkipWithError("the CPU lacks this instruction set");
    return;
  }
  const int rows = static_cast<int>(state.range(0));
  const int cols = static_cast<int>(state.range(1));
  std::mt19937 rng(7);
  std::uniform_int_distribution<int32_t> acc(-(1 << 20), 1 << 20);
  std::vector<int32_t> in(static_cast<size_t>(rows) * cols);
  for (int32_t& x : in) x = acc(rng);
  std::vector<uint8_t> out(in.size());
  // Per channel parameters; TENSOR reads only element 0.
  std::vector<float> multiplier(cols, 1.0f / 8192);
  std::vector<int32_t> b_zero_point(cols, 3);
  std::vector<int32_t> col_offsets(cols, -1000);
  std::vector<int32_t> bias(cols, 500);
  std::vector<int32_t> row_offsets(rows, 20000);

  quire::DoNothing<> done;
  quire::ReQuantizeOutput<true, Q> requantize(done, multiplier.data(), 10, 128,
                                              b_zero_point.data(), row_offsets.data(),
                                              col_offsets.data(), bias.data(), cols);
  const quire::block_type_t block{0, rows, 0, cols};
  for (auto _ : state) {
    requantize.template f<ISA>(out.data(), in.data(), block, cols, cols);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(in.size()) *
                          (sizeof(int32_t) + sizeof(uint8_t)));
}

#define QUIRE_REQUANTIZE_BENCH(isa, q)                                             \
  BENCHMARK_TEMPLATE(BM_ReQuantizeOutput, inst_set_t::isa, QuantizationGranularity::q) \
      ->ArgNames({"rows", "cols"})                                                 \
      ->Args({96, 1024})                                                           \
      ->Args({4096, 4})

QUIRE_REQUANTIZE_BENCH(avx512, TENSOR);
QUIRE_REQUANTIZE_BENCH(avx512, OUT_CHANNEL);
QUIRE_REQUANTIZE_BENCH(avx2, TENSOR);
QUIRE_REQUANTIZE_BENCH(avx2, OUT_CHANNEL);
QUIRE_REQUANTIZE_BENCH(anyarch, TENSOR);
QUIRE_REQUANTIZE_BENCH(anyarch, OUT_CHANNEL);

}  // namespace
