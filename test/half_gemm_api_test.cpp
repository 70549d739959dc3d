// The half-precision GEMM's public surface: packing (rounding, saturation, layout
// round trip), argument checks, FBGEMM's spelling, and concurrent thread calls.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "fbgemm/FbgemmFP16.h"
#include "quire/FbgemmBF16.h"
#include "../src/fp16/half_gemm.h"
#include "test_util.h"

namespace quire::test {
namespace {

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

// What packing must store for x. fp16 (FBGEMM's TypeConverter): clip to +-65504, then
// round to nearest even, so infinities saturate and NaN becomes -65504. bf16 (quire's):
// round to nearest even; finite values past the range saturate; infinities and NaN stay.
uint16_t expected_bits(float16, float x) {
  if (std::isnan(x)) return 0xFBFF;
  if (std::fabs(x) >= 65520.0f) return std::signbit(x) ? 0xFBFF : 0x7BFF;
  return cpu_float2half_rn(x).val;
}
uint16_t expected_bits(bfloat16, float x) {
  const uint16_t b = float_to_bfloat16_rne(x).val;
  if (std::isfinite(x) && (b & 0x7FFF) == 0x7F80) return std::signbit(x) ? 0xFF7F : 0x7F7F;
  return b;
}

template <class T>
void check_packing(float alpha) {
  const int K = 37, N = 45;  // neither a multiple of the panel nor of the bf16 pair
  std::vector<float> b = random_floats(size_t(K) * N, 5);
  const float specials[] = {1e6f, -1e6f, 65519.0f, 3.4e38f, -3.4e38f, 1e-7f, -3e-6f, 0.0f, -0.0f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), std::nanf("")};
  for (size_t i = 0; i < std::size(specials); ++i) b[i * 97 % b.size()] = specials[i];
  std::vector<float> bt(b.size());  // N x K: the transposed storage
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n) bt[size_t(n) * K + k] = b[size_t(k) * N + n];

  const PackedGemmMatrixB<T> p(matrix_op_t::NoTranspose, K, N, alpha, b.data(), 100);
  const PackedGemmMatrixB<T> pt(matrix_op_t::Transpose, K, N, alpha, bt.data());
  EXPECT_EQ(p.numRows(), K);
  EXPECT_EQ(p.numCols(), N);
  EXPECT_EQ(p.blockRowSize(), 100);
  EXPECT_EQ(p.blockColSize(), 32);
  EXPECT_EQ(p.kernelNumColBlocks(), 2);
  EXPECT_EQ(p.numBrow(), 1);
  EXPECT_EQ(p.lastBrow(), K);
  EXPECT_EQ(p.numBcol(), 2);
  EXPECT_TRUE(p.packed());
  EXPECT_EQ(p.matSize(), 100 * 64);  // FBGEMM's size: brow x nbrow x bcol x nbcol
  EXPECT_EQ(pt.matSize(), 512 * 64);

  std::vector<T> out(b.size()), out_t(b.size());
  p.unpack(out.data(), matrix_op_t::NoTranspose);
  pt.unpack(out_t.data(), matrix_op_t::Transpose);
  for (int k = 0; k < K; ++k) {
    for (int n = 0; n < N; ++n) {
      const float x = alpha * b[size_t(k) * N + n];
      const uint16_t want = expected_bits(T{}, x);
      ASSERT_EQ(out[size_t(k) * N + n].val, want) << "(" << k << ", " << n << ") of " << x;
      ASSERT_EQ(out_t[size_t(n) * K + k].val, want) << "transposed (" << k << ", " << n << ")";
    }
  }
}

TEST(HalfGemmApi, Fp16PackingRoundsOnceAndSaturates) {
  check_packing<float16>(1.0f);
  check_packing<float16>(-0.37f);
}
TEST(HalfGemmApi, Bf16PackingRoundsOnceAndSaturates) {
  check_packing<bfloat16>(1.0f);
  check_packing<bfloat16>(3.5f);
}

