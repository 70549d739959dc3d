// Pair-safe B panels (docs/kernel-contract.md, "Pair-safe B panels"): the per-panel check
// of PackBMatrix at the bound (positive parts of a K pair <= 128, negative parts >= -128)
// and one past it, its recomputation by load(), and the int32 product bit for bit against
// the reference on every path with weights on both sides of the bound, odd shapes and
// 1-3 threads. On avx2 and avx512 the safe panels run the vpmaddubsw kernels, so a wrong
// bound shows up here as a saturated (wrong) sum with A = 255.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "quire/quire.h"
#include "quire/ref/Reference.h"
#include "test_util.h"

namespace quire::test {
namespace {

// A K x N weight matrix whose element (k, j) is f(k, j).
std::vector<int8_t> weights(int K, int N, const std::function<int(int, int)>& f) {
  std::vector<int8_t> B(size_t(K) * N);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) B[size_t(k) * N + j] = static_cast<int8_t>(f(k, j));
  return B;
}

// Weight kinds on both sides of the bound, drawn a K pair (k, k + 1), k even, at a time.
using Pair = std::pair<int, int>;
struct WeightKind {
  const char* name;
  bool safe;  // every pair within the bound
  std::function<Pair(std::mt19937&)> pair;
};

Pair pick(std::mt19937& rng, const std::vector<Pair>& pairs) {
  return pairs[std::uniform_int_distribution<size_t>(0, pairs.size() - 1)(rng)];
}

std::vector<int8_t> draw(const WeightKind& w, int K, int N, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int8_t> B(size_t(K) * N);
  for (int k = 0; k < K; k += 2)
    for (int j = 0; j < N; ++j) {
      const Pair p = w.pair(rng);
      B[size_t(k) * N + j] = static_cast<int8_t>(p.first);
      if (k + 1 < K) B[size_t(k + 1) * N + j] = static_cast<int8_t>(p.second);
    }
  return B;
}

const std::vector<WeightKind>& weight_kinds() {
  static const std::vector<WeightKind> kinds = {
      {"typical |w| <= 64", true,
       [](std::mt19937& r) {
         std::uniform_int_distribution<int> u(-64, 64);
         const int first = u(r);
         return Pair{first, u(r)};
       }},
      {"all 127", false, [](std::mt19937&) { return Pair{127, 127}; }},
      {"all -128", false, [](std::mt19937&) { return Pair{-128, -128}; }},
      {"pairs at the bound", true,
       [](std::mt19937& r) {
         return pick(r, {{64, 64}, {127, 1}, {1, 127}, {-64, -64}, {-128, 0}, {0, -128},
                         {127, -128}, {-128, 127}, {100, 28}, {-100, -28}});
       }},
      {"pairs one past the bound", false,
       [](std::mt19937& r) {
         return pick(r, {{65, 64}, {127, 2}, {2, 127}, {-65, -64}, {-128, -1}, {-1, -128},
                         {100, 29}, {-100, -29}});
       }},
  };
  return kinds;
}

// C = A * B through fbgemmPacked (int32 out) with B packed once and shared by `threads`
// calls, against the reference; returns the number of mismatches (-1: wrote past C).
int run_gemm(int M, int N, int K, const std::vector<uint8_t>& A, const std::vector<int8_t>& B,
             matrix_op_t btrans, int threads) {
  std::vector<int32_t> ref(size_t(M) * N);
  ref::matmul_u8s8s32(M, N, K, A.data(), K, B.data(), N, ref.data(), N);
  std::vector<int8_t> Bsrc;
  const int ldb = b_in_layout(btrans, 1, K, N, B, Bsrc);
  PackBMatrix<int8_t> packedB(btrans, K, N, Bsrc.data(), ldb);
  std::vector<int32_t> C(size_t(M) * N + 16, -7);
  for (int t = 0; t < threads; ++t) {
    PackAMatrix<uint8_t> packA(matrix_op_t::NoTranspose, M, K, A.data(), K);
    DoNothing<int32_t, int32_t> done;
    memCopy<> copy(done);
    fbgemmPacked(packA, packedB, C.data(), C.data(), N, copy, t, threads);
  }
  for (size_t i = size_t(M) * N; i < C.size(); ++i)
    if (C[i] != -7) return -1;
  return compare_buffers(ref.data(), C.data(), M, N, N, 0);
}

// Runs first: the avx2 / avx512 kernels of pair-safe panels are the pair-safe ones
// (QUIRE_JIT_DUMP names every kernel the process generates; these tiles are new here).
TEST(PairSafe, SafePanelsRunThePairSafeKernels) {
  for (inst_set_t isa : {inst_set_t::avx2, inst_set_t::avx512}) {
    if (isa == inst_set_t::avx512 ? !fbgemmHasAvx512Support() : !fbgemmHasAvx2Support()) continue;
    ScopedIsa scoped(isa);
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("quire_pair_safe_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    ::setenv("QUIRE_JIT_DUMP", dir.c_str(), 1);
    const int M = 11, N = 5, K = 24;  // a 5-column tail no other test here uses
    const std::vector<uint8_t> A(size_t(M) * K, 255);
    const std::vector<int8_t> B = weights(K, N, [](int, int) { return 64; });
    EXPECT_EQ(run_gemm(M, N, K, A, B, matrix_op_t::NoTranspose, 1), 0);
    ::unsetenv("QUIRE_JIT_DUMP");
    int pair_safe = 0, other = 0;
    for (const auto& f : std::filesystem::directory_iterator(dir))
      (f.path().filename().string().find("_pairsafe") != std::string::npos ? pair_safe : other)++;
    std::filesystem::remove_all(dir);
    EXPECT_GT(pair_safe, 0) << instSetName(isa);
    EXPECT_EQ(other, 0) << instSetName(isa);
  }
}

TEST(PairSafe, CheckIsPerPanelAndPerPairAtTheBound) {
  // With NR = 16 (so that panels are small on every path): pair (k, k+1) of column j.
  BlockingFactors bf = PackBMatrix<int8_t>(matrix_op_t::NoTranspose, 4, 1, std::vector<int8_t>(4).data(), 1)
                           .blockingFactors();
  bf.NR = 16;
  bf.NR_MIN = 16;
  const int K = 10, N = 40;  // panels: columns 0-15, 16-31, 32-39
  struct Probe {
    int b0, b1;
    bool safe;
  };
  const Probe probes[] = {{64, 64, true},    {65, 64, false},   {127, 1, true},     {127, 2, false},
                          {-64, -64, true},  {-65, -64, false}, {-128, 0, true},    {-128, -1, false},
                          {127, -128, true}, {127, 127, false}, {-128, -128, false}, {0, 0, true}};
  for (const Probe& p : probes)
    for (int k0 : {0, 2, 8}) {  // the first pair, the second pair of a 4-step, the K tail
      std::vector<int8_t> B = weights(K, N, [](int k, int j) { return (k + j) % 2 ? 30 : -30; });
      B[size_t(k0) * N + 20] = static_cast<int8_t>(p.b0);  // panel 1
      B[size_t(k0 + 1) * N + 20] = static_cast<int8_t>(p.b1);
      PackBMatrix<int8_t> packed(matrix_op_t::NoTranspose, K, N, B.data(), N, nullptr, 1, &bf);
      const uint8_t* limit = packed.pairSafeLimits(0);
      EXPECT_TRUE(limit[0] == 255 && limit[2] == 255) << p.b0 << "," << p.b1;
      EXPECT_EQ(limit[1] == 255, p.safe) << p.b0 << "," << p.b1 << " at k=" << k0;
    }
  // Neighbours of different pairs are not a pair: (k=1, k=2) = (127, 127) is safe.
  std::vector<int8_t> B = weights(K, N, [](int k, int) { return k == 1 || k == 2 ? 127 : 0; });
  PackBMatrix<int8_t> packed(matrix_op_t::NoTranspose, K, N, B.data(), N, nullptr, 1, &bf);
  EXPECT_EQ(packed.pairSafeLimits(0)[0], 255);
  // Groups: limits per group.
  std::vector<int8_t> G2 = weights(2 * K, N, [](int k, int) { return k >= K ? 127 : 1; });
  PackBMatrix<int8_t> grouped(matrix_op_t::NoTranspose, 2 * K, N, G2.data(), N, nullptr, 2, &bf);
  EXPECT_TRUE(grouped.pairSafeLimits(0)[0] == 255 && grouped.pairSafeLimits(0)[2] == 255);
  EXPECT_TRUE(grouped.pairSafeLimits(1)[0] < 255 && grouped.pairSafeLimits(1)[2] < 255);
}

TEST(PairSafe, LoadRecomputesTheCheck) {
  const int K = 37, N = 70;
  for (const WeightKind& w : weight_kinds()) {
    const std::vector<int8_t> B = draw(w, K, N, 5);
    PackBMatrix<int8_t> packed(matrix_op_t::NoTranspose, K, N, B.data(), N);
    std::stringstream file;
    packed.save(file);
    const auto loaded = PackBMatrix<int8_t>::load(file);
    const int panels = packed.layout().panels();
    for (int p = 0; p < panels; ++p) {
      EXPECT_EQ(loaded->pairSafeLimits(0)[p], packed.pairSafeLimits(0)[p]) << w.name;
      EXPECT_EQ(packed.pairSafeLimits(0)[p] == 255, w.safe) << w.name << " panel " << p;
    }
  }
}

class PairSafeGemm : public ::testing::TestWithParam<IsaCase> {};

TEST_P(PairSafeGemm, ExactOnBothSidesOfTheBound) {
  if (!GetParam().supported) GTEST_SKIP() << "needs " << instSetName(GetParam().isa);
  ScopedIsa isa(GetParam().isa);
  uint32_t seed = 1;
  for (const WeightKind& w : weight_kinds())
    for (int M : {1, 3, 17, 65})
      for (int N : {1, 4, 7, 17, 63, 65})
        for (int K : {1, 3, 36, 63, 129}) {
          const int threads = 1 + (M + N + K) % 3;
          const matrix_op_t bt = (N + K) % 2 ? matrix_op_t::Transpose : matrix_op_t::NoTranspose;
          // A = 255 everywhere makes a pair one past the bound saturate; random A too.
          const std::vector<uint8_t> A = (seed % 2) ? std::vector<uint8_t>(size_t(M) * K, 255)
                                                    : random_vector<uint8_t>(size_t(M) * K, 0, 255, seed);
          const std::vector<int8_t> B = draw(w, K, N, seed + 7);
          ASSERT_EQ(run_gemm(M, N, K, A, B, bt, threads), 0)
              << instSetName(GetParam().isa) << " " << w.name << " M=" << M << " N=" << N
              << " K=" << K << " threads=" << threads;
          ++seed;
        }
}

// The panels that are not pair-safe run the wide exact kernels where A is widened (more
// columns per thread than one slice): the largest sums, A = 255 against all -128 or all
// 127, over depths within one K block and across several (KCB 2048), 1 and 2 threads.
TEST_P(PairSafeGemm, WideKernelsExactAtTheExtremes) {
  if (!GetParam().supported) GTEST_SKIP() << "needs " << instSetName(GetParam().isa);
  ScopedIsa isa(GetParam().isa);
  for (int8_t w : {int8_t{-128}, int8_t{127}})
    for (int M : {1, 7})
      for (int K : {252, 256, 257, 260, 520, 2100, 4101}) {
        const int N = 101;
        const std::vector<uint8_t> A(size_t(M) * K, 255);
        const std::vector<int8_t> B(size_t(K) * N, w);
        ASSERT_EQ(run_gemm(M, N, K, A, B, matrix_op_t::NoTranspose, 1 + K % 2), 0)
            << instSetName(GetParam().isa) << " B=" << int(w) << " M=" << M << " K=" << K;
      }
}

// A B whose first panel is safe and the rest not, and a large K (several K blocks).
TEST_P(PairSafeGemm, MixedPanelsAndKBlocks) {
  if (!GetParam().supported) GTEST_SKIP() << "needs " << instSetName(GetParam().isa);
  ScopedIsa isa(GetParam().isa);
  for (int threads = 1; threads <= 3; ++threads) {
    const int M = 29, N = 150, K = 2100;
    const std::vector<uint8_t> A = random_vector<uint8_t>(size_t(M) * K, 200, 255, 3 + threads);
    const std::vector<int8_t> B = weights(K, N, [](int k, int j) { return j < 64 ? (k % 3 ? 64 : -64) : 127 - k % 3; });
    EXPECT_EQ(run_gemm(M, N, K, A, B, matrix_op_t::NoTranspose, threads), 0) << threads;
  }
}

// acc16 keeps its saturating model on pair-safe panels: 64 * 255 * 2 per pair, running
// sums clamped (docs/acc16.md).
TEST_P(PairSafeGemm, Acc16KeepsItsModel) {
  if (!GetParam().supported) GTEST_SKIP() << "needs " << instSetName(GetParam().isa);
  ScopedIsa isa(GetParam().isa);
  const int M = 7, N = 33, K = 300;
  const std::vector<uint8_t> A(size_t(M) * K, 255);
  const std::vector<int8_t> B = weights(K, N, [](int, int) { return 64; });
  std::vector<int32_t> want(size_t(M) * N);
  if (acc16Saturates())
    ref::matmul_u8s8s32_acc16(M, N, K, A.data(), K, B.data(), N, want.data(), N, acc16BlockDepth());
  else
    ref::matmul_u8s8s32(M, N, K, A.data(), K, B.data(), N, want.data(), N);
  PackBMatrix<int8_t, int16_t> packedB(matrix_op_t::NoTranspose, K, N, B.data(), N);
  PackAMatrix<uint8_t, int16_t> packA(matrix_op_t::NoTranspose, M, K, A.data(), K);
  std::vector<int32_t> C(size_t(M) * N);
  DoNothing<int32_t, int32_t> done;
  memCopy<> copy(done);
  fbgemmPacked(packA, packedB, C.data(), C.data(), N, copy, 0, 1);
  EXPECT_EQ(compare_buffers(want.data(), C.data(), M, N, N, 0), 0);
}

INSTANTIATE_TEST_SUITE_P(AllIsas, PairSafeGemm, ::testing::ValuesIn(all_isas()),
                         [](const auto& info) { return std::string(instSetName(info.param.isa)); });

}  // namespace
}  // namespace quire::test
