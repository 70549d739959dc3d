// The one-call GEMM (quire/SimpleGemm.h) and the ThreadPool behind it: the same results
// as the reference on every path and pool size; errors from any thread reach the caller.
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "quire/SimpleGemm.h"
#include "quire/ref/Reference.h"
#include "quire/ref/ReferenceOutput.h"
#include "test_util.h"

namespace quire::test {
namespace {

TEST(SimpleGemm, MatchesReferenceOnEveryPathAndPoolSize) {
  for (const IsaCase& c : all_isas()) {
    if (skip_unsupported(c)) continue;
    ScopedIsa isa(c.isa);
    for (int threads : {1, 2, 3}) {
      ThreadPool pool(threads);
      for (int G : {1, 2}) {
        const int M = 37, K = 70, N = 21, ldc = G * N + 3;
        const std::vector<uint8_t> A = random_vector<uint8_t>(size_t(M) * G * K, 0, 255, 1 + G);
        const std::vector<int8_t> B = random_vector<int8_t>(size_t(G) * K * N, -128, 127, 2 + G);
        const std::vector<int32_t> b_zp = random_vector<int32_t>(size_t(G) * N, -3, 3, 3);
        const std::vector<int32_t> bias = random_vector<int32_t>(size_t(G) * N, -500, 500, 4);
        std::vector<float> mult(size_t(G) * N);
        for (size_t j = 0; j < mult.size(); ++j) mult[j] = 0.001f * (1 + j % 5);
        PackBMatrix<int8_t> packed(matrix_op_t::NoTranspose, G * K, N, B.data(), N, nullptr, G);

        std::vector<int32_t> raw(size_t(M) * ldc, 0), col_off(size_t(G) * N),
            row_off(static_cast<size_t>(M));
        std::vector<uint8_t> expected(size_t(M) * ldc, 0);
        for (int g = 0; g < G; ++g) {
          const int8_t* Bg = B.data() + size_t(g) * K * N;
          ref::matmul_u8s8s32(M, N, K, A.data() + g * K, G * K, Bg, N, raw.data() + g * N, ldc);
          ref::col_offsets_with_zero_pt_s8(K, N, Bg, N, b_zp.data() + g * N, col_off.data() + g * N, 1);
        }
        std::vector<int32_t> C32(size_t(M) * ldc, 0);
        gemm_u8s8s32(A.data(), M, G * K, packed, C32.data(), ldc, &pool);
        ASSERT_EQ(compare_buffers(raw.data(), C32.data(), M, G * N, ldc, 0), 0)
            << instSetName(c.isa) << " threads=" << threads << " G=" << G;

        Requantization q;
        q.granularity = QuantizationGranularity::OUT_CHANNEL;
        q.C_multiplier = mult.data();
        q.C_zero_point = 10;
        q.A_zero_point = 5;
        q.B_zero_point = b_zp.data();
        q.col_offsets = col_off.data();
        q.bias = bias.data();
        q.relu = true;
        for (int g = 0; g < G; ++g) {
          ref::row_offsets_u8(M, K, A.data() + g * K, G * K, row_off.data());
          ref::QuantParams p;
          p.granularity = q.granularity;
          p.groups = G;
          p.nCol = G * N;
          p.Aq_zero_point = q.A_zero_point;
          p.Bq_zero_point = b_zp.data();
          p.row_offsets = row_off.data();
          p.col_offsets = col_off.data();
          ref::requantize_u8<int32_t>(expected.data(), raw.data() + g * N, block_type_t{0, M, g * N, N}, ldc,
                                      ldc, p, mult.data(), q.C_zero_point, bias.data(), nullptr, true);
        }
        std::vector<uint8_t> C8(size_t(M) * ldc, 0);
        gemm_u8s8u8(A.data(), M, G * K, packed, C8.data(), ldc, q, threads == 1 ? nullptr : &pool);
        ASSERT_EQ(compare_buffers(expected.data(), C8.data(), M, G * N, ldc, 0), 0)
            << instSetName(c.isa) << " threads=" << threads << " G=" << G;
      }
    }
  }
}

TEST(SimpleGemm, BadArgumentsNameTheParameter) {
  const std::vector<int8_t> B(64, 1);
  const std::vector<uint8_t> A(64, 1);
  PackBMatrix<int8_t> packed(matrix_op_t::NoTranspose, 8, 8, B.data(), 8);
  std::vector<uint8_t> C(64);
  std::vector<float> mult(8, 1.0f);
  Requantization q;
  q.C_multiplier = mult.data();
  auto names = [](auto&& f, const char* word) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what()).find(word) != std::string::npos;
    }
    return false;
  };
  EXPECT_TRUE(names([&] { gemm_u8s8u8(A.data(), -1, 8, packed, C.data(), 8, q); }, "M"));
  EXPECT_TRUE(names([&] { gemm_u8s8u8(A.data(), 8, 8, packed, C.data(), 4, q); }, "ldc"));
  EXPECT_TRUE(names([&] { gemm_u8s8u8(nullptr, 8, 8, packed, C.data(), 8, q); }, "smat"));
  EXPECT_TRUE(names([&] { gemm_u8s8u8(A.data(), 8, 4, packed, C.data(), 8, q); }, "ld"));
  EXPECT_TRUE(names([] { ThreadPool pool(0); }, "threads"));
}

TEST(ThreadPoolTest, RunsEveryThreadIdOnceAndRethrows) {
  ThreadPool pool(3);
  for (int round = 0; round < 100; ++round) {
    std::atomic<int> mask{0};
    pool.run([&](int id, int n) {
      EXPECT_EQ(n, 3);
      mask.fetch_or(1 << id);
    });
    ASSERT_EQ(mask.load(), 7);
  }
  EXPECT_THROW(pool.run([](int id, int) {
                 if (id == 2) throw std::invalid_argument("thread 2");
               }),
               std::invalid_argument);
  std::atomic<int> after{0};
  pool.run([&](int, int) { after.fetch_add(1); });  // still usable after an error
  EXPECT_EQ(after.load(), 3);
}

}  // namespace
}  // namespace quire::test
