// What a user-written A packer (docs/packing.md; the examples in test/example_packers.h)
// costs next to the built-in packer making the same pass over A: every MCB x KCB block
// packed once with its row sums, bytes of A per second.
//   Transpose: A read column-wise (NCHW activations of one image, i.e. a transposed A).
//     built-in PackAWithRowOffset(Transpose) vs PackAFromNchw (FBGEMM's CRTP form).
//   Copy: A copied row-wise with row sums (K not a multiple of 4, so nothing is read in
//     place). built-in PackAWithRowOffset vs PackAFromInt16 with shift 0 on values in
//     [0, 255] (quire's form; it reads int16, twice the bytes, counted as A's bytes).
// This file is built with AVX2 (its name's suffix), as an engine builds its CPU code, so
// the examples' plain loops are vectorized like the built-in packers; each benchmark
// skips on a CPU without AVX2.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "example_packers.h"
#include "quire/quire.h"
#include "random_values.h"

namespace {

using micro::random_values;

// Packs every block of an M x K A the way fbgemmPacked walks them (one group).
template <class Packer>
void pack_all(Packer& p, int M, int K) {
  const int mcb = p.blockRowSize(), kcb = p.blockColSize();
  for (int r = 0; r < M; r += mcb)
    for (int c = 0; c < K; c += kcb) p.pack({r, std::min(mcb, M - r), c, std::min(kcb, K - c)});
  benchmark::DoNotOptimize(p.getRowOffsetBuffer());
  benchmark::ClobberMemory();
}

bool skip_without_avx2(benchmark::State& state) {
  if (quire::fbgemmHasAvx2Support()) return false;
  state.SkipWithError("needs AVX2");
  return true;
}

// One pass over an M x K A (Args: M, K) of T values in [0, 255] with the packer
// make(M, K, data) builds; bytes counted as M x K.
template <class T, class Make>
void measure(benchmark::State& state, const Make& make) {
  if (skip_without_avx2(state)) return;
  const int M = static_cast<int>(state.range(0)), K = static_cast<int>(state.range(1));
  const std::vector<T> src = random_values<T>(int64_t{M} * K, 0, 255, 7);
  auto p = make(M, K, src.data());
  for (auto _ : state) pack_all(*p, M, K);
  state.SetBytesProcessed(state.iterations() * int64_t{M} * K);
}

// The transposed A is K x M; the NCHW tensor is one image of K channels x M pixels.
void BM_UserPacker_Transpose_BuiltIn(benchmark::State& state) {
  measure<uint8_t>(state, [](int M, int K, const uint8_t* at) {
    return std::make_unique<quire::PackAWithRowOffset<uint8_t>>(quire::matrix_op_t::Transpose, M, K, at, M);
  });
}
void BM_UserPacker_Transpose_Nchw(benchmark::State& state) {
  measure<uint8_t>(state, [](int M, int K, const uint8_t* x) {
    return std::make_unique<examples::PackAFromNchw<>>(1, K, M, x);
  });
}
void BM_UserPacker_Copy_BuiltIn(benchmark::State& state) {
  measure<uint8_t>(state, [](int M, int K, const uint8_t* a) {
    return std::make_unique<quire::PackAWithRowOffset<uint8_t>>(quire::matrix_op_t::NoTranspose, M, K, a, K);
  });
}
void BM_UserPacker_Copy_Int16(benchmark::State& state) {
  measure<int16_t>(state, [](int M, int K, const int16_t* a) {
    return std::make_unique<examples::PackAFromInt16<>>(M, K, a, K, 0);
  });
}

#define USER_PACKER_SHAPES ArgNames({"M", "K"})->Args({120, 1022})->Args({3136, 62})->Args({6, 4094})
BENCHMARK(BM_UserPacker_Transpose_BuiltIn)->USER_PACKER_SHAPES;
BENCHMARK(BM_UserPacker_Transpose_Nchw)->USER_PACKER_SHAPES;
BENCHMARK(BM_UserPacker_Copy_BuiltIn)->USER_PACKER_SHAPES;
BENCHMARK(BM_UserPacker_Copy_Int16)->USER_PACKER_SHAPES;

}  // namespace
