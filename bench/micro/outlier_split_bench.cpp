// acc16 with the outlier split (docs/outlier-split.md) against the exact acc32 GEMM, the
// way an engine runs a requantized layer: B packed once, then per call A packed with row
// offsets, the kernel, DoSpmdmOnInpBuffer (acc16 only) and ReQuantizeOutput. The weights
// are small (-1, 0, 1) with a given share of large ones (|b| = 100) scattered in; with
// full-range activations (a_max = 255) the split keeps the small ones dense and sends the
// large ones to the sparse part, so the share is the outlier density. The counter
// `outliers` reports the density the split actually produced. Compare the two lines of
// each density, measured in the same run, on the path under test (QUIRE_ISA=avx512 or
// avx2; on VNNI paths acc16 runs the exact kernels and the split only adds work).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "quire/OutlierSplit.h"
#include "quire/quire.h"

namespace {

constexpr int kM = 128, kN = 512, kK = 1024;

struct Layer {
  std::vector<uint8_t> A;
  std::vector<int8_t> B;
  std::vector<int32_t> col_offsets, scratch;
  std::vector<uint8_t> C;
};

// Small weights with `per_million` / 1e6 of them replaced by +-100.
Layer make_layer(int per_million) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> a(0, 255), small(-1, 1), spot(0, 999999), sign(0, 1);
  Layer l;
  l.A.resize(static_cast<size_t>(kM) * kK);
  for (uint8_t& x : l.A) x = static_cast<uint8_t>(a(rng));
  l.B.resize(static_cast<size_t>(kK) * kN);
  for (int8_t& b : l.B)
    b = static_cast<int8_t>(spot(rng) < per_million ? (sign(rng) ? 100 : -100) : small(rng));
  l.col_offsets.assign(kN, 0);
  for (int k = 0; k < kK; ++k)
    for (int j = 0; j < kN; ++j) l.col_offsets[j] += l.B[static_cast<size_t>(k) * kN + j];
  l.scratch.resize(static_cast<size_t>(kM) * kN);
  l.C.resize(l.scratch.size());
  return l;
}

// Runs one requantized call; `sparse` null means acc32 (no split).
template <class accT>
void call(Layer& l, const quire::PackBMatrix<int8_t, accT>& Bp,
          const quire::CompressedSparseColumn* sparse) {
  static const float multiplier = 1.0f / 2048;
  static const int32_t b_zp = 0;
  quire::PackAWithRowOffset<uint8_t, accT> Ap(quire::matrix_op_t::NoTranspose, kM, kK,
                                              l.A.data(), kK);
  quire::DoNothing<> done;
  quire::ReQuantizeOutput<false> requant(done, &multiplier, 128, 0, &b_zp,
                                         Ap.getRowOffsetBuffer(), l.col_offsets.data(), nullptr, kN);
  if (sparse == nullptr) {
    quire::fbgemmPacked(Ap, Bp, l.C.data(), l.scratch.data(), kN, requant, 0, 1);
  } else {
    quire::DoSpmdmOnInpBuffer<uint8_t, int32_t, quire::ReQuantizeOutput<false>> outliers(
        requant, l.A.data(), kK, *sparse);
    quire::fbgemmPacked(Ap, Bp, l.C.data(), l.scratch.data(), kN, outliers, 0, 1);
  }
}

// Arg: outlier share in parts per million.
void BM_Acc16WithOutlierSplit(benchmark::State& state) {
  Layer l = make_layer(static_cast<int>(state.range(0)));
  const quire::Acc16OutlierSplit split =
      quire::splitOutliersForAcc16(quire::matrix_op_t::NoTranspose, kK, kN, l.B.data(), kN);
  quire::PackBMatrix<int8_t, int16_t> Bp(quire::matrix_op_t::NoTranspose, kK, kN,
                                         split.dense.data(), kN);
  for (auto _ : state) {
    call(l, Bp, &split.outliers);
    benchmark::ClobberMemory();
  }
  state.counters["outliers"] = split.outliers.Density();
  state.counters["GOPS"] = benchmark::Counter(2.0 * kM * kN * kK, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Acc32(benchmark::State& state) {
  Layer l = make_layer(static_cast<int>(state.range(0)));
  quire::PackBMatrix<int8_t> Bp(quire::matrix_op_t::NoTranspose, kK, kN, l.B.data(), kN);
  for (auto _ : state) {
    call(l, Bp, nullptr);
    benchmark::ClobberMemory();
  }
  state.counters["GOPS"] = benchmark::Counter(2.0 * kM * kN * kK, benchmark::Counter::kIsIterationInvariantRate);
}

// The sparse part alone: one SpMDM call on a rows x 512 block of the layer's outliers
// (the driver's tiles are 120 and 8 rows on avx2 and avx512), accumulating into C.
// Args: outlier share in parts per million, rows.
void BM_SpMDM(benchmark::State& state) {
  Layer l = make_layer(static_cast<int>(state.range(0)));
  const int rows = static_cast<int>(state.range(1));
  const quire::Acc16OutlierSplit split =
      quire::splitOutliersForAcc16(quire::matrix_op_t::NoTranspose, kK, kN, l.B.data(), kN);
  const quire::block_type_t block{0, rows, 0, kN};
  for (auto _ : state) {
    split.outliers.SpMDM(block, l.A.data(), kK, true, l.scratch.data(), kN);
    benchmark::ClobberMemory();
  }
  const double nonzeros = split.outliers.NumOfNonZeros();
  state.counters["ns_per_mac"] = benchmark::Counter(
      nonzeros * rows, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_SpMDM)
    ->ArgNames({"outliers_ppm", "rows"})
    ->ArgsProduct({{0, 1000, 5000, 20000, 100000}, {8, 120}});

#define QUIRE_OUTLIER_DENSITIES ArgName("outliers_ppm")->Arg(0)->Arg(1000)->Arg(5000)->Arg(20000)->Arg(100000)
BENCHMARK(BM_Acc16WithOutlierSplit)->QUIRE_OUTLIER_DENSITIES;
BENCHMARK(BM_Acc32)->QUIRE_OUTLIER_DENSITIES;

}  // namespace
