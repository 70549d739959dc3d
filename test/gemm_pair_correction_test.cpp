// Unsafe pairs as a sparse correction (docs/kernel-contract.md): the unsafe-pair index
// that follows the pair-safe limits (detail::pair_safe_limits' blob) against a brute-force
// scan of B, at the bounds of both sides (P 128 safe, 129 not; N -128 safe, -129 not);
// then whole fbgemmPacked calls bit for bit against the reference with A at 255 / 254, so
// the pair-safe kernels really saturate on the unsafe pairs and only the correction makes
// them exact: trained-like and full-range weights, odd shapes, several K blocks, groups,
// 1-3 threads, int32 and uint8 output (per tensor, per channel, ReLU on and off), on every
// path, with the corrected slices counted (quire/KernelFormCounts.h) where the path has
// pair-safe kernels and none elsewhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "../src/pack/pair_index.h"
#include "quire/quire.h"
#include "quire/ref/Reference.h"
#include "quire/ref/ReferenceOutput.h"
#include "requantized_gemm_check.h"
#include "test_util.h"

namespace quire::test {
namespace {

// Per output channel: normal-like weights scaled so that max |w| = 127.
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

// Whether the pair can leave int16 for some A in [0, 255]^2 (a corner of the box).
bool unsafe(int b0, int b1) {
  for (int a0 : {0, 255})
    for (int a1 : {0, 255}) {
      const int s = a0 * b0 + a1 * b1;
      if (s < -32768 || s > 32767) return true;
    }
  return false;
}

TEST(PairCorrection, IndexIsTheUnsafePairs) {
  BlockingFactors bf = defaultBlocking<int32_t>();
  bf.NR = 16;  // panels of 16 columns on every path
  bf.NR_MIN = 16;
  // Pairs at each side's bound, planted in an otherwise safe B: (127, 1) P = 128 and
  // (-128, 0) N = -128 are safe, (127, 2) P = 129 and (-128, -1) N = -129 are not.
  const int probes[][3] = {{127, 1, 0}, {127, 2, 1}, {-128, 0, 0}, {-128, -1, 1},
                           {64, 64, 0}, {65, 64, 1}, {-64, -64, 0}, {-65, -64, 1}};
  for (const auto& probe : probes) EXPECT_EQ(unsafe(probe[0], probe[1]), probe[2] == 1);
  std::mt19937 rng(3);
  for (int round = 0; round < 12; ++round) {
    // K under 512 keeps no index (correction_pays); over it, the entries are checked.
    const int groups = 1 + round % 3, N = 1 + int(rng() % 70);
    const int Kg = round % 2 ? 1 + int(rng() % 150) : 512 + int(rng() % 700);
    std::vector<int8_t> B =
        round % 4 == 3 ? random_vector<int8_t>(size_t(groups) * Kg * N, -128, 127, rng())
        : round % 4 == 2 ? random_vector<int8_t>(size_t(groups) * Kg * N, -64, 64, rng())
                         : trained_weights(groups * Kg, N, rng());
    for (const auto& probe : probes) {  // at random places, in pairs that fit in K
      if (Kg < 2) break;
      const int g = int(rng() % groups), t = int(rng() % (Kg / 2)), j = int(rng() % N);
      B[(size_t(g) * Kg + 2 * t) * N + j] = int8_t(probe[0]);
      B[(size_t(g) * Kg + 2 * t + 1) * N + j] = int8_t(probe[1]);
    }
    PackBMatrix<int8_t> packed(matrix_op_t::NoTranspose, groups * Kg, N, B.data(), N, nullptr,
                               groups, &bf);
    const detail::PackedBLayout& l = packed.layout();
    const detail::PairIndexView index = detail::pair_index_view(l, packed.pairSafeLimits(0));
    for (int g = 0; g < groups; ++g)
      for (int p = 0; p < l.panels(); ++p) {
        // The lists of (column, side): side 0 for weights >= 0, sorted by pair.
        std::vector<std::vector<detail::PairEntry>> want(32);
        size_t total = 0;
        const int cols = std::min(16, N - 16 * p);
        for (int t = 0; t < (Kg + 1) / 2; ++t)
          for (int c = 0; c < cols; ++c) {
            const size_t row = size_t(g) * Kg + 2 * t, j = size_t(16 * p + c);
            const int b0 = B[row * N + j], b1 = 2 * t + 1 < Kg ? B[(row + 1) * N + j] : 0;
            if (!unsafe(b0, b1)) continue;
            EXPECT_TRUE((b0 >= 0 && b1 >= 0) || (b0 <= 0 && b1 <= 0));  // one side only
            want[2 * c + (b0 + b1 > 0 ? 0 : 1)].push_back(
                {uint16_t(t), uint16_t(c),
                 int32_t(uint16_t(int16_t(b0)) | uint32_t(uint16_t(int16_t(b1))) << 16)});
            ++total;
          }
        const int gp = g * l.panels() + p;
        const bool pays = detail::correction_pays(int64_t(total), (Kg + 3) / 4 * 2, cols);
        const int64_t count = index.count(gp, 0, 1 << 16);
        ASSERT_EQ(count >= 0, pays) << "round " << round << " panel " << gp;
        if (!pays) continue;
        ASSERT_EQ(count, int64_t(total)) << "round " << round << " panel " << gp;
        const uint32_t* lists = index.lists(gp);
        for (int k = 0; k < 32; ++k) {
          const detail::PairEntry *first = index.entries + lists[k],
                                  *last = index.entries + lists[k + 1];
          ASSERT_EQ(last - first, int64_t(want[k].size())) << "panel " << gp << " list " << k;
          for (size_t e = 0; e < want[k].size(); ++e) {
            EXPECT_EQ(first[e].pair, want[k][e].pair);
            EXPECT_EQ(first[e].col, want[k][e].col);
            EXPECT_EQ(first[e].b01, want[k][e].b01);
          }
        }
        // A K range counts the entries of its pairs, and cuts each list to them.
        const int t0 = Kg / 4, t1 = Kg / 2;
        int64_t in_range = 0;
        for (int k = 0; k < 32; ++k) {
          const detail::PairEntry *first = index.entries + lists[k],
                                  *last = index.entries + lists[k + 1];
          detail::cut_to_pairs(first, last, t0, t1);
          const auto inside = [&](const detail::PairEntry& e) { return e.pair >= t0 && e.pair < t1; };
          EXPECT_EQ(last - first, std::count_if(want[k].begin(), want[k].end(), inside));
          EXPECT_TRUE(std::all_of(first, last, inside));
          in_range += last - first;
        }
        EXPECT_EQ(index.count(gp, t0, t1), in_range);
      }
  }
}


struct Case {
  int M, N, K;  // K per group
  int groups, threads;
  Out out;
  int kcb;  // > 0: K blocks of this depth
};

std::string describe(const Case& c) {
  return "M=" + std::to_string(c.M) + " N=" + std::to_string(c.N) + " K=" + std::to_string(c.K) +
         " groups=" + std::to_string(c.groups) + " threads=" + std::to_string(c.threads) +
         " out=" + std::to_string(int(c.out)) + " kcb=" + std::to_string(c.kcb);
}

// fbgemmPacked against the reference; returns the mismatches and the calls' form counts.
int run_case(const Case& c, const std::vector<uint8_t>& A, const std::vector<int8_t>& B,
             KernelFormCounts& counts) {
  const int M = c.M, N = c.N, K = c.K, G = c.groups;
  std::vector<int32_t> exact(size_t(M) * G * N);
  for (int g = 0; g < G; ++g)
    ref::matmul_u8s8s32(M, N, K, A.data() + g * K, G * K, B.data() + size_t(g) * K * N, N,
                        exact.data() + g * N, G * N);
  BlockingFactors bf = defaultBlocking<int32_t>();
  if (c.kcb > 0) bf.KCB = c.kcb;
  const BlockingFactors* params = c.kcb > 0 ? &bf : nullptr;
  PackBMatrix<int8_t> packedB(matrix_op_t::NoTranspose, G * K, N, B.data(), N, nullptr, G, params);
  resetKernelFormCounts();
  const int bad = output_mismatches(c.out, M, N, K, G, c.threads, A, packedB, exact, params);
  counts = kernelFormCounts();
  return bad;
}

// A at 255 and 254 (254 * 129 = 32766 fits, 255 * 129 does not: both sides of a bound),
// with a few zeros.
std::vector<uint8_t> extreme_a(size_t n, uint32_t seed) {
  std::vector<uint8_t> A = random_vector<uint8_t>(n, 0, 15, seed);
  for (uint8_t& a : A) a = a == 0 ? 0 : a < 8 ? 255 : 254;
  return A;
}

class PairCorrectionGemm : public ::testing::TestWithParam<IsaCase> {};

// Trained-like weights leave 1-2% of pairs unsafe at K = 1500 (more at smaller K, where
// the panels run the exact form): corrected on avx2 / avx512 for blocks of at least 10
// rows (up to 1/20 of pairs) and K blocks of at least 512. The shapes cross
// the tiles' rows and columns, K tails (odd K: pairs half in the padding) and several K
// blocks (of 64 at K = 129; of 512 at K = 1501, the last one too short to correct).
TEST_P(PairCorrectionGemm, TrainedWeightsExtremeActivations) {
  if (!GetParam().supported) GTEST_SKIP() << "needs " << missing_features(GetParam().isa);
  ScopedIsa isa(GetParam().isa);
  uint32_t seed = 40;
  for (int M : {1, 3, 17, 63, 65})
    for (int N : {1, 17, 63, 65})
      for (int K : {3, 64, 129, 1501}) {
        ++seed;
        const int groups = seed % 4 == 0 ? 2 : 1;
        const Case c{M, N, K, groups, 1 + int(seed % 3), groups > 1 ? Out::int32 : kOuts[seed % 5],
                     K > 1000 ? (seed % 2 ? 512 : 0) : K > 128 && seed % 2 ? 64 : 0};
        const auto A = extreme_a(size_t(M) * groups * K, seed);
        const auto B = trained_weights(groups * K, N, seed + 1);
        KernelFormCounts counts{};
        ASSERT_EQ(run_case(c, A, B, counts), 0) << describe(c);
        if (!path_chooses_forms()) {
          EXPECT_EQ(counts.corrected, 0) << describe(c);
        } else if (M >= 17 && N >= 17 && K > 1000 && c.threads == 1) {
          EXPECT_GT(counts.corrected, 0) << describe(c);
        }
      }
}

// Planted unsafe pairs past the bound, in one column each: with A = 255 every
// such pair saturates the pair-safe kernel, so a missing or wrong correction shows.
TEST_P(PairCorrectionGemm, PlantedPairsAtTheBound) {
  if (!GetParam().supported) GTEST_SKIP() << "needs " << missing_features(GetParam().isa);
  ScopedIsa isa(GetParam().isa);
  const int pairs[][2] = {{127, 2}, {127, 127}, {-128, -1}, {-128, -128}, {65, 64}, {-65, -64}};
  uint32_t seed = 7;
  for (const auto& pair : pairs)
    for (int M : {1, 6, 17, 130})  // 1 and 6 (on 33 columns): exact, still exact results
      // 1100 in K blocks of 512, 512 (corrected) and 76 (too short), or in one (kcb 0:
      // the default 2048), where a requantizing output stage reads the correction from
      // the slice's own tile instead of C_buffer; every output kind meets both.
      for (int K : {17, 1100, 1100})
        for (int out = 0; out < (K > 128 ? 5 : 1); ++out) {
          ++seed;
          const int N = 33;
          const bool k_blocks = K > 128 && seed % 2 == 0;
          const Case c{M, N, K, 1, 1 + int(seed % 3), kOuts[K > 128 ? out : seed % 5],
                       k_blocks ? 512 : 0};
          // Every third row at 200, so rows differ in what they lose (65 x 200 + 64 x 200
          // fits int16): a correction added to the wrong row shows.
          std::vector<uint8_t> A(size_t(M) * K, 255);
          for (int i = 2; i < M; i += 3) std::fill_n(A.begin() + size_t(i) * K, K, uint8_t{200});
          auto B = random_vector<int8_t>(size_t(K) * N, -60, 60, seed);
          for (int j = 0; j < N; j += 16) {  // one unsafe pair per column in 1 of 16
            const int t = (j * 7) % (K / 2);
            B[size_t(2 * t) * N + j] = int8_t(pair[0]);
            B[size_t(2 * t + 1) * N + j] = int8_t(pair[1]);
          }
          KernelFormCounts counts{};
          ASSERT_EQ(run_case(c, A, B, counts), 0) << pair[0] << "," << pair[1] << " " << describe(c);
          // Blocks of 10 rows or more are corrected (a thread's share of M: 130 rows split
          // in 3 still are), in K blocks of 512 or in one.
          if (path_chooses_forms() && K >= 512 && (M >= 130 || (M >= 17 && c.threads == 1))) {
            EXPECT_GT(counts.corrected, 0) << describe(c);
          }
        }
}

// Quantization groups narrower than a column slice (GROUP granularity, 8 columns per
// group on one GEMM group): a slice's per-group operands change inside it, so it has no
// stage kernel and a corrected slice under such an op puts its compact correction into
// C_buffer before its int32 kernel and the epilogue run.
TEST_P(PairCorrectionGemm, QuantGroupsInsideASlice) {
  if (!GetParam().supported) GTEST_SKIP() << "needs " << missing_features(GetParam().isa);
  ScopedIsa isa(GetParam().isa);
  const int M = 17, N = 40, K = 1100;
  std::vector<uint8_t> A(size_t(M) * K, 255);
  for (int i = 2; i < M; i += 3) std::fill_n(A.begin() + size_t(i) * K, K, uint8_t{200});
  auto B = random_vector<int8_t>(size_t(K) * N, -60, 60, 77);
  for (int j = 0; j < N; j += 3) {  // one unsafe pair in every third column
    const int t = (j * 13) % (K / 2);
    B[size_t(2 * t) * N + j] = int8_t(j % 2 ? 127 : -128);
    B[size_t(2 * t + 1) * N + j] = int8_t(j % 2 ? 127 : -128);
  }
  std::vector<int32_t> exact(size_t(M) * N);
  ref::matmul_u8s8s32(M, N, K, A.data(), K, B.data(), N, exact.data(), N);
  PackBMatrix<int8_t> packedB(matrix_op_t::NoTranspose, K, N, B.data(), N);
  for (bool relu : {false, true}) {
    resetKernelFormCounts();
    const int bad =
        relu ? requantized_mismatches<true, QuantizationGranularity::GROUP>(M, N, K, 1, A, packedB,
                                                                          exact, nullptr, 5)
             : requantized_mismatches<false, QuantizationGranularity::GROUP>(M, N, K, 1, A, packedB,
                                                                           exact, nullptr, 5);
    EXPECT_EQ(bad, 0) << "relu " << relu;
    EXPECT_EQ(kernelFormCounts().corrected > 0, path_chooses_forms()) << "relu " << relu;
  }
}

// The rule's bounds (correction_pays): one unsafe pair in every fifth column, A = 255 so
// each saturates; K blocks of 512, one thread. Blocks of 1-5 rows run the exact form;
// 6-9 rows are corrected on 4096 columns or more, from 10 rows on any; on K blocks of
// 256 pairs (K = 1024: two of them), and from two row vectors (16 rows on avx2, 32 on
// avx512) on K blocks of 128 pairs too (K = 256; K = 36 has one of 18, never corrected).
TEST_P(PairCorrectionGemm, RowsColumnsAndKBlocksOfTheRule) {
  if (!GetParam().supported) GTEST_SKIP() << "needs " << missing_features(GetParam().isa);
  ScopedIsa isa(GetParam().isa);
  uint32_t seed = 300;
  // Two vectors of the correction's rows: 8 int32 lanes on avx2, 16 on avx512.
  const int tall_rows = GetParam().isa == inst_set_t::avx512 ? 32 : 16;
  for (int M : {1, 2, 3, 5, 6, 9, 10, 15, 16, 17, 31, 32})
    for (int N : {47, 4100})
      for (int K : {36, 256, 1024}) {
        ++seed;
        const Case c{M, N, K, 1, 1, kOuts[seed % 5], 512};
        std::vector<uint8_t> A(size_t(M) * K, 255);
        auto B = random_vector<int8_t>(size_t(K) * N, -60, 60, seed);
        for (int j = 0; j < N; j += 5) {
          const int t = (j * 11) % (K / 2);
          B[size_t(2 * t) * N + j] = int8_t(j % 2 ? 127 : -128);
          B[size_t(2 * t + 1) * N + j] = int8_t(j % 2 ? 100 : -90);
        }
        KernelFormCounts counts{};
        ASSERT_EQ(run_case(c, A, B, counts), 0) << describe(c);
        const bool corrects =
            (K >= 512 && (M >= 10 || (M >= 6 && N >= 4096))) || (K >= 256 && M >= tall_rows);
        EXPECT_EQ(counts.corrected > 0, path_chooses_forms() && corrects) << describe(c);
      }
}

// Full-range weights have about a quarter of their pairs unsafe: too many to correct,
// they run the exact form, still exactly.
TEST_P(PairCorrectionGemm, FullRangeWeights) {
  if (!GetParam().supported) GTEST_SKIP() << "needs " << missing_features(GetParam().isa);
  ScopedIsa isa(GetParam().isa);
  uint32_t seed = 900;
  for (int M : {3, 65})
    for (int N : {17, 65})
      for (int K : {63, 300}) {
        ++seed;
        const Case c{M, N, K, 1, 1 + int(seed % 3), kOuts[seed % 5], K > 128 ? 64 : 0};
        const auto A = extreme_a(size_t(M) * K, seed);
        const auto B = random_vector<int8_t>(size_t(K) * N, -128, 127, seed + 1);
        KernelFormCounts counts{};
        ASSERT_EQ(run_case(c, A, B, counts), 0) << describe(c);
        EXPECT_EQ(counts.corrected, 0) << describe(c);
      }
}

INSTANTIATE_TEST_SUITE_P(AllIsas, PairCorrectionGemm, ::testing::ValuesIn(all_isas()),
                         [](const auto& info) { return std::string(instSetName(info.param.isa)); });

}  // namespace
}  // namespace quire::test