// Runs fn, expects std::invalid_argument whose message contains every part.
void expect_invalid(const std::function<void()>& fn, const std::vector<std::string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "no exception; expected one mentioning " << parts[0];
  } catch (const std::invalid_argument& e) {
    for (const std::string& part : parts)
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(HalfGemmApi, BadInputNamesTheParameter) {
  const std::vector<float> b(64 * 64, 1.0f), a(64 * 64, 1.0f);
  std::vector<float> c(64 * 64);
  const auto NT = matrix_op_t::NoTranspose;
  const auto bad_op = static_cast<matrix_op_t>(7);
  using P16 = PackedGemmMatrixFP16;
  expect_invalid([&] { P16(bad_op, 4, 4, 1.0f, b.data()); }, {"PackedGemmMatrixFP16", "trans=7"});
  expect_invalid([&] { P16(NT, 0, 4, 1.0f, b.data()); }, {"nrow=0"});
  expect_invalid([&] { P16(NT, 4, -3, 1.0f, b.data()); }, {"ncol=-3"});
  expect_invalid([&] { P16(NT, 4, 4, 1.0f, b.data(), 0); }, {"brow=0"});
  expect_invalid([&] { P16(NT, 4, 4, std::nanf(""), b.data()); }, {"alpha=nan"});
  expect_invalid([&] { P16(NT, 4, 4, INFINITY, b.data()); }, {"alpha=inf"});
  expect_invalid([&] { P16(NT, 4, 4, 1.0f, nullptr); }, {"smat is null"});
  expect_invalid([&] { P16(NT, 1 << 16, 1 << 16, 1.0f, b.data()); }, {"PackedGemmMatrixFP16", "packed size", "overflows"});
  expect_invalid([&] { PackedGemmMatrixBF16(NT, 1 << 15, 65535, 1.0f, b.data()); },
                 {"PackedGemmMatrixBF16", "packed size", "overflows"});

  PackedGemmMatrixFP16 bp(NT, 64, 64, 1.0f, b.data());
  expect_invalid([&] { cblas_gemm_compute(bad_op, 4, a.data(), bp, 0.0f, c.data()); },
                 {"cblas_gemm_compute", "transa=7"});
  expect_invalid([&] { cblas_gemm_compute(NT, -1, a.data(), bp, 0.0f, c.data()); }, {"m=-1"});
  expect_invalid([&] { cblas_gemm_compute(NT, 4, nullptr, bp, 0.0f, c.data()); }, {"A is null"});
  expect_invalid([&] { cblas_gemm_compute(NT, 4, a.data(), bp, 0.0f, nullptr); }, {"C is null"});
  expect_invalid([&] { cblas_gemm_compute(NT, 4, a.data(), bp, 0.0f, c.data(), 2, 2); },
                 {"thread_id=2"});
  expect_invalid([&] { cblas_gemm_compute(NT, 4, a.data(), bp, 0.0f, c.data(), -1, 2); },
                 {"thread_id=-1"});
  expect_invalid([&] { cblas_gemm_compute(NT, 4, a.data(), bp, 0.0f, c.data(), 0, 0); },
                 {"num_threads=0"});
  expect_invalid([&] { cblas_gemm_compute(NT, 1 << 26, a.data(), bp, 0.0f, c.data()); },
                 {"m x K", "overflows"});
  std::vector<float16> out(4);
  expect_invalid([&] { bp.unpack(nullptr, NT); }, {"origin_buf is null"});
  expect_invalid([&] { bp.unpack(out.data(), bad_op); }, {"trans=7"});

  PackedGemmMatrixFP16 moved = std::move(bp);
  expect_invalid([&] { cblas_gemm_compute(NT, 4, a.data(), bp, 0.0f, c.data()); }, {"moved from"});
  EXPECT_NO_THROW(cblas_gemm_compute(NT, 4, a.data(), moved, 0.0f, c.data()));

  // The internal entry refuses a kernel path of the other weight type.
  const detail::HalfGemmCall call{detail::HalfType::fp16, detail::ActType::f32, NT, 4, 64, 64,
                                  a.data(), reinterpret_cast<const uint16_t*>(moved.data()),
                                  512, 0.0f, c.data()};
  expect_invalid([&] { detail::half_gemm(call, *detail::half_kernel_sets(detail::HalfType::bf16)[0], 0, 1); },
                 {"does not take fp16 weights"});

  PackedGemmMatrixBF16 bb(NT, 64, 64, 1.0f, b.data());
  const std::vector<bfloat16> a16(64 * 64, float_to_bfloat16_rne(1.0f));
  expect_invalid([&] { cblas_gemm_compute(NT, 4, a16.data(), bb, 0.0f, c.data(), 1, 1); },
                 {"thread_id=1"});
  expect_invalid([&] { cblas_gemm_compute(NT, 4, static_cast<const bfloat16*>(nullptr), bb, 0.0f,
                                          c.data()); },
                 {"A is null"});
}

// m = 0 is an empty product: nothing is read or written.
TEST(HalfGemmApi, EmptyBatchIsANoOp) {
  const std::vector<float> b(8 * 8, 1.0f);
  const PackedGemmMatrixBF16 bp(matrix_op_t::NoTranspose, 8, 8, 1.0f, b.data());
  EXPECT_NO_THROW(cblas_gemm_compute(matrix_op_t::NoTranspose, 0,
                                     static_cast<const float*>(nullptr), bp, 1.0f, nullptr));
}

// Real threads at once (each converts A into its own scratch): the same bits as one call.
TEST(HalfGemmApi, ConcurrentThreadsGiveTheSingleThreadResult) {
  const int M = 157, N = 300, K = 600, T = 4;
  const std::vector<float> a = random_floats(size_t(M) * K, 1), b = random_floats(size_t(K) * N, 2);
  const PackedGemmMatrixBF16 bb(matrix_op_t::NoTranspose, K, N, 1.0f, b.data());
  const PackedGemmMatrixFP16 bh(matrix_op_t::Transpose, K, N, 1.0f, b.data());  // b as N x K
  for (matrix_op_t transa : {matrix_op_t::NoTranspose, matrix_op_t::Transpose}) {
    std::vector<float> one(size_t(M) * N), many(one.size()), one16(one.size()), many16(one.size());
    cblas_gemm_compute(transa, M, a.data(), bb, 0.0f, one.data());
    cblas_gemm_compute(transa, M, a.data(), bh, 0.0f, one16.data());
    std::vector<std::thread> threads;
    for (int t = 0; t < T; ++t) {
      threads.emplace_back([&, t] {
        cblas_gemm_compute(transa, M, a.data(), bb, 0.0f, many.data(), t, T);
        cblas_gemm_compute(transa, M, a.data(), bh, 0.0f, many16.data(), t, T);
      });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(std::memcmp(one.data(), many.data(), sizeof(float) * one.size()), 0);
    EXPECT_EQ(std::memcmp(one16.data(), many16.data(), sizeof(float) * one.size()), 0);
  }
}

// Code written for FBGEMM's fbgemm/FbgemmFP16.h compiles unchanged and runs.
TEST(HalfGemmApi, FbgemmSpellingCompiles) {
  const int m = 3, k = 20, n = 40;
  const std::vector<float> A(m * k, 0.5f), B(k * n, 0.25f);
  std::vector<float> C(m * n, 1.0f);
  fbgemm::PackedGemmMatrixFP16 Bp(fbgemm::matrix_op_t::NoTranspose, k, n, 2.0f, B.data());
  fbgemm::cblas_gemm_compute(fbgemm::matrix_op_t::NoTranspose, m, A.data(), Bp, 1.0f, C.data(), 0, 1);
  fbgemm::cblas_gemm_compute<fbgemm::float16>(fbgemm::matrix_op_t::NoTranspose, m, A.data(), Bp,
                                              0.0f, C.data());
  for (float x : C) EXPECT_EQ(x, 0.5f * 0.5f * k);  // exact: every value is a power of two
  EXPECT_EQ(Bp.numRows(), k);
  EXPECT_EQ(Bp.numCols(), n);
  EXPECT_EQ(fbgemm::cpu_half2float(Bp.pmat()[0]), 0.5f);
}

}  // namespace
}  // namespace quire::test
