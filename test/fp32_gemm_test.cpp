// The fp32-weight GEMM (quire/FbgemmFP32.h): bit for bit against a scalar transcription
// of its contract (acc = beta == 0 ? 0 : beta * c, then acc = fma(a, w, acc) in K order),
// on every kernel path this CPU has and through the public entry under every instruction
// set, with 1..3 threads; FBGEMM's spelling and its FP32Test data; bad input. The error
// bound against double precision is checked with the half-precision types in
// half_gemm_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "fbgemm/FbgemmFP32.h"
#include "../src/fp16/half_gemm.h"
#include "test_util.h"

namespace quire::test {
namespace {

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

struct Case {
  int m, n, k;
  matrix_op_t ta, tb;
  float alpha, beta;
  int brow, threads;
};

std::string describe(const Case& c) {
  return "m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) + " k=" + std::to_string(c.k) +
         " At=" + std::to_string(c.ta == matrix_op_t::Transpose) +
         " Bt=" + std::to_string(c.tb == matrix_op_t::Transpose) + " alpha=" + std::to_string(c.alpha) +
         " beta=" + std::to_string(c.beta) + " brow=" + std::to_string(c.brow) +
         " threads=" + std::to_string(c.threads);
}

// Odd sizes around the tile widths (8, 16, 32 columns; 6 and 14 rows) and K blocks.
std::vector<Case> cases() {
  const int ms[] = {1, 2, 3, 6, 7, 14, 15, 17, 63, 65, 127};
  const int ns[] = {1, 3, 17, 31, 33, 63, 65, 129};
  const int ks[] = {1, 3, 17, 64, 65, 513};
  const float betas[] = {0.0f, 1.0f, -0.75f};
  const int brows[] = {512, 7, 64};
  std::vector<Case> out;
  int i = 0;
  for (int m : ms) {
    for (int n : ns) {
      const auto op = [&](int bit) { return (i >> bit) & 1 ? matrix_op_t::Transpose : matrix_op_t::NoTranspose; };
      out.push_back({m, n, ks[i % 6], op(0), op(1), i % 5 == 0 ? 1.5f : 1.0f, betas[i % 3],
                     brows[(i / 3) % 3], 1 + i % 3});
      ++i;
    }
  }
  out.push_back({120, 512, 512, matrix_op_t::NoTranspose, matrix_op_t::NoTranspose, 1.0f, 0.0f, 512, 2});
  out.push_back({29, 70, 1024, matrix_op_t::NoTranspose, matrix_op_t::NoTranspose, 1.0f, 1.0f, 300, 3});
  out.push_back({300, 33, 77, matrix_op_t::Transpose, matrix_op_t::Transpose, 1.0f, 0.0f, 512, 3});
  return out;
}

// Element (r, c) of an rows x cols matrix stored row-major, or transposed.
float at(const std::vector<float>& x, int rows, int cols, matrix_op_t op, int r, int c) {
  return op == matrix_op_t::Transpose ? x[size_t(c) * rows + r] : x[size_t(r) * cols + c];
}

struct Fixture {
  Case p;
  std::vector<float> a, b, c0, want;
  PackedGemmMatrixFP32 bp;

  Fixture(const Case& c, uint32_t seed)
      : p(c),
        a(random_floats(size_t(c.m) * c.k, seed)),
        b(random_floats(size_t(c.k) * c.n, seed + 1)),
        c0(c.beta == 0.0f ? std::vector<float>(size_t(c.m) * c.n, std::nanf(""))
                          : random_floats(size_t(c.m) * c.n, seed + 2)),
        bp(c.tb, c.k, c.n, c.alpha, b.data(), c.brow) {
    want.resize(c0.size());
    for (int i = 0; i < c.m; ++i) {
      for (int j = 0; j < c.n; ++j) {
        const size_t ij = size_t(i) * c.n + j;
        float acc = c.beta == 0.0f ? 0.0f : c.beta == 1.0f ? c0[ij] : c.beta * c0[ij];
        for (int k = 0; k < c.k; ++k) {
          const float w = c.alpha * at(b, c.k, c.n, c.tb, k, j);
          acc = std::fma(at(a, c.m, c.k, c.ta, i, k), w, acc);
        }
        want[ij] = acc;
      }
    }
  }
};

bool same_bits(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), sizeof(float) * x.size()) == 0;
}

