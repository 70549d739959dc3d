// Quantization utilities on 1 Mi and 4 Mi elements (the argument; 4 Mi floats = 16 MiB,
// past L2, the size of issue 25's table), single thread, for each ISA path: GB/s (bytes
// read + bytes written) and, as the counter vs_memcpy, the ratio to memcpy's GB/s on a
// float buffer of the same length measured in the same process (BM_Memcpy reports that
// bandwidth on its own line too). FindMinMax only reads: its counter vs_read compares
// it with a plain vector read (BM_Read) of the same bytes.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <random>
#include <vector>

#include "../../src/cpu/isa_traits.h"
#include "quire/QuantUtils.h"
#include "quire/Utils.h"

namespace {

using quire::inst_set_t;

constexpr int64_t kMaxLen = int64_t{1} << 22;

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
    std::vector<float> v(kMaxLen);
    for (float& x : v) x = dist(rng);
    return v;
  }();
  return data;
}

const std::vector<int32_t>& int32_data() {
  static const std::vector<int32_t> data = [] {
    std::mt19937 rng(4);
    std::uniform_int_distribution<int32_t> dist(-(1 << 20), 1 << 20);
    std::vector<int32_t> v(kMaxLen);
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

// memcpy's bandwidth (read + write bytes per second) on `len` floats, from its fastest
// call, measured once per process and length.
double memcpy_bytes_per_second(int64_t len) {
  static std::map<int64_t, double> measured;
  auto it = measured.find(len);
  if (it != measured.end()) return it->second;
  std::vector<float> dst(static_cast<size_t>(len));
  const size_t bytes = static_cast<size_t>(len) * sizeof(float);
  const double t = fastest_call(200, [&] { std::memcpy(dst.data(), float_data().data(), bytes); });
  return measured[len] = 2.0 * static_cast<double>(bytes) / t;
}

// A plain read of `len` floats (len a multiple of 16): eight independent OR chains
// over their bits in 64-bit words, which the compiler vectorizes; nothing limits it but
// the loads.
uint64_t read_all(const float* p, int64_t len) {
  uint64_t acc[8] = {};
  for (int64_t i = 0; i < len; i += 16) {
    for (int k = 0; k < 8; ++k) {
      uint64_t v;
      std::memcpy(&v, p + i + 2 * k, sizeof v);
      acc[k] |= v;
    }
  }
  return (acc[0] | acc[1] | acc[2] | acc[3]) | (acc[4] | acc[5] | acc[6] | acc[7]);
}

// The plain read's bandwidth on `len` floats (bytes per second), as memcpy's.
double read_bytes_per_second(int64_t len) {
  static std::map<int64_t, double> measured;
  auto it = measured.find(len);
  if (it != measured.end()) return it->second;
  const double t = fastest_call(200, [&] {
    benchmark::DoNotOptimize(read_all(float_data().data(), len));
  });
  return measured[len] = static_cast<double>(len) * sizeof(float) / t;
}

// Runs `call` per iteration and reports bytes per second, and the bandwidth of the
// fastest iteration over the baseline's (same measure), so load elsewhere cancels:
// vs_memcpy, or vs_read for a kernel that only reads.
template <class Call>
void run(benchmark::State& state, inst_set_t isa, int64_t bytes_per_call, Call&& call,
         bool read_only = false) {
  if (!cpu_has(isa)) {
    state.SkipWithError("the CPU lacks this instruction set");
    return;
  }
  const int64_t len = state.range(0);
  const double base = read_only ? read_bytes_per_second(len) : memcpy_bytes_per_second(len);
  ScopedIsa scoped(isa);
  double best = 1e30;
  for (auto _ : state) {
    best = std::min(best, fastest_call(1, call));
  }
  state.SetBytesProcessed(state.iterations() * bytes_per_call);
  state.counters[read_only ? "vs_read" : "vs_memcpy"] =
      static_cast<double>(bytes_per_call) / best / base;
}

void BM_Memcpy(benchmark::State& state) {
  const int64_t len = state.range(0);
  std::vector<float> dst(static_cast<size_t>(len));
  const auto bytes = static_cast<int64_t>(len * sizeof(float));
  const float* src = float_data().data();  // generated before the timed loop
  for (auto _ : state) {
    std::memcpy(dst.data(), src, static_cast<size_t>(bytes));
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * 2 * bytes);
}
BENCHMARK(BM_Memcpy)->Unit(benchmark::kMicrosecond)->Arg(1 << 20)->Arg(1 << 22);

void BM_Read(benchmark::State& state) {
  const int64_t len = state.range(0);
  const float* src = float_data().data();
  for (auto _ : state) benchmark::DoNotOptimize(read_all(src, len));
  state.SetBytesProcessed(state.iterations() * len * static_cast<int64_t>(sizeof(float)));
}
BENCHMARK(BM_Read)->Unit(benchmark::kMicrosecond)->Arg(1 << 20)->Arg(1 << 22);

template <inst_set_t ISA, class T>
void BM_Quantize(benchmark::State& state) {
  const int64_t len = state.range(0);
  const quire::TensorQuantizationParams qp = quire::ChooseQuantizationParams(
      -60.0f, 60.0f, std::is_signed_v<T> ? -128 : 0, std::is_signed_v<T> ? 127 : 255);
  std::vector<T> dst(static_cast<size_t>(len));
  run(state, ISA, len * static_cast<int64_t>(sizeof(float) + sizeof(T)),
      [&] { quire::Quantize<T>(float_data().data(), dst.data(), len, qp); });
}

template <inst_set_t ISA, class T>
void BM_Dequantize(benchmark::State& state) {
  const int64_t len = state.range(0);
  std::vector<T> src(static_cast<size_t>(len));
  for (int64_t i = 0; i < len; ++i) src[i] = static_cast<T>(i * 7);
  std::vector<float> dst(static_cast<size_t>(len));
  const quire::TensorQuantizationParams qp{0.37f, 5, 8};
  run(state, ISA, len * static_cast<int64_t>(sizeof(T) + sizeof(float)),
      [&] { quire::Dequantize<T>(src.data(), dst.data(), len, qp); });
}

template <inst_set_t ISA>
void BM_FindMinMax(benchmark::State& state) {
  const int64_t len = state.range(0);
  float mn = 0, mx = 0;
  run(
      state, ISA, len * static_cast<int64_t>(sizeof(float)),
      [&] {
        quire::FindMinMax(float_data().data(), &mn, &mx, len);
        benchmark::DoNotOptimize(mn);
        benchmark::DoNotOptimize(mx);
      },
      true);
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
  const int64_t len = state.range(0);
  const quire::RequantizationParams rp = requantization_params();
  std::vector<uint8_t> dst(static_cast<size_t>(len));
  run(state, ISA, len * static_cast<int64_t>(sizeof(int32_t) + 1),
      [&] { quire::Requantize<uint8_t>(int32_data().data(), dst.data(), len, rp); });
}

template <inst_set_t ISA>
void BM_RequantizeFixedPoint(benchmark::State& state) {
  const int64_t len = state.range(0);
  const quire::RequantizationParams rp = requantization_params();
  std::vector<uint8_t> dst(static_cast<size_t>(len));
  run(state, ISA, len * static_cast<int64_t>(sizeof(int32_t) + 1),
      [&] { quire::RequantizeFixedPoint<uint8_t>(int32_data().data(), dst.data(), len, rp); });
}

// Row-wise formats: the floats as rows of 128 (an embedding table).
template <inst_set_t ISA, int kBits>
void BM_RowwiseQuantize(benchmark::State& state) {
  constexpr int kCols = 128;
  const int64_t len = state.range(0);
  const int rows = static_cast<int>(len / kCols);
  constexpr int kRowBytes = kBits == 0 ? kCols + 8 : kCols * kBits / 8 + 4;  // 0: 8-bit float SB
  std::vector<uint8_t> dst(static_cast<size_t>(rows) * kRowBytes);
  run(state, ISA, len * static_cast<int64_t>(sizeof(float)) + static_cast<int64_t>(dst.size()),
      [&] {
        if constexpr (kBits == 0) {
          quire::FloatOrHalfToFused8BitRowwiseQuantizedSBFloat(float_data().data(), rows, kCols,
                                                               dst.data());
        } else {
          quire::FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf(kBits, float_data().data(), rows,
                                                              kCols, dst.data());
        }
      });
}

// Row-wise back to float: the rows of BM_RowwiseQuantize<kBits>.
template <inst_set_t ISA, int kBits>
void BM_RowwiseDequantize(benchmark::State& state) {
  constexpr int kCols = 128;
  constexpr int kRowBytes = kBits == 0 ? kCols + 8 : kCols * kBits / 8 + 4;
  const int64_t len = state.range(0);
  const int rows = static_cast<int>(len / kCols);
  std::vector<uint8_t> src(static_cast<size_t>(rows) * kRowBytes);
  if constexpr (kBits == 0) {
    quire::FloatOrHalfToFused8BitRowwiseQuantizedSBFloat(float_data().data(), rows, kCols,
                                                         src.data());
  } else {
    quire::FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf(kBits, float_data().data(), rows, kCols,
                                                        src.data());
  }
  std::vector<float> dst(static_cast<size_t>(len));
  run(state, ISA, static_cast<int64_t>(src.size()) + len * static_cast<int64_t>(sizeof(float)),
      [&] {
        if constexpr (kBits == 0) {
          quire::Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf(src.data(), rows, kRowBytes,
                                                               dst.data());
        } else {
          quire::FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf(kBits, src.data(), rows, kRowBytes,
                                                              dst.data());
        }
      });
}

#define QUIRE_QUANT_BENCH(...) BENCHMARK(__VA_ARGS__)->Unit(benchmark::kMicrosecond)->Arg(1 << 20)->Arg(1 << 22)
#define QUIRE_QUANT_BENCH_ISA(ISA)                               \
  QUIRE_QUANT_BENCH(BM_Quantize<inst_set_t::ISA, uint8_t>);    \
  QUIRE_QUANT_BENCH(BM_Quantize<inst_set_t::ISA, int8_t>);     \
  QUIRE_QUANT_BENCH(BM_Dequantize<inst_set_t::ISA, uint8_t>);  \
  QUIRE_QUANT_BENCH(BM_Dequantize<inst_set_t::ISA, int32_t>);  \
  QUIRE_QUANT_BENCH(BM_FindMinMax<inst_set_t::ISA>);             \
  QUIRE_QUANT_BENCH(BM_Requantize<inst_set_t::ISA>);             \
  QUIRE_QUANT_BENCH(BM_RequantizeFixedPoint<inst_set_t::ISA>);   \
  QUIRE_QUANT_BENCH(BM_RowwiseQuantize<inst_set_t::ISA, 0>);   \
  QUIRE_QUANT_BENCH(BM_RowwiseQuantize<inst_set_t::ISA, 4>);   \
  QUIRE_QUANT_BENCH(BM_RowwiseQuantize<inst_set_t::ISA, 2>);   \
  QUIRE_QUANT_BENCH(BM_RowwiseDequantize<inst_set_t::ISA, 0>); \
  QUIRE_QUANT_BENCH(BM_RowwiseDequantize<inst_set_t::ISA, 4>); \
  QUIRE_QUANT_BENCH(BM_RowwiseDequantize<inst_set_t::ISA, 2>);
QUIRE_QUANT_BENCH_ISA(anyarch)
QUIRE_QUANT_BENCH_ISA(avx2)
QUIRE_QUANT_BENCH_ISA(avx512)
#undef QUIRE_QUANT_BENCH_ISA
#undef QUIRE_QUANT_BENCH

}  // namespace
