// The saturation certificate (docs/kernel-contract.md, "The saturation certificate"): a
// B panel's pair-safe limit (PackBMatrix::pairSafeLimits) against the largest A value a
// of the box's corners can reach, and fbgemmPacked bit for bit against the reference at
// the bound and one past it from both sides (pair sums 32767 / 32768 and -32768 /
// -32769), with the kernel form each case must run (quire/KernelFormCounts.h): on avx2
// and avx512 a certified block x panel runs vpmaddubsw, which saturates one past the
// bound, so a certificate off by one shows up as a wrong sum. Then 7-bit activations with
// full-range weights (always certified), full-range both, trained-like weights, odd
// shapes, several K blocks and row spans, the exact form's tiles, 1-3 threads, int32 and
// uint8 output with per-tensor and per-channel requantization, ReLU on and off, on every
// path.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "quire/quire.h"
#include "quire/ref/Reference.h"
#include "quire/ref/ReferenceOutput.h"
#include "requantized_gemm_check.h"
#include "test_util.h"

namespace quire::test {
namespace {

using AFill = std::function<int(int, int)>;  // A(i, k)
using BFill = std::function<int(int, int)>;  // B(k, j)

template <class T>
std::vector<T> matrix(int rows, int cols, const std::function<int(int, int)>& f) {
  std::vector<T> m(size_t(rows) * cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) m[size_t(i) * cols + j] = static_cast<T>(f(i, j));
  return m;
}

// The largest a in [0, 255] such that every K pair (k even, k + 1) of columns [j0, j1)
// stays in int16 at every corner of [0, a]^2 (the sum is linear in each of a0, a1, so its
// extremes over the box are at corners).
int corner_limit(const std::vector<int8_t>& B, int K, int N, int j0, int j1) {
  for (int a = 255; a > 0; --a) {
    bool fits = true;
    for (int j = j0; j < j1 && fits; ++j)
      for (int k = 0; k < K && fits; k += 2) {
        const int b0 = B[size_t(k) * N + j], b1 = k + 1 < K ? B[size_t(k + 1) * N + j] : 0;
        for (int a0 : {0, a})
          for (int a1 : {0, a}) {
            const int sum = a0 * b0 + a1 * b1;
            fits &= sum >= -32768 && sum <= 32767;
          }
      }
    if (fits) return a;
  }
  return 0;
}

// Per output channel: normal-like weights scaled so that max |w| = 127 (trained weights
// quantized symmetric per channel).
std::vector<int8_t> trained_weights(int K, int N, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> w(size_t(K) * N);
  for (double& x : w) x = normal(rng);
  std::vector<int8_t> B(w.size());
  for (int j = 0; j < N; ++j) {
    double top = 0;
    for (int k = 0; k < K; ++k) top = std::max(top, std::abs(w[size_t(k) * N + j]));
    for (int k = 0; k < K; ++k)
      B[size_t(k) * N + j] = static_cast<int8_t>(std::lround(w[size_t(k) * N + j] / top * 127));
  }
  return B;
}


struct Case {
  int M, N, K;
  int threads;
  Out out;
  int kcb = 0;  // > 0: K blocks of this depth (several certificates per row block)
};

std::string describe(const Case& c) {
  return "M=" + std::to_string(c.M) + " N=" + std::to_string(c.N) + " K=" + std::to_string(c.K) +
         " threads=" + std::to_string(c.threads) + " out=" + std::to_string(int(c.out)) +
         " kcb=" + std::to_string(c.kcb);
}

// Runs the case through fbgemmPacked against the reference; returns the mismatches and
// the kernel form counts of the calls.
int run_case(const Case& c, const std::vector<uint8_t>& A, const std::vector<int8_t>& B,
             KernelFormCounts& counts) {
  const int M = c.M, N = c.N, K = c.K;
  std::vector<int32_t> exact(size_t(M) * N);
  ref::matmul_u8s8s32(M, N, K, A.data(), K, B.data(), N, exact.data(), N);
  BlockingFactors bf = defaultBlocking<int32_t>();
  if (c.kcb > 0) bf.KCB = c.kcb;
  const BlockingFactors* params = c.kcb > 0 ? &bf : nullptr;
  PackBMatrix<int8_t> packedB(matrix_op_t::NoTranspose, K, N, B.data(), N, nullptr, 1, params);
  resetKernelFormCounts();
  const int bad = output_mismatches(c.out, M, N, K, 1, c.threads, A, packedB, exact, params);
  counts = kernelFormCounts();
  return bad;
}

TEST(SaturationCertificate, LimitsAreTheCornersBound) {
  BlockingFactors bf = defaultBlocking<int32_t>();
  bf.NR = 16;  // small panels on every path: columns 0-15, 16-31, 32-39
  bf.NR_MIN = 16;
  const int K = 11, N = 40;
  std::mt19937 rng(5);
  const std::vector<std::function<std::vector<int8_t>()>> kinds = {
      [&] { return trained_weights(K, N, rng()); },
      [&] { return random_vector<int8_t>(size_t(K) * N, -128, 127, rng()); },
      [&] { return random_vector<int8_t>(size_t(K) * N, -64, 64, rng()); },
      [&] { return random_vector<int8_t>(size_t(K) * N, -128, -100, rng()); },
      [&] { return random_vector<int8_t>(size_t(K) * N, 100, 127, rng()); },
  };
  // Pairs at each side's bound: 217 * 151 = 32767 and 128 * -256 = -32768 exactly.
  const std::pair<int, int> probes[] = {{127, 24}, {127, 25}, {-128, -128}, {-128, -127},
                                        {127, 2},  {-128, -1}, {127, 127},  {0, 0}};
  for (int round = 0; round < 20; ++round) {
    std::vector<int8_t> B = kinds[round % kinds.size()]();
    const auto [b0, b1] = probes[round % 8];
    const int k = 2 * (round % 5);  // every pair position of a 4-step and the K tail
    B[size_t(k) * N + 20] = int8_t(b0);
    B[size_t(k + 1) * N + 20] = int8_t(b1);
    PackBMatrix<int8_t> packed(matrix_op_t::NoTranspose, K, N, B.data(), N, nullptr, 1, &bf);
    for (int p = 0; p < 3; ++p)
      EXPECT_EQ(packed.pairSafeLimits(0)[p], corner_limit(B, K, N, 16 * p, std::min(N, 16 * p + 16)))
          << "round " << round << " panel " << p;
  }
  // The probes' own limits: 32767 / 151 = 217, 32768 / 256 = 128, 32767 / 129 = 254.
  const std::pair<std::pair<int, int>, int> exact_limits[] = {
      {{127, 24}, 217}, {{-128, -128}, 128}, {{127, 2}, 254}, {{-128, -1}, 254},
      {{127, 1}, 255},  {{-128, 0}, 255},    {{127, 127}, 129}};
  for (const auto& [pair, limit] : exact_limits) {
    const int b0 = pair.first, b1 = pair.second;  // copies: clang 14 cannot capture bindings
    const std::vector<int8_t> B =
        matrix<int8_t>(4, 1, [b0, b1](int k, int) { return k % 2 ? b1 : b0; });
    PackBMatrix<int8_t> packed(matrix_op_t::NoTranspose, 4, 1, B.data(), 1);
    EXPECT_EQ(packed.pairSafeLimits(0)[0], limit) << pair.first << "," << pair.second;
  }
}

class SaturationCertificateGemm : public ::testing::TestWithParam<IsaCase> {};

// Every pair of B is (b0, b1); A(i, k) is a0 at even k, a1 at odd k, so every pair sum is
// a0 * b0 + a1 * b1 and the block's max is max(a0, a1).
struct BoundCase {
  const char* name;
  int b0, b1, a0, a1;
  int sum;         // the pair sum, for the record
  bool certified;  // max(a0, a1) <= the limit
};

TEST_P(SaturationCertificateGemm, ExactAtTheBoundAndOnePast) {
  if (!GetParam().supported) GTEST_SKIP() << "needs " << missing_features(GetParam().isa);
  ScopedIsa isa(GetParam().isa);
  const BoundCase cases[] = {
      {"max A x P = 32767 (P 151, limit 217)", 127, 24, 217, 217, 32767, true},
      {"one past: A 218 on P 151", 127, 24, 218, 218, 32918, false},
      {"pair sum 32768 (P 129, limit 254)", 127, 2, 254, 255, 32768, false},
      {"max A 254 on P 129: 32766", 127, 2, 254, 254, 32766, true},
      {"max A x N = -32768 (N -256, limit 128)", -128, -128, 128, 128, -32768, true},
      {"one past: A 129 on N -256", -128, -128, 129, 129, -33024, false},
      {"pair sum -32769 (N -129, limit 254)", -128, -1, 255, 129, -32769, false},
      {"max A 254 on N -129: -32766", -128, -1, 254, 254, -32766, true},
  };
  for (const BoundCase& bc : cases) {
    ASSERT_EQ(bc.a0 * bc.b0 + bc.a1 * bc.b1, bc.sum) << bc.name;
    for (int M : {1, 6, 17, 65})
      for (int N : {3, 17, 64, 65})
        for (int K : {2, 36, 130})
          // int32 shows a saturated sum; a requantized output may round it away.
          for (Out out : {Out::int32, kOuts[1 + (M + N + K) % 4]}) {
          const Case c{M, N, K, 1 + (M + N) % 3, out};
          const auto A = matrix<uint8_t>(M, K, [&](int, int k) { return k % 2 ? bc.a1 : bc.a0; });
          const auto B = matrix<int8_t>(K, N, [&](int k, int) { return k % 2 ? bc.b1 : bc.b0; });
          KernelFormCounts counts{};
          ASSERT_EQ(run_case(c, A, B, counts), 0) << bc.name << " " << describe(c);
          if (path_chooses_forms()) {
            EXPECT_EQ(counts.pair_safe > 0, bc.certified) << bc.name << " " << describe(c);
            EXPECT_EQ(counts.exact > 0, !bc.certified) << bc.name << " " << describe(c);
          } else {
            EXPECT_EQ(counts.pair_safe + counts.exact, 0) << bc.name;
          }
        }
  }
}

// 7-bit activations certify any weights; full-range activations with full-range weights
// certify nothing; trained weights with activations below their limits partly.
TEST_P(SaturationCertificateGemm, ActivationAndWeightRanges) {
  if (!GetParam().supported) GTEST_SKIP() << "needs " << missing_features(GetParam().isa);
  ScopedIsa isa(GetParam().isa);
  struct Range {
    const char* name;
    int a_hi;
    int b_kind;  // 0: full range, 1: trained, 2: all -128 (N = -256)
  };
  const Range ranges[] = {{"7-bit A, full-range B", 127, 0}, {"7-bit A, all -128", 127, 2},
                          {"full-range A and B", 255, 0},    {"7-bit A, trained B", 127, 1},
                          {"A to 200, trained B", 200, 1},   {"full-range A, trained B", 255, 1}};
  uint32_t seed = 1;
  for (const Range& r : ranges)
    for (int M : {1, 3, 17, 63, 65})
      for (int N : {1, 3, 17, 63, 65})
        for (int K : {1, 3, 17, 64, 129}) {
          ++seed;
          const Case c{M, N, K, 1 + int(seed % 3), kOuts[seed % 5]};
          std::vector<uint8_t> A = random_vector<uint8_t>(size_t(M) * K, 0, r.a_hi, seed);
          A[seed % A.size()] = uint8_t(r.a_hi);  // the range's top is reached
          const std::vector<int8_t> B =
              r.b_kind == 0   ? random_vector<int8_t>(size_t(K) * N, -128, 127, seed + 1)
              : r.b_kind == 1 ? trained_weights(K, N, seed + 1)
                              : std::vector<int8_t>(size_t(K) * N, -128);
          KernelFormCounts counts{};
          ASSERT_EQ(run_case(c, A, B, counts), 0) << r.name << " " << describe(c);
          if (path_chooses_forms() && r.a_hi == 127) {
            EXPECT_EQ(counts.exact, 0) << r.name << " " << describe(c);
          }
        }
}

// Each K block and each row block has its own certificate: K blocks of 64 where only the
// last holds 255s (full-range B), row spans (K <= KCB / 2, M > MCB, one column slice)
// where one span's block holds them, and A rows with a 255 in one row block only.
TEST_P(SaturationCertificateGemm, PerBlockCertificates) {
  if (!GetParam().supported) GTEST_SKIP() << "needs " << missing_features(GetParam().isa);
  ScopedIsa isa(GetParam().isa);
  for (int threads = 1; threads <= 3; ++threads)
    for (Out out : kOuts) {
      {
        const Case c{29, 70, 300, threads, out, 64};
        std::vector<uint8_t> A = random_vector<uint8_t>(size_t(c.M) * c.K, 0, 127, threads);
        for (int i = 0; i < c.M; ++i)
          for (int k = 256; k < c.K; ++k) A[size_t(i) * c.K + k] = 255;
        const auto B = random_vector<int8_t>(size_t(c.K) * c.N, -128, 127, 9 + threads);
        KernelFormCounts counts{};
        ASSERT_EQ(run_case(c, A, B, counts), 0) << describe(c);
        if (path_chooses_forms()) {
          EXPECT_TRUE(counts.pair_safe > 0 && counts.exact > 0) << describe(c);
        }
      }
      {
        const Case c{8000, 16, 36, threads, out};  // spans of 2048 / 36 blocks of MCB rows
        std::vector<uint8_t> A = random_vector<uint8_t>(size_t(c.M) * c.K, 0, 127, 20 + threads);
        A[size_t(1234) * c.K + 35] = 255;
        A[size_t(7999) * c.K] = 128;  // at the limit of N = -256
        const auto B = std::vector<int8_t>(size_t(c.K) * c.N, -128);
        KernelFormCounts counts{};
        ASSERT_EQ(run_case(c, A, B, counts), 0) << describe(c);
        if (path_chooses_forms()) {
          EXPECT_TRUE(counts.pair_safe > 0 && counts.exact > 0) << describe(c);
        }
      }
    }
}

// Blocks no certificate covers run the path's exact form; on avx2 with several column
// slices that is the sx_b kernels (6 x 8 tiles, 2 x 16 for 1-2 rows, in 8-column calls
// within a 16-column slice): every row count around those tiles, column tails within and
// across the 8-column halves, K tails and several K blocks, full-range data.
TEST_P(SaturationCertificateGemm, ExactFormTiles) {
  if (!GetParam().supported) GTEST_SKIP() << "needs " << missing_features(GetParam().isa);
  ScopedIsa isa(GetParam().isa);
  uint32_t seed = 100;
  for (int M : {1, 2, 3, 5, 6, 7, 12, 13, 125})
    for (int N : {9, 17, 24, 33, 47})
      for (int K : {4, 37, 130}) {
        ++seed;
        const Case c{M, N, K, 1 + int(seed % 3), kOuts[seed % 5], seed % 4 == 0 ? 64 : 0};
        std::vector<uint8_t> A = random_vector<uint8_t>(size_t(M) * K, 0, 255, seed);
        A[0] = 255;  // no certificate below 255 can hold
        const auto B = random_vector<int8_t>(size_t(K) * N, -128, 127, seed + 1);
        KernelFormCounts counts{};
        ASSERT_EQ(run_case(c, A, B, counts), 0) << describe(c);
      }
}

INSTANTIATE_TEST_SUITE_P(AllIsas, SaturationCertificateGemm, ::testing::ValuesIn(all_isas()),
                         [](const auto& info) { return std::string(instSetName(info.param.isa)); });

}  // namespace
}  // namespace quire::test