TEST(Fp32Gemm, EveryPathGivesTheScalarFmaBits) {
  const std::vector<const detail::HalfKernelSet*> sets = detail::half_kernel_sets(detail::HalfType::fp32);
  ASSERT_FALSE(sets.empty());
  uint32_t seed = 1;
  for (const Case& p : cases()) {
    const Fixture f(p, seed += 3);
    const detail::HalfGemmCall call{detail::HalfType::fp32, detail::ActType::f32, p.ta, p.m, p.n,
                                    p.k, f.a.data(), f.bp.data(), f.bp.blockRowSize(), p.beta,
                                    nullptr};
    for (const detail::HalfKernelSet* set : sets) {
      std::vector<float> c = f.c0;
      detail::HalfGemmCall run = call;
      run.c = c.data();
      for (int t = 0; t < p.threads; ++t) detail::half_gemm(run, *set, t, p.threads);
      ASSERT_TRUE(same_bits(c, f.want)) << detail::half_kernel_set_name(*set) << " " << describe(p);
    }
  }
}

TEST(Fp32Gemm, PublicEntryOnEveryIsaAndThreadCount) {
  const Case problems[] = {
      {37, 70, 300, matrix_op_t::NoTranspose, matrix_op_t::Transpose, 1.0f, 1.0f, 128, 1},
      {5, 129, 65, matrix_op_t::Transpose, matrix_op_t::NoTranspose, 0.5f, 0.0f, 512, 1},
      {1, 1000, 1300, matrix_op_t::NoTranspose, matrix_op_t::NoTranspose, 1.0f, -0.75f, 512, 1}};
  for (const Case& p : problems) {
    const Fixture f(p, 99);
    for (const IsaCase& isa : all_isas()) {
      if (skip_unsupported(isa)) continue;
      ScopedIsa scoped(isa.isa);
      for (int threads = 1; threads <= 3; ++threads) {
        std::vector<float> c = f.c0;
        for (int t = 0; t < threads; ++t)
          cblas_gemm_compute(p.ta, p.m, f.a.data(), f.bp, p.beta, c.data(), t, threads);
        EXPECT_TRUE(same_bits(c, f.want))
            << instSetName(isa.isa) << " runs "
            << detail::half_kernel_set_name(detail::active_half_kernels(detail::HalfType::fp32))
            << " threads=" << threads << " " << describe(p);
      }
    }
  }
}

// Packing stores alpha * b exactly, specials included (TypeConverter<float> is the
// identity), in the fp16 layout with 4-byte elements.
TEST(Fp32Gemm, PackingStoresAlphaTimesB) {
  const int K = 37, N = 45;
  std::vector<float> b = random_floats(size_t(K) * N, 5);
  b[3] = INFINITY, b[50] = -INFINITY, b[77] = std::nanf(""), b[90] = 1e-40f, b[91] = -0.0f;
  const PackedGemmMatrixFP32 p(matrix_op_t::NoTranspose, K, N, -2.5f, b.data(), 100);
  EXPECT_EQ(p.blockColSize(), 32);
  EXPECT_EQ(p.matSize(), 100 * 64);
  std::vector<float> out(b.size());
  p.unpack(out.data(), matrix_op_t::NoTranspose);
  for (size_t i = 0; i < b.size(); ++i) {
    const float want = -2.5f * b[i];
    ASSERT_EQ(std::memcmp(&out[i], &want, sizeof(float)), 0) << i << ": " << out[i] << " vs " << want;
  }
}

// beta == 0: C is written, never read (NaN and infinities in it do not propagate).
TEST(Fp32Gemm, BetaZeroDoesNotReadC) {
  const int m = 9, n = 40, k = 20;
  const std::vector<float> a(size_t(m) * k, 0.5f), b(size_t(k) * n, 0.25f);
  const PackedGemmMatrixFP32 bp(matrix_op_t::NoTranspose, k, n, 1.0f, b.data());
  for (const IsaCase& isa : all_isas()) {
    if (skip_unsupported(isa)) continue;
    ScopedIsa scoped(isa.isa);
    std::vector<float> c(size_t(m) * n, std::nanf(""));
    c[5] = INFINITY;
    cblas_gemm_compute(matrix_op_t::NoTranspose, m, a.data(), bp, 0.0f, c.data());
    for (float x : c) ASSERT_EQ(x, 0.125f * k) << instSetName(isa.isa);
  }
}

