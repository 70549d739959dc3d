// Quantization utilities on 1 Mi elements, single thread, for each ISA path: GB/s
// (bytes read + bytes written) and, as the counter vs_memcpy, the ratio to memcpy's
// GB/s on the same 1 Mi-float buffer measured in the same process (BM_Memcpy reports
// that bandwidth on its own line too). The target is vs_memcpy >= 0.6.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <vector>

#include "../../src/cpu/isa_traits.h"
#include "quire/QuantUtils.h"
#include "quire/Utils.h"

namespace {

using quire::inst_set_t;

constexpr int64_t kLen = int64_t{1} << 20;

// Whether the CPU has every capability the path needs (its row of the traits table).
bool cpu_has(inst_set_t isa) {
  return quire::detail::cpu_has(quire::detail::isa_from_inst_set(isa));
}

// Forces an ISA for one benchmark and restores the previous one.
class ScopedIsa {
 public:
  explicit ScopedIsa(inst_set_t isa) : saved_(quire::fbgemmInstructionSet()) {
    quire::forceIsa(isa);
  }
  ~ScopedIsa() { quire::forceIsa(saved_); }
  ScopedIsa(const ScopedIsa&) = delete;
  ScopedIsa& operator=(const ScopedIsa&) = delete;

 private:
  inst_set_t saved_;
};

const std::vector<float>& float_data() {
  static const std::vector<float> data = [] {
    std::mt19937 rng(3);
    std::normal_distribution<float> dist(0.0f, 20.0f);
    std::vector<float> v(kLen);
    for (float& x : v) x = dist(rng);
    return v;
  }();
  return data;
}

const std::vector<int32_t>& int32_data() {
  static const std::vector<int32_t> data = [] {
    std::mt19937 rng(4);
    std::uniform_int_distribution<int32_t> dist(-(1 << 20), 1 << 20);
    std::vector<int32_t> v(kLen);
    for (int32_t& x : v) x = dist(rng);
    return v;
  }();
  return data;
}

// The fastest of `rounds` timed calls, in seconds: robust to other load on the machine.
template <class Call>
double fastest_call(int rounds, Call&& call) {
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    call();
    benchmark::ClobberMemory();
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
    best = std::min(best, dt.count());
  }
  return best;
}

// memcpy's bandwidth (read + write bytes per second) on the 1 Mi-float buffer, from its
// fastest call, measured once per process.
double memcpy_bytes_per_second() {
  static const double bw = [] {
    const std::vector<float>& src = float_data();
    std::vector<float> dst(src.size());
    const size_t bytes = src.size() * sizeof(float);
    const double t = fastest_call(200, [&] { std::memcpy(dst.data(), src.data(), bytes); });
    return 2.0 * static_cast<double>(bytes) / t;
  }();
  return bw;
}

// Runs `call` per iteration and reports bytes per second, and vs_memcpy: the bandwidth
// of the fastest iteration over memcpy's (same measure), so load elsewhere cancels.
template <class Call>
void run(benchmark::State& state, inst_set_t isa, int64_t bytes_per_call, Call&& call) {
  if (!cpu_has(isa)) {
    state.SkipWithError("the CPU lacks this instruction set");
    return;
  }
  const double memcpy_bw = memcpy_bytes_per_second();
  ScopedIsa scoped(isa);
  double best = 1e30;
  for (auto _ : state) {
    best = std::min(best, fastest_call(1, call));
  }
  state.SetBytesProcessed(state.iterations() * bytes_per_call);
  state.counters["vs_memcpy"] = static_cast<double>(bytes_per_call) / best / memcpy_bw;
}

void BM_Memcpy(benchmark::State& state) {
  const std::vector<float>& src = float_data();
  std::vector<float> dst(src.size());
  const auto bytes = static_cast<int64_t>(src.size() * sizeof(float));
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), static_cast<size_t>(bytes));
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * 2 * bytes);
}
BENCHMARK(BM_Memcpy)->Unit(benchmark::kMicrosecond);

template <inst_set_t ISA, class T>
void BM_Quantize(benchmark::State& state) {
  const quire::TensorQuantizationParams qp = quire::ChooseQuantizationParams(
      -60.0f, 60.0f, std::is_signed_v<T> ? -128 : 0, std::is_signed_v<T> ? 127 : 255);
  std::vector<T> dst(kLen);
  run(state, ISA, kLen * static_cast<int64_t>(sizeof(float) + sizeof(T)),
      [&] { quire::Quantize<T>(float_data().data(), dst.data(), kLen, qp); });
}

