// The outlier split for acc16 (OutlierSplit.h): dense + outliers == B for both layouts
// and any groups; the int16 budget of every (column, block, half) checked on its own,
// with smallest-first maximality; and the identity it exists for,
//   ref::matmul_u8s8s32_acc16(A, dense) + SpMDM(A, outliers) == ref::matmul_u8s8s32(A, B),
// on full-range and adversarial weights and activations, for K blockings that divide
// block_depth. Plus every bad argument.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "quire/OutlierSplit.h"
#include "quire/quire.h"
#include "quire/ref/Reference.h"
#include "test_util.h"

namespace quire::test {
namespace {

// EXPECT_INVALID (test_util.h) with W("param", ...) for the words the message must hold.
#define W(...) ({__VA_ARGS__})

constexpr auto kN = matrix_op_t::NoTranspose;
constexpr auto kT = matrix_op_t::Transpose;

// Element (k, j) of group g (k within the group) of a B laid out as PackBMatrix takes it.
int8_t element(const std::vector<int8_t>& B, matrix_op_t trans, int Kg, int N, int ld, int g,
               int k, int j) {
  return trans == kN ? B[(static_cast<size_t>(g) * Kg + k) * ld + j]
                     : B[(static_cast<size_t>(g) * N + j) * ld + k];
}

// The weights as the references take them: G*Kg x N row-major, groups stacked along K.
std::vector<int8_t> stacked(const std::vector<int8_t>& B, matrix_op_t trans, int Kg, int N, int G,
                            int ld) {
  std::vector<int8_t> out(static_cast<size_t>(G) * Kg * N);
  for (int g = 0; g < G; ++g)
    for (int k = 0; k < Kg; ++k)
      for (int j = 0; j < N; ++j)
        out[(static_cast<size_t>(g) * Kg + k) * N + j] = element(B, trans, Kg, N, ld, g, k, j);
  return out;
}

// The outliers in the same stacked form (their CSC is Kg x G*N, column g*N + j).
std::vector<int8_t> stacked_outliers(const CompressedSparseColumn& csc, int Kg, int N, int G) {
  std::vector<int8_t> wide(static_cast<size_t>(Kg) * G * N);
  csc.toDense(wide.data(), G * N);
  std::vector<int8_t> out(wide.size());
  for (int g = 0; g < G; ++g)
    for (int k = 0; k < Kg; ++k)
      for (int j = 0; j < N; ++j)
        out[(static_cast<size_t>(g) * Kg + k) * N + j] = wide[static_cast<size_t>(k) * G * N + g * N + j];
  return out;
}

TEST(OutlierSplit, DenseAndOutliersAddUpToB) {
  uint32_t seed = 1;
  for (const matrix_op_t trans : {kN, kT}) {
    for (const int G : {1, 2, 4}) {
      for (const int Kg : {0, 1, 17, 65, 300}) {
        for (const int N : {1, 5}) {
          for (const int a_max : {255, 37}) {
            const int ld = (trans == kN ? N : Kg) + 3;
            const int ld_rows = trans == kN ? G * Kg : G * N;
            const std::vector<int8_t> B =
                random_vector<int8_t>(static_cast<size_t>(ld_rows) * ld, -128, 127, seed++);
            const Acc16OutlierSplit s = splitOutliersForAcc16(trans, G * Kg, N, B.data(), ld, G, 64, a_max);
            ASSERT_EQ(s.dense.size(), static_cast<size_t>(G) * Kg * N);
            ASSERT_EQ(s.outliers.NumOfRows(), static_cast<size_t>(Kg));
            ASSERT_EQ(s.outliers.NumOfCols(), static_cast<size_t>(G) * N);
            s.outliers.validate("test");
            const int dense_ld = trans == kN ? N : Kg;
            const std::vector<int8_t> want = stacked(B, trans, Kg, N, G, ld);
            const std::vector<int8_t> dense = stacked(s.dense, trans, Kg, N, G, dense_ld);
            const std::vector<int8_t> outl = stacked_outliers(s.outliers, Kg, N, G);
            for (size_t i = 0; i < want.size(); ++i) {
              // Each weight goes whole to one side.
              ASSERT_TRUE((dense[i] == want[i] && outl[i] == 0) || (dense[i] == 0 && outl[i] == want[i]))
                  << "trans " << (trans == kT) << " G " << G << " Kg " << Kg << " at " << i;
            }
          }
        }
      }
    }
  }
}

// The budget of every (group, column, block, half), recomputed from dense on its own:
// a_max * sum of kept positives <= 32767, a_max * sum of kept |negatives| <= 32768;
// kept weights precede outliers in (magnitude, depth) order; the first outlier of each
// sign would not have fit.
TEST(OutlierSplit, BudgetOfEveryHalfBlock) {
  uint32_t seed = 50;
  for (const matrix_op_t trans : {kN, kT}) {
    for (const int bd : {4, 64, 256}) {
      for (const int a_max : {255, 128, 9}) {
        const int G = 2, Kg = 300, N = 7;
        const int ld = trans == kN ? N : Kg;
        const std::vector<int8_t> B = random_vector<int8_t>(static_cast<size_t>(G) * Kg * N, -128, 127, seed++);
        const Acc16OutlierSplit s = splitOutliersForAcc16(trans, G * Kg, N, B.data(), ld, G, bd, a_max);
        const std::vector<int8_t> want = stacked(B, trans, Kg, N, G, ld);
        const std::vector<int8_t> dense = stacked(s.dense, trans, Kg, N, G, ld);
        for (int g = 0; g < G; ++g) {
          for (int j = 0; j < N; ++j) {
            for (int k0 = 0; k0 < Kg; k0 += bd) {
              for (int half = 0; half < 2; ++half) {
                for (const int sign : {1, -1}) {
                  std::vector<std::pair<int, int>> kept, out;  // (magnitude, depth)
                  for (int k = k0; k < std::min(k0 + bd, Kg); ++k) {
                    if ((k % 4) / 2 != half) continue;
                    const size_t at = (static_cast<size_t>(g) * Kg + k) * N + j;
                    const int m = sign * want[at];
                    if (m <= 0) continue;
                    (dense[at] != 0 ? kept : out).push_back({m, k});
                  }
                  int sum = 0;
                  for (const auto& [m, k] : kept) sum += m;
                  const int limit = sign > 0 ? 32767 : 32768;
                  EXPECT_LE(a_max * sum, limit) << "g " << g << " j " << j << " block " << k0 << " half " << half;
                  if (kept.empty() || out.empty()) continue;
                  EXPECT_LT(*std::max_element(kept.begin(), kept.end()), *std::min_element(out.begin(), out.end()));
                  EXPECT_GT(a_max * (sum + std::min_element(out.begin(), out.end())->first), limit);
                }
              }
            }
          }
        }
      }
    }
  }
}

// Weights and activations of the identity cases.
enum class Weights { random, all_127, all_minus_128, alternating, one_huge_column };

std::vector<int8_t> make_weights(Weights w, int K, int N, uint32_t seed) {
  std::vector<int8_t> B = random_vector<int8_t>(static_cast<size_t>(K) * N, -128, 127, seed);
  for (int k = 0; k < K; ++k) {
    for (int j = 0; j < N; ++j) {
      int8_t& b = B[static_cast<size_t>(k) * N + j];
      switch (w) {
        case Weights::random: break;
        case Weights::all_127: b = 127; break;
        case Weights::all_minus_128: b = -128; break;
        case Weights::alternating: b = static_cast<int8_t>((k + j) % 2 ? -128 : 127); break;
        case Weights::one_huge_column: b = static_cast<int8_t>(j == 1 ? 127 : b % 4); break;
      }
    }
  }
  return B;
}

// acc16 on dense (model depth d) + SpMDM of the outliers, per group, for A (M x G*Kg)
// and the split of B (G*Kg x N, stacked).
std::vector<int32_t> split_product(const std::vector<uint8_t>& A, const Acc16OutlierSplit& s,
                                   int M, int Kg, int N, int G, int d) {
  const int lda = G * Kg, ldc = G * N;
  std::vector<int32_t> C(static_cast<size_t>(M) * ldc);
  for (int g = 0; g < G; ++g) {
    ref::matmul_u8s8s32_acc16(M, N, Kg, A.data() + g * Kg, lda, s.dense.data() + static_cast<size_t>(g) * Kg * N,
                              N, C.data() + g * N, ldc, d);
    s.outliers.SpMDM({0, M, g * N, N}, A.data() + g * Kg, lda, true, C.data() + g * N, ldc);
  }
  return C;
}

std::vector<int32_t> grouped(const std::vector<uint8_t>& A, const std::vector<int8_t>& B, int M,
                             int Kg, int N, int G, int d /* 0: exact */) {
  const int lda = G * Kg, ldc = G * N;
  std::vector<int32_t> C(static_cast<size_t>(M) * ldc);
  for (int g = 0; g < G; ++g) {
    const int8_t* b = B.data() + static_cast<size_t>(g) * Kg * N;
    if (d == 0) ref::matmul_u8s8s32(M, N, Kg, A.data() + g * Kg, lda, b, N, C.data() + g * N, ldc);
    else ref::matmul_u8s8s32_acc16(M, N, Kg, A.data() + g * Kg, lda, b, N, C.data() + g * N, ldc, d);
  }
  return C;
}

TEST(OutlierSplit, Acc16PlusSpmdmIsExact) {
  const int M = 3, N = 5;
  uint32_t seed = 400;
  int saturating_cases = 0;  // where acc16 on the unsplit B is wrong: the split matters
  for (const int G : {1, 2}) {
    for (const int Kg : {1, 3, 17, 63, 65, 257, 1000}) {
      for (const Weights w : {Weights::random, Weights::all_127, Weights::all_minus_128,
                              Weights::alternating, Weights::one_huge_column}) {
        const std::vector<int8_t> B = make_weights(w, G * Kg, N, seed++);
        const std::vector<uint8_t> random_A = random_vector<uint8_t>(static_cast<size_t>(M) * G * Kg, 0, 255, seed++);
        for (const std::vector<uint8_t>& A : {std::vector<uint8_t>(random_A.size(), 255), random_A}) {
          const std::vector<int32_t> exact = grouped(A, B, M, Kg, N, G, 0);
          for (const int bd : {4, 64, 256}) {
            const Acc16OutlierSplit s = splitOutliersForAcc16(kN, G * Kg, N, B.data(), N, G, bd);
            for (const int d : {4, 64, 256}) {  // any model depth dividing the split's
              if (bd % d != 0) continue;
              ASSERT_EQ(split_product(A, s, M, Kg, N, G, d), exact)
                  << "G " << G << " Kg " << Kg << " weights " << static_cast<int>(w)
                  << " A[0] " << int{A[0]} << " block_depth " << bd << " model depth " << d;
            }
            saturating_cases += grouped(A, B, M, Kg, N, G, bd) != exact;
          }
        }
      }
    }
  }
  EXPECT_GT(saturating_cases, 100) << "the cases must saturate acc16 without the split";
}

// With activations bounded by a_max the budget grows to floor(32767 / a_max), and small
// weights fit whole: the cases where the split pays.
TEST(OutlierSplit, OutlierCounts) {
  const int K = 512, N = 4, bd = 256;  // 4 half-blocks of 128 depths per column
  auto outliers = [&](std::vector<int8_t> B, int a_max) {
    return splitOutliersForAcc16(kN, K, N, B.data(), N, 1, bd, a_max).outliers.NumOfNonZeros();
  };
  const std::vector<int8_t> full = random_vector<int8_t>(K * N, -128, 127, 9);
  EXPECT_EQ(outliers(full, 1), 0);  // 128 weights of at most 128 per half: 16384 <= 32767
  EXPECT_EQ(outliers(random_vector<int8_t>(K * N, -1, 1, 10), 255), 0);  // 128 * 255 <= 32767
  EXPECT_EQ(outliers(std::vector<int8_t>(K * N, 127), 255), K * N - 4 * N);   // one kept per half
  EXPECT_EQ(outliers(std::vector<int8_t>(K * N, -128), 255), K * N - 4 * N);  // 255 * 128 <= 32768
  EXPECT_GT(outliers(full, 255), K * N * 8 / 10);  // full-range A and B: most are outliers
  EXPECT_LT(outliers(full, 31), outliers(full, 255));
}

TEST(OutlierSplit, BadArguments) {
  const std::vector<int8_t> B(4096, 1);
  EXPECT_INVALID(W("trans"), splitOutliersForAcc16(static_cast<matrix_op_t>(7), 8, 4, B.data(), 4));
  EXPECT_INVALID(W("K"), splitOutliersForAcc16(kN, -4, 4, B.data(), 4));
  EXPECT_INVALID(W("N"), splitOutliersForAcc16(kN, 8, -1, B.data(), 4));
  EXPECT_INVALID(W("groups"), splitOutliersForAcc16(kN, 8, 4, B.data(), 4, 0));
  EXPECT_INVALID(W("groups", "3"), splitOutliersForAcc16(kN, 8, 4, B.data(), 4, 3));
  EXPECT_INVALID(W("K"), splitOutliersForAcc16(kN, 32769, 0, B.data(), 4));
  EXPECT_INVALID(W("K", "N"), splitOutliersForAcc16(kN, 65536, 65536, B.data(), 65536, 2));
  EXPECT_INVALID(W("B"), splitOutliersForAcc16(kN, 8, 4, nullptr, 4));
  EXPECT_INVALID(W("ldb", "3"), splitOutliersForAcc16(kN, 8, 4, B.data(), 3));
  EXPECT_INVALID(W("ldb", "3"), splitOutliersForAcc16(kT, 8, 4, B.data(), 3, 2));
  EXPECT_INVALID(W("block_depth", "0"), splitOutliersForAcc16(kN, 8, 4, B.data(), 4, 1, 0));
  EXPECT_INVALID(W("block_depth", "6"), splitOutliersForAcc16(kN, 8, 4, B.data(), 4, 1, 6));
  EXPECT_INVALID(W("a_max", "0"), splitOutliersForAcc16(kN, 8, 4, B.data(), 4, 1, 64, 0));
  EXPECT_INVALID(W("a_max", "256"), splitOutliersForAcc16(kN, 8, 4, B.data(), 4, 1, 64, 256));
}

}  // namespace
}  // namespace quire::test