// FBGEMM's FP32Test data (integers 0..4, sums exact in fp32) and spelling.
TEST(Fp32Gemm, FbgemmSpellingAndData) {
  const int m = 19, n = 77, k = 300;
  const std::vector<float> A = random_vector<float>(size_t(m) * k, 0, 4, 3);
  const std::vector<float> B = random_vector<float>(size_t(k) * n, 0, 4, 4);
  fbgemm::PackedGemmMatrixFP32 Bp(fbgemm::matrix_op_t::NoTranspose, k, n, 1.0f, B.data());
  std::vector<float> C(size_t(m) * n, NAN);
  fbgemm::cblas_gemm_compute(fbgemm::matrix_op_t::NoTranspose, m, A.data(), Bp, 0.0f, C.data(), 0, 1);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float sum = 0;
      for (int l = 0; l < k; ++l) sum += A[size_t(i) * k + l] * B[size_t(l) * n + j];
      ASSERT_EQ(C[size_t(i) * n + j], sum) << i << ", " << j;
    }
  }
  fbgemm::GemmParamsFP32 gp{};
  gp.B = Bp.pmat();
  EXPECT_EQ(gp.B, Bp.data());
  EXPECT_EQ(fbgemm::TypeConverter<float>()(-3.25f), -3.25f);
  static_assert(std::is_same_v<fbgemm::PackedGemmMatrixFP32, fbgemm::PackedGemmMatrixB<float>>);
}

#define W(...) ({__VA_ARGS__})

TEST(Fp32Gemm, BadInputNamesTheParameter) {
  const std::vector<float> b(64 * 64, 1.0f), a(64 * 64, 1.0f);
  std::vector<float> c(64 * 64);
  const auto NT = matrix_op_t::NoTranspose;
  const auto bad_op = static_cast<matrix_op_t>(7);
  using P = PackedGemmMatrixFP32;
  EXPECT_INVALID(W("PackedGemmMatrixFP32", "trans", "7"), P(bad_op, 4, 4, 1.0f, b.data()));
  EXPECT_INVALID(W("nrow", "0"), P(NT, 0, 4, 1.0f, b.data()));
  EXPECT_INVALID(W("ncol", "-3"), P(NT, 4, -3, 1.0f, b.data()));
  EXPECT_INVALID(W("brow", "0"), P(NT, 4, 4, 1.0f, b.data(), 0));
  EXPECT_INVALID(W("alpha", "nan"), P(NT, 4, 4, std::nanf(""), b.data()));
  EXPECT_INVALID(W("smat"), P(NT, 4, 4, 1.0f, nullptr));
  EXPECT_INVALID(W("nbcol", "2"), P(4, 4, 4, 4, 16, 1, 2, 0));
  const P bp(NT, 64, 64, 1.0f, b.data());
  EXPECT_INVALID(W("cblas_gemm_compute", "transa", "7"),
                 cblas_gemm_compute(bad_op, 4, a.data(), bp, 0.0f, c.data()));
  EXPECT_INVALID(W("m", "-1"), cblas_gemm_compute(NT, -1, a.data(), bp, 0.0f, c.data()));
  EXPECT_INVALID(W("A"), cblas_gemm_compute(NT, 4, nullptr, bp, 0.0f, c.data()));
  EXPECT_INVALID(W("C"), cblas_gemm_compute(NT, 4, a.data(), bp, 0.0f, nullptr));
  EXPECT_INVALID(W("thread_id", "3"), cblas_gemm_compute(NT, 4, a.data(), bp, 0.0f, c.data(), 3, 3));
  EXPECT_INVALID(W("num_threads", "0"), cblas_gemm_compute(NT, 4, a.data(), bp, 0.0f, c.data(), 0, 0));
  // The internal entry refuses a kernel path of another weight type.
  const detail::HalfGemmCall call{detail::HalfType::fp32, detail::ActType::f32, NT, 4, 64, 64,
                                  a.data(), bp.data(), 512, 0.0f, c.data()};
  EXPECT_INVALID(W("fp32"), detail::half_gemm(call, *detail::half_kernel_sets(detail::HalfType::fp16)[0], 0, 1));
}

}  // namespace
}  // namespace quire::test
