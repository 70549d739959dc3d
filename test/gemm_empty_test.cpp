// Empty products, as FBGEMM defines them: M = 0 (an empty batch), K = 0 or N = 0. The
// packers accept the sizes; fbgemmPacked writes nothing (C keeps its sentinel, the
// output pipeline never runs) and reads nothing of A (which may be null); likewise the
// one-call gemm_* forms. Every path, 1 to 3 threads, int32 and requantized output.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "quire/quire.h"
#include "test_util.h"

namespace quire {
namespace {

constexpr int32_t kSentinel32 = 0x5A5A5A5A;
constexpr uint8_t kSentinel8 = 0xA5;

struct Shape {
  int M, N, K;
};

// Runs every A packer with every output type on the shape, threads 1..3; C must be
// untouched. Buffers are sized as a caller would for M x N (none at all when M = 0).
void run_empty(const Shape& s, inst_set_t isa) {
  test::ScopedIsa scope(isa);
  const int ldc = s.N;
  const auto b = test::random_vector<int8_t>(static_cast<size_t>(s.K) * s.N, -128, 127, 1);
  PackBMatrix<int8_t> packB(matrix_op_t::NoTranspose, s.K, s.N, b.empty() ? nullptr : b.data(),
                            s.N);
  const auto a = test::random_vector<uint8_t>(static_cast<size_t>(s.M) * s.K, 0, 255, 2);
  const uint8_t* A = a.empty() ? nullptr : a.data();
  std::vector<float> af(static_cast<size_t>(s.M) * s.K, 0.5f);
  const float* Af = af.empty() ? nullptr : af.data();
  std::vector<int32_t> col_offsets(std::max(s.N, 1), 0), zp(1, 0);
  std::vector<float> mult(1, 0.25f), b_scale(1, 0.5f);
  for (int nt = 1; nt <= 3; ++nt) {
    std::vector<int32_t> C32(static_cast<size_t>(s.M) * ldc, kSentinel32);
    std::vector<int32_t> buf(static_cast<size_t>(s.M) * ldc, kSentinel32);
    std::vector<uint8_t> C8(static_cast<size_t>(s.M) * ldc, kSentinel8);
    std::vector<float> Cf(static_cast<size_t>(s.M) * ldc, -7.0f);
    for (int t = 0; t < nt; ++t) {
      {
        PackAMatrix<uint8_t> packA(matrix_op_t::NoTranspose, s.M, s.K, A, s.K);
        DoNothing<int32_t, int32_t> done;
        memCopy<> copy(done);
        fbgemmPacked(packA, packB, C32.empty() ? nullptr : C32.data(),
                     buf.empty() ? nullptr : buf.data(), ldc, copy, t, nt);
      }
      {
        PackAWithRowOffset<uint8_t> packA(matrix_op_t::Transpose, s.M, s.K, A, s.M);
        DoNothing<> done;
        ReQuantizeOutput<false> rq(done, mult.data(), 3, 1, zp.data(), packA.getRowOffsetBuffer(),
                                   col_offsets.data(), nullptr, s.N);
        fbgemmPacked(packA, packB, C8.empty() ? nullptr : C8.data(),
                     buf.empty() ? nullptr : buf.data(), ldc, rq, t, nt);
      }
      {
        PackAWithQuantRowOffset<uint8_t> packA(matrix_op_t::NoTranspose, s.M, s.K, Af, s.K,
                                               nullptr, 0.1f, 2);
        DoNothing<float, float> done;
        ReQuantizeForFloat<false> rq(done, 0.1f, b_scale.data(), 2, zp.data(),
                                     packA.getRowOffsetBuffer(), col_offsets.data(), nullptr,
                                     s.N);
        fbgemmPacked(packA, packB, Cf.empty() ? nullptr : Cf.data(),
                     buf.empty() ? nullptr : buf.data(), ldc, rq, t, nt);
      }
    }
    for (int32_t v : C32) ASSERT_EQ(v, kSentinel32);
    for (int32_t v : buf) ASSERT_EQ(v, kSentinel32);
    for (uint8_t v : C8) ASSERT_EQ(v, kSentinel8);
    for (float v : Cf) ASSERT_EQ(v, -7.0f);
  }
}

TEST(GemmEmpty, EmptyBatchOnEveryPath) {
  for (const auto& c : test::all_isas()) {
    if (skip_unsupported(c)) continue;
    for (const Shape& s : {Shape{0, 17, 65}, Shape{0, 1, 1}, Shape{0, 64, 3}}) {
      run_empty(s, c.isa);
      ASSERT_FALSE(HasFatalFailure()) << instSetName(c.isa) << " N=" << s.N << " K=" << s.K;
    }
  }
}

// K = 0 with M, N > 0: FBGEMM's K loop has no block, so nothing (not even the output
// pipeline on zeros) runs; N = 0: no column to write.
TEST(GemmEmpty, EmptyDepthOrWidthWritesNothing) {
  for (const auto& c : test::all_isas()) {
    if (skip_unsupported(c)) continue;
    for (const Shape& s : {Shape{5, 17, 0}, Shape{3, 0, 17}, Shape{65, 0, 0}}) {
      run_empty(s, c.isa);
      ASSERT_FALSE(HasFatalFailure()) << instSetName(c.isa) << " M=" << s.M << " N=" << s.N;
    }
  }
}

TEST(GemmEmpty, OneCallForms) {
  const auto b = test::random_vector<int8_t>(16 * 8, -128, 127, 3);
  PackBMatrix<int8_t> packed(matrix_op_t::NoTranspose, 16, 8, b.data(), 8);
  ThreadPool pool(3);
  std::vector<int32_t> col_offsets(8, 0), zp(1, 0);
  std::vector<float> mult(1, 0.5f);
  Requantization q;
  q.C_multiplier = mult.data();
  q.B_zero_point = zp.data();
  q.col_offsets = col_offsets.data();
  for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
    gemm_u8s8s32(nullptr, 0, 16, packed, nullptr, 8, p);
    gemm_u8s8u8(nullptr, 0, 16, packed, nullptr, 8, q, p);
  }
}

}  // namespace
}  // namespace quire
