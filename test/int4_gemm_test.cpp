// int4Gemm (quire/Int4Gemm.h): bit for bit against the exact reference on every path
// this CPU has, every kind and scale type, odd shapes, 1-3 threads (sequential calls,
// concurrent threads, the pool), and within the stated bound of a double reference.
#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "int4_reference.h"
#include "test_util.h"

namespace quire::test {
namespace {

struct Shape {
  int M, K, N, group;
};

// Odd K (not a multiple of the group or of 8), per-channel groups of odd K, N around
// the 64-column panel and below it (the K split), M around the tile heights (4, 6) and
// past the row block of the M x N plan (4100-deep rows: 90 per block).
const Shape kShapes[] = {
    {1, 64, 64, 32},    {1, 100, 17, 32},  {2, 257, 65, 64},   {3, 300, 130, 128},
    {4, 520, 63, 256},  {1, 77, 3, 77},    {4, 1000, 1, 1000}, {5, 96, 129, 32},
    {7, 136, 70, 64},   {13, 250, 33, 250}, {1, 2048, 40, 32}, {3, 1100, 100, 128},
    {2, 33000, 17, 33000},  // a per-channel group longer than the VNNI kernels' fold
};

const Int4Kind kKinds[] = {Int4Kind::symmetric, Int4Kind::zero_point, Int4Kind::scale_min};
const Int4ScaleType kScaleTypes[] = {Int4ScaleType::f32, Int4ScaleType::f16, Int4ScaleType::bf16};

std::vector<float> make_bias(int N) {
  std::vector<float> b(N);
  for (int j = 0; j < N; ++j) b[j] = 0.25f * static_cast<float>(j % 7) - 0.6f;
  return b;
}

// Runs every thread's call one after another (with a workspace: the decode plan may
// split K) and returns C.
std::vector<float> run_sequential(const PackedInt4Weights& w, int M, const std::vector<float>& A,
                                  int lda, const Int4Epilogue& epi, int threads) {
  const int ldc = w.cols() + 5;
  std::vector<float> C(size_t(M) * ldc, -7.0f);
  Int4GemmWorkspace ws(M, w, threads);
  for (int t = 0; t < threads; ++t) int4Gemm(M, A.data(), lda, w, C.data(), ldc, epi, t, threads, &ws);
  std::vector<float> out(size_t(M) * w.cols());
  for (int i = 0; i < M; ++i) {
    std::memcpy(&out[size_t(i) * w.cols()], &C[size_t(i) * ldc], sizeof(float) * w.cols());
    for (int j = w.cols(); j < ldc; ++j) EXPECT_EQ(C[size_t(i) * ldc + j], -7.0f) << "wrote past N";
  }
  return out;
}

int k_parts(int M, const PackedInt4Weights& w, int threads) {
  return detail::int4_plan(M, (w.cols() + 63) / 64, w.numGroups(), threads, true).k_parts;
}

TEST(Int4Gemm, BitExactOnEveryPath) {
  for (const IsaCase& isa : all_isas()) {
    if (skip_unsupported(isa)) continue;
    ScopedIsa scoped(isa.isa);
    for (const Shape& s : kShapes) {
      for (Int4Kind kind : kKinds) {
        for (Int4ScaleType st : kScaleTypes) {
          const Int4Problem p = make_int4_problem(s.K, s.N, s.group, kind, st, s.K * 31 + s.N);
          const PackedInt4Weights w = p.pack();
          const int lda = s.K + 3;
          const std::vector<float> A = random_activations(s.M, s.K, lda, s.M + s.K);
          const std::vector<float> bias = make_bias(s.N);
          for (int threads = 1; threads <= 3; ++threads) {
            const bool relu = threads == 2;
            const Int4Epilogue epi{threads == 3 ? nullptr : bias.data(), relu};
            const std::vector<float> C = run_sequential(w, s.M, A, lda, epi, threads);
            const std::vector<float> ref =
                int4_reference(p, s.M, A.data(), lda, epi.bias, relu, k_parts(s.M, w, threads));
            int bad = 0;
            for (size_t i = 0; i < C.size() && bad < 3; ++i) {
              if (std::memcmp(&C[i], &ref[i], sizeof(float)) != 0) {
                ADD_FAILURE() << instSetName(isa.isa) << " M=" << s.M << " K=" << s.K
                              << " N=" << s.N << " group=" << s.group << " kind="
                              << int(kind) << " st=" << int(st) << " threads=" << threads
                              << " at (" << i / s.N << ", " << i % s.N << "): " << C[i]
                              << " != " << ref[i];
                ++bad;
              }
            }
          }
        }
      }
    }
  }
}

TEST(Int4Gemm, SplitsKWhenNIsNarrow) {
  // One panel, three threads: the decode plan gives each thread a third of the groups.
  EXPECT_EQ(detail::int4_plan(1, 1, 64, 3, true).k_parts, 3);
  EXPECT_EQ(detail::int4_plan(1, 1, 2, 3, true).k_parts, 2);   // no more parts than groups
  EXPECT_EQ(detail::int4_plan(1, 1, 64, 3, false).k_parts, 1);  // no workspace
  EXPECT_EQ(detail::int4_plan(4, 64, 128, 2, true).n_parts, 2);
  EXPECT_FALSE(detail::int4_plan(5, 1, 64, 3, true).decode);
}

TEST(Int4Gemm, ConcurrentThreadsAndPool) {
  const Int4Problem p = make_int4_problem(1024, 40, 64, Int4Kind::symmetric, Int4ScaleType::f16, 5);
  const PackedInt4Weights w = p.pack();
  const std::vector<float> bias = make_bias(p.N);
  const Int4Epilogue epi{bias.data(), false};
  for (int M : {1, 4, 9}) {
    const std::vector<float> A = random_activations(M, p.K, p.K, M);
    for (int threads = 1; threads <= 3; ++threads) {
      const std::vector<float> ref =
          int4_reference(p, M, A.data(), p.K, bias.data(), false, k_parts(M, w, threads));
      std::vector<float> C(size_t(M) * p.N);
      Int4GemmWorkspace ws(M, w, threads);
      for (int round = 0; round < 3; ++round) {  // the workspace is reused
        std::fill(C.begin(), C.end(), 0.0f);
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t)
          pool.emplace_back([&, t] { int4Gemm(M, A.data(), p.K, w, C.data(), p.N, epi, t, threads, &ws); });
        for (auto& th : pool) th.join();
        EXPECT_EQ(0, std::memcmp(C.data(), ref.data(), C.size() * sizeof(float)))
            << "M=" << M << " threads=" << threads << " round " << round;
      }
      ThreadPool tp(threads);
      std::fill(C.begin(), C.end(), 0.0f);
      int4Gemm(M, A.data(), p.K, w, C.data(), p.N, epi, tp);
      EXPECT_EQ(0, std::memcmp(C.data(), ref.data(), C.size() * sizeof(float))) << "pool, M=" << M;
    }
  }
}

TEST(Int4Gemm, WithinBoundOfDoubleReference) {
  for (Int4Kind kind : kKinds) {
    for (const Shape& s : {Shape{3, 4100, 70, 32}, Shape{2, 3000, 33, 3000}, Shape{8, 515, 65, 128}}) {
      const Int4Problem p = make_int4_problem(s.K, s.N, s.group, kind, Int4ScaleType::bf16, 9);
      const PackedInt4Weights w = p.pack(matrix_op_t::Transpose);
      const std::vector<float> A = random_activations(s.M, s.K, s.K, 3);
      const std::vector<float> bias = make_bias(s.N);
      for (int threads : {1, 3}) {
        const std::vector<float> C =
            run_sequential(w, s.M, A, s.K, Int4Epilogue{bias.data(), false}, threads);
        EXPECT_LE(int4_error_ratio(p, s.M, A.data(), s.K, bias.data(), C), 1.0)
            << "kind " << int(kind) << " K=" << s.K << " threads=" << threads;
      }
    }
  }
}

TEST(Int4Gemm, EmptyBatchAndZeroRows) {
  const Int4Problem p = make_int4_problem(64, 8, 32, Int4Kind::symmetric, Int4ScaleType::f32, 1);
  const PackedInt4Weights w = p.pack();
  int4Gemm(0, nullptr, 64, w, nullptr, 8, Int4Epilogue{}, 0, 1);  // nothing to do
  std::vector<float> A(2 * 64, 0.0f), C(2 * 8, 5.0f);
  int4Gemm(2, A.data(), 64, w, C.data(), 8, Int4Epilogue{}, 0, 1);
  for (float c : C) EXPECT_EQ(c, 0.0f);
}

#define W(...) ({__VA_ARGS__})

TEST(Int4Gemm, BadArgumentsThrow) {
  const Int4Problem p = make_int4_problem(64, 8, 32, Int4Kind::symmetric, Int4ScaleType::f32, 1);
  const PackedInt4Weights w = p.pack();
  std::vector<float> A(2 * 64, 1.0f), C(2 * 8);
  const Int4Epilogue e{};
  EXPECT_INVALID(W("M", "-1"), int4Gemm(-1, A.data(), 64, w, C.data(), 8, e, 0, 1));
  EXPECT_INVALID(W("A"), int4Gemm(2, nullptr, 64, w, C.data(), 8, e, 0, 1));
  EXPECT_INVALID(W("C"), int4Gemm(2, A.data(), 64, w, nullptr, 8, e, 0, 1));
  EXPECT_INVALID(W("lda", "63"), int4Gemm(2, A.data(), 63, w, C.data(), 8, e, 0, 1));
  EXPECT_INVALID(W("ldc", "7"), int4Gemm(2, A.data(), 64, w, C.data(), 7, e, 0, 1));
  EXPECT_INVALID(W("thread_id", "2"), int4Gemm(2, A.data(), 64, w, C.data(), 8, e, 2, 2));
  EXPECT_INVALID(W("num_threads", "0"), int4Gemm(2, A.data(), 64, w, C.data(), 8, e, 0, 0));
  Int4GemmWorkspace ws(1, w, 1);
  EXPECT_INVALID(W("workspace", "M"), int4Gemm(2, A.data(), 64, w, C.data(), 8, e, 0, 1, &ws));
  A[70] = INFINITY;
  EXPECT_INVALID(W("A", "row", "1"), int4Gemm(2, A.data(), 64, w, C.data(), 8, e, 0, 1));
}

}  // namespace
}  // namespace quire::test