template <inst_set_t ISA, class T>
void BM_Dequantize(benchmark::State& state) {
  std::vector<T> src(kLen);
  for (int64_t i = 0; i < kLen; ++i) src[i] = static_cast<T>(i * 7);
  std::vector<float> dst(kLen);
  const quire::TensorQuantizationParams qp{0.37f, 5, 8};
  run(state, ISA, kLen * static_cast<int64_t>(sizeof(T) + sizeof(float)),
      [&] { quire::Dequantize<T>(src.data(), dst.data(), kLen, qp); });
}

template <inst_set_t ISA>
void BM_FindMinMax(benchmark::State& state) {
  float mn = 0, mx = 0;
  run(state, ISA, kLen * static_cast<int64_t>(sizeof(float)), [&] {
    quire::FindMinMax(float_data().data(), &mn, &mx, kLen);
    benchmark::DoNotOptimize(mn);
    benchmark::DoNotOptimize(mx);
  });
}

quire::RequantizationParams requantization_params() {
  quire::RequantizationParams rp;
  rp.real_multiplier = 1.0f / 8192;
  quire::ChooseRequantizationMultiplier(rp.real_multiplier, &rp.multiplier, &rp.right_shift);
  rp.target_qparams = {1.0f, 128, 8};
  return rp;
}

template <inst_set_t ISA>
void BM_Requantize(benchmark::State& state) {
  const quire::RequantizationParams rp = requantization_params();
  std::vector<uint8_t> dst(kLen);
  run(state, ISA, kLen * static_cast<int64_t>(sizeof(int32_t) + 1),
      [&] { quire::Requantize<uint8_t>(int32_data().data(), dst.data(), kLen, rp); });
}

template <inst_set_t ISA>
void BM_RequantizeFixedPoint(benchmark::State& state) {
  const quire::RequantizationParams rp = requantization_params();
  std::vector<uint8_t> dst(kLen);
  run(state, ISA, kLen * static_cast<int64_t>(sizeof(int32_t) + 1),
      [&] { quire::RequantizeFixedPoint<uint8_t>(int32_data().data(), dst.data(), kLen, rp); });
}

// Row-wise formats: 1 Mi floats as 8192 rows of 128 (an embedding table).
template <inst_set_t ISA, int kBits>
void BM_RowwiseQuantize(benchmark::State& state) {
  constexpr int kCols = 128, kRows = static_cast<int>(kLen / kCols);
  constexpr int kRowBytes = kBits == 0 ? kCols + 8 : kCols * kBits / 8 + 4;  // 0: 8-bit float SB
  std::vector<uint8_t> dst(static_cast<size_t>(kRows) * kRowBytes);
  run(state, ISA, kLen * static_cast<int64_t>(sizeof(float)) + static_cast<int64_t>(dst.size()),
      [&] {
        if constexpr (kBits == 0) {
          quire::FloatOrHalfToFused8BitRowwiseQuantizedSBFloat(float_data().data(), kRows, kCols,
                                                               dst.data());
        } else {
          quire::FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf(kBits, float_data().data(), kRows,
                                                              kCols, dst.data());
        }
      });
}

#define QUIRE_QUANT_BENCH_ISA(ISA)                                                    \
  BENCHMARK(BM_Quantize<inst_set_t::ISA, uint8_t>)->Unit(benchmark::kMicrosecond);    \
  BENCHMARK(BM_Quantize<inst_set_t::ISA, int8_t>)->Unit(benchmark::kMicrosecond);     \
  BENCHMARK(BM_Dequantize<inst_set_t::ISA, uint8_t>)->Unit(benchmark::kMicrosecond);  \
  BENCHMARK(BM_Dequantize<inst_set_t::ISA, int32_t>)->Unit(benchmark::kMicrosecond);  \
  BENCHMARK(BM_FindMinMax<inst_set_t::ISA>)->Unit(benchmark::kMicrosecond);           \
  BENCHMARK(BM_Requantize<inst_set_t::ISA>)->Unit(benchmark::kMicrosecond);           \
  BENCHMARK(BM_RequantizeFixedPoint<inst_set_t::ISA>)->Unit(benchmark::kMicrosecond); \
  BENCHMARK(BM_RowwiseQuantize<inst_set_t::ISA, 0>)->Unit(benchmark::kMicrosecond);   \
  BENCHMARK(BM_RowwiseQuantize<inst_set_t::ISA, 4>)->Unit(benchmark::kMicrosecond);
QUIRE_QUANT_BENCH_ISA(anyarch)
QUIRE_QUANT_BENCH_ISA(avx2)
QUIRE_QUANT_BENCH_ISA(avx512)
#undef QUIRE_QUANT_BENCH_ISA

}  // namespace
