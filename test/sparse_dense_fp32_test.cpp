// SparseDenseMM (fp32 CSR x dense) on every path against sparseDenseMMRef, bit for bit
// (both apply one fma per nonzero in CSR order), and against a double-precision product
// within the fma chain's error bound; bad arguments.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "quire/Bcsr.h"
#include "quire/SparseDenseMM.h"
#include "test_util.h"

namespace quire::test {
namespace {

std::vector<float> random_sparse(size_t n, double density, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  std::bernoulli_distribution keep(density);
  std::vector<float> v(n, 0.0f);
  for (float& x : v)
    if (keep(gen)) x = value(gen);
  return v;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(SparseDenseFp32, EveryPathAgainstReference) {
  uint32_t seed = 10;
  for (int M : {1, 3, 17, 65})
    for (int N : {1, 3, 17, 63, 65, 130})
      for (int K : {1, 17, 100})
        for (double density : {0.0, 0.1, 0.5, 1.0}) {
          const bool accum = (M + N + K) % 2 == 0;
          const int ldb = N + (K % 2), ldc = N + (M % 2) * 3;
          SCOPED_TRACE("M=" + std::to_string(M) + " N=" + std::to_string(N) + " K=" +
                       std::to_string(K) + " density=" + std::to_string(density));
          const std::vector<float> A = random_sparse(static_cast<size_t>(M) * K, density, seed++);
          const std::vector<float> B = random_sparse(static_cast<size_t>(K - 1) * ldb + N, 1.0, seed++);
          const std::vector<float> C0 = random_sparse(static_cast<size_t>(M - 1) * ldc + N, 1.0, seed++);
          const auto csr = fbgemmDenseToCSR(M, K, A.data());
          std::vector<float> want = C0;
          sparseDenseMMRef(M, N, csr->rowPtr.data(), csr->colIdx.data(), csr->values.data(),
                           B.data(), ldb, want.data(), ldc, accum);
          // The fma chain is within n * 2^-24 * (sum |a * b| + |c0|) of the exact value
          // (n = the row's nonzeros, + 1 with accumulation).
          for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) {
              double exact = accum ? C0[static_cast<size_t>(i) * ldc + j] : 0.0;
              double mag = std::abs(exact);
              for (int k = 0; k < K; ++k) {
                const double t = double(A[static_cast<size_t>(i) * K + k]) * B[static_cast<size_t>(k) * ldb + j];
                exact += t;
                mag += std::abs(t);
              }
              const int n = csr->rowPtr[i + 1] - csr->rowPtr[i] + (accum ? 1 : 0);
              ASSERT_LE(std::abs(want[static_cast<size_t>(i) * ldc + j] - exact),
                        1.01 * n * std::ldexp(1.0, -24) * mag)
                  << "at " << i << ", " << j;
            }
          for (const IsaCase& isa : all_isas()) {
            if (skip_unsupported(isa)) continue;
            ScopedIsa scoped(isa.isa);
            std::vector<float> got = C0;
            SparseDenseMM(M, N, csr->rowPtr.data(), csr->colIdx.data(), csr->values.data(),
                          B.data(), ldb, got.data(), ldc, accum);
            for (size_t e = 0; e < got.size(); ++e)
              ASSERT_TRUE(same_bits(got[e], want[e]))
                  << instSetName(isa.isa) << " element " << e << ": " << got[e] << " vs " << want[e];
          }
        }
}

#define W(...) ({__VA_ARGS__})
TEST(SparseDenseFp32, BadArguments) {
  const std::vector<int> row_ptr = {0, 1, 2};
  const std::vector<int> col_idx = {0, 1};
  const std::vector<float> values = {1.0f, 2.0f};
  std::vector<float> B(2 * 4), C(2 * 4);
  auto mm = [&](int M, int N, const int* rp, const int* ci, int ldb, int ldc) {
    SparseDenseMM(M, N, rp, ci, values.data(), B.data(), ldb, C.data(), ldc);
  };
  EXPECT_NO_THROW(mm(2, 4, row_ptr.data(), col_idx.data(), 4, 4));
  EXPECT_INVALID(W("M", "-1"), mm(-1, 4, row_ptr.data(), col_idx.data(), 4, 4));
  EXPECT_INVALID(W("N", "-2"), mm(2, -2, row_ptr.data(), col_idx.data(), 4, 4));
  EXPECT_INVALID(W("ldb", "3"), mm(2, 4, row_ptr.data(), col_idx.data(), 3, 4));
  EXPECT_INVALID(W("ldc", "3"), mm(2, 4, row_ptr.data(), col_idx.data(), 4, 3));
  EXPECT_INVALID(W("row_ptr"), mm(2, 4, nullptr, col_idx.data(), 4, 4));
  const std::vector<int> decreasing = {0, 2, 1};
  EXPECT_INVALID(W("row_ptr[2]", "1"), mm(2, 4, decreasing.data(), col_idx.data(), 4, 4));
  const std::vector<int> negative = {0, -1};
  EXPECT_INVALID(W("col_idx[1]", "-1"), mm(2, 4, row_ptr.data(), negative.data(), 4, 4));
  EXPECT_INVALID(W("C"), SparseDenseMM(2, 4, row_ptr.data(), col_idx.data(), values.data(),
                                       B.data(), 4, nullptr, 4));
  EXPECT_NO_THROW(mm(0, 4, nullptr, nullptr, 4, 4));  // an empty product
}
#undef W

}  // namespace
}  // namespace quire::test
