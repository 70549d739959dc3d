// cblas_gemm_i64_i64acc against the plain triple loop, bit for bit: full-range int64
// data (the products and sums wrap around), every transpose combination, accumulate on
// and off, odd shapes, padded leading dimensions, every path.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "fbgemm/FbgemmI64.h"
#include "test_util.h"

namespace quire {
namespace {

#define W(...) ({__VA_ARGS__})

std::vector<int64_t> random_i64(size_t n, uint32_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<int64_t> v(n);
  for (auto& x : v) x = static_cast<int64_t>(gen());
  return v;
}

void reference(bool ta, bool tb, int M, int N, int K, const int64_t* A, int lda, const int64_t* B,
               int ldb, bool acc, int64_t* C, int ldc) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      uint64_t s = acc ? static_cast<uint64_t>(C[i * ldc + j]) : 0;
      for (int k = 0; k < K; ++k)
        s += static_cast<uint64_t>(ta ? A[i + k * lda] : A[i * lda + k]) *
             static_cast<uint64_t>(tb ? B[k + j * ldb] : B[k * ldb + j]);
      C[i * ldc + j] = static_cast<int64_t>(s);
    }
}

TEST(GemmI64, MatchesTripleLoopOnEveryPath) {
  const int shapes[][3] = {{1, 1, 1},  {3, 17, 5},    {17, 3, 63}, {65, 33, 17},
                           {9, 16, 1}, {2, 600, 300}, {100, 7, 260}};
  for (const auto& c : test::all_isas()) {
    if (skip_unsupported(c)) continue;
    test::ScopedIsa scope(c.isa);
    for (const auto& s : shapes) {
      const int M = s[0], N = s[1], K = s[2];
      for (bool ta : {false, true})
        for (bool tb : {false, true})
          for (bool acc : {false, true}) {
            const int lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 1, ldc = N + 2;
            const auto A = random_i64(static_cast<size_t>(ta ? K : M) * lda, 1);
            const auto B = random_i64(static_cast<size_t>(tb ? N : K) * ldb, 2);
            auto want = random_i64(static_cast<size_t>(M) * ldc, 3);
            auto got = want;
            reference(ta, tb, M, N, K, A.data(), lda, B.data(), ldb, acc, want.data(), ldc);
            const auto op = [](bool t) { return t ? matrix_op_t::Transpose : matrix_op_t::NoTranspose; };
            fbgemm::cblas_gemm_i64_i64acc(op(ta), op(tb), M, N, K, A.data(), lda, B.data(), ldb,
                                          acc, got.data(), ldc);
            ASSERT_EQ(got, want) << instSetName(c.isa) << " " << M << "x" << N << "x" << K
                                 << " ta=" << ta << " tb=" << tb << " acc=" << acc;
          }
    }
  }
}

TEST(GemmI64, EmptyShapesAndBadArguments) {
  std::vector<int64_t> C(6, 7);
  cblas_gemm_i64_i64acc(matrix_op_t::NoTranspose, matrix_op_t::NoTranspose, 0, 3, 4, nullptr, 4,
                        nullptr, 3, false, nullptr, 3);  // M = 0: nothing
  cblas_gemm_i64_i64acc(matrix_op_t::NoTranspose, matrix_op_t::NoTranspose, 2, 3, 0, nullptr, 0,
                        nullptr, 3, true, C.data(), 3);  // K = 0, accumulate: C kept
  EXPECT_EQ(C, std::vector<int64_t>(6, 7));
  cblas_gemm_i64_i64acc(matrix_op_t::NoTranspose, matrix_op_t::NoTranspose, 2, 3, 0, nullptr, 0,
                        nullptr, 3, false, C.data(), 3);  // K = 0: C = 0
  EXPECT_EQ(C, std::vector<int64_t>(6, 0));
  std::vector<int64_t> A(8), B(12);
  const auto N_ = matrix_op_t::NoTranspose;
  EXPECT_INVALID(W("M", "-1"), cblas_gemm_i64_i64acc(N_, N_, -1, 3, 4, A.data(), 4, B.data(), 3, false, C.data(), 3));
  EXPECT_INVALID(W("lda", "3"), cblas_gemm_i64_i64acc(N_, N_, 2, 3, 4, A.data(), 3, B.data(), 3, false, C.data(), 3));
  EXPECT_INVALID(W("ldb", "2"), cblas_gemm_i64_i64acc(N_, N_, 2, 3, 4, A.data(), 4, B.data(), 2, false, C.data(), 3));
  EXPECT_INVALID(W("ldc", "2"), cblas_gemm_i64_i64acc(N_, N_, 2, 3, 4, A.data(), 4, B.data(), 3, false, C.data(), 2));
  EXPECT_INVALID(W("A"), cblas_gemm_i64_i64acc(N_, N_, 2, 3, 4, nullptr, 4, B.data(), 3, false, C.data(), 3));
}

}  // namespace
}  // namespace quire
