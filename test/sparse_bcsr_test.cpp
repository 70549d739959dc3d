// fbgemmDenseToBCSR + fbgemmSparseDenseInt8MM against a dense reference product and
// trRequantizeOpt's formula written out (sparse_test_util.h), bit for bit, over odd
// shapes, sparsities, ReLU, granularities, bias, zero points, accumulation, every ISA
// path and several thread counts; BCSR pack / unpack round trips; bad arguments.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "quire/Bcsr.h"
#include "quire/SparseDenseMM.h"
#include "sparse_test_util.h"
#include "test_util.h"

namespace quire::test {
namespace {

using Gran = QuantizationGranularity;

struct Case {
  int M, N, K;
  double zero_fraction;
  bool relu, per_channel, bias, act_zp, accum;
  int pad;  // extra columns of ldb and ldc
};

std::string describe(const Case& c) {
  return "M=" + std::to_string(c.M) + " N=" + std::to_string(c.N) + " K=" + std::to_string(c.K) +
         " zeros=" + std::to_string(c.zero_fraction) + " relu=" + std::to_string(c.relu) +
         " per_channel=" + std::to_string(c.per_channel) + " bias=" + std::to_string(c.bias) +
         " act_zp=" + std::to_string(c.act_zp) + " accum=" + std::to_string(c.accum) +
         " pad=" + std::to_string(c.pad);
}

// A caller's buffer of rows x cols elements, rows ld apart: exactly (rows - 1) * ld + cols.
size_t span(int rows, int cols, int ld) {
  return rows == 0 ? 0 : static_cast<size_t>(rows - 1) * ld + cols;
}

template <bool RELU, Gran G>
void call_mm(bool reference, int N, const std::unique_ptr<BCSRMatrix<>>& bcsr, const uint8_t* B,
             int ldb, int32_t* C32, uint8_t* C8, int ldc, trRequantizationParams_t& r, bool accum,
             int t, int n) {
  if (reference)
    sparseDenseInt8MMRef<RELU, G>(N, bcsr, B, ldb, C32, C8, ldc, r, accum, t, n);
  else
    fbgemmSparseDenseInt8MM<RELU, G>(N, bcsr, B, ldb, C32, C8, ldc, r, accum, t, n);
}

void call_mm(bool relu, bool per_channel, bool reference, int N,
             const std::unique_ptr<BCSRMatrix<>>& bcsr, const uint8_t* B, int ldb, int32_t* C32,
             uint8_t* C8, int ldc, trRequantizationParams_t& r, bool accum, int t, int n) {
  if (relu && per_channel)
    call_mm<true, Gran::OUT_CHANNEL>(reference, N, bcsr, B, ldb, C32, C8, ldc, r, accum, t, n);
  else if (relu)
    call_mm<true, Gran::TENSOR>(reference, N, bcsr, B, ldb, C32, C8, ldc, r, accum, t, n);
  else if (per_channel)
    call_mm<false, Gran::OUT_CHANNEL>(reference, N, bcsr, B, ldb, C32, C8, ldc, r, accum, t, n);
  else
    call_mm<false, Gran::TENSOR>(reference, N, bcsr, B, ldb, C32, C8, ldc, r, accum, t, n);
}

// Everything one case needs, with its expected outputs.
struct Problem {
  Case c;
  int ldb, ldc;
  std::vector<int8_t> W;
  std::vector<uint8_t> B;
  std::vector<int32_t> C32_before, want32;
  std::vector<uint8_t> want8;
  std::vector<float> scale, bias;
  std::vector<int32_t> w_zp;
  std::unique_ptr<BCSRMatrix<>> bcsr;

  Problem(const Case& cs, uint32_t seed, float C_scale)
      : c(cs), ldb(cs.N + cs.pad), ldc(cs.N + cs.pad),
        W(block_sparse_s8(cs.M, cs.K, cs.zero_fraction, seed)),
        B(random_vector<uint8_t>(span(cs.K, cs.N, cs.N + cs.pad), 0, 255, seed + 1)),
        C32_before(random_vector<int32_t>(span(cs.M, cs.N, cs.N + cs.pad), -100000, 100000, seed + 2)),
        bcsr(fbgemmDenseToBCSR(cs.M, cs.K, W.data())) {
    const int channels = c.per_channel ? c.M : 1;
    // Scales that spread the outputs over 0..255 (one negative in five), and biases of a
    // few output steps.
    const auto raw = random_vector<int>(static_cast<size_t>(channels) + c.M, 1, 1000, seed + 3);
    const float unit = 1.0f / (40.0f * static_cast<float>(c.K + 1));
    for (int q = 0; q < channels; ++q)
      scale.push_back((q % 5 == 3 ? -1.0f : 1.0f) * unit * C_scale * (0.5f + raw[q] / 1000.0f));
    for (int i = 0; i < c.M; ++i) bias.push_back((raw[channels + i] - 500) * 0.02f * C_scale);
    w_zp.assign(static_cast<size_t>(channels), 0);
    r_ = std::make_unique<trRequantizationParams_t>(trRequantizationParams_t{
        c.act_zp ? 3 : 0, w_zp.data(), 19, C_scale, bcsr->row_offsets.data(), nullptr,
        c.bias ? bias.data() : nullptr, scale.data()});
    // Expected: the dense product, then the formula.
    want32 = C32_before;
    want8.assign(span(c.M, c.N, ldc), 0xAB);
    for (int i = 0; i < c.M; ++i) {
      for (int j = 0; j < c.N; ++j) {
        uint32_t s = c.accum ? static_cast<uint32_t>(C32_before[static_cast<size_t>(i) * ldc + j]) : 0u;
        for (int k = 0; k < c.K; ++k)
          s += static_cast<uint32_t>(W[static_cast<size_t>(i) * c.K + k] * B[static_cast<size_t>(k) * ldb + j]);
        want32[static_cast<size_t>(i) * ldc + j] = static_cast<int32_t>(s);
        want8[static_cast<size_t>(i) * ldc + j] =
            opt_requant(static_cast<int32_t>(s), i, j, *r_, c.relu, !c.act_zp, true, c.bias, c.per_channel);
      }
    }
  }
  trRequantizationParams_t& r() { return *r_; }

  // Runs the product on `threads` threads' calls (one after another) and checks both
  // outputs, the padding between rows included.
  void check(int threads, bool reference = false) {
    std::vector<int32_t> C32 = C32_before;
    std::vector<uint8_t> C8(want8.size(), 0xAB);
    for (int t = 0; t < threads; ++t)
      call_mm(c.relu, c.per_channel, reference, c.N, bcsr, B.data(), ldb, C32.data(), C8.data(),
              ldc, r(), c.accum, t, threads);
    for (int i = 0; i < c.M; ++i)
      for (int j = 0; j < c.N; ++j)
        if (C32[static_cast<size_t>(i) * ldc + j] != want32[static_cast<size_t>(i) * ldc + j]) {
          ADD_FAILURE() << "C_i32 differs at (" << i << ", " << j << ")";
          return;
        }
    EXPECT_EQ(C8, want8);
    if (c.pad > 0) {
      EXPECT_EQ(C32, want32) << "C_i32's padding changed";
    }
  }

 private:
  std::unique_ptr<trRequantizationParams_t> r_;
};

TEST(SparseBcsr, Int8AgainstDenseEveryPath) {
  std::vector<Case> cases;
  int idx = 0;
  for (int M : {1, 3, 17, 65})
    for (int N : {1, 3, 17, 63, 65, 130})
      for (int K : {1, 3, 17, 63, 65, 260})
        for (double zf : {0.0, 0.5, 0.9, 1.0}) {
          cases.push_back({M, N, K, zf, (idx & 1) != 0, (idx & 2) != 0, (idx & 4) != 0,
                           (idx & 8) != 0, idx % 5 == 0, idx % 3 == 0 ? 5 : 0});
          ++idx;
        }
  uint32_t seed = 1;
  for (const Case& c : cases) {
    SCOPED_TRACE(describe(c));
    Problem p(c, seed += 7, 0.37f);
    for (const IsaCase& isa : all_isas()) {
      if (skip_unsupported(isa)) continue;
      ScopedIsa scoped(isa.isa);
      SCOPED_TRACE(instSetName(isa.isa));
      for (int threads : {1, 3}) p.check(threads);
    }
    if (::testing::Test::HasFailure()) return;
  }
}

// K over one column tile (COLTILE = 4000): partial sums cross tiles in C_i32.
TEST(SparseBcsr, Int8SeveralColumnTiles) {
  const Case cases[] = {{5, 70, 4001, 0.5, true, true, true, true, false, 0},
                        {3, 17, 8003, 0.9, false, false, true, false, true, 3},
                        {2, 1, 4000, 0.0, false, true, false, true, false, 0},
                        {4, 64, 4004, 0.5, true, false, false, false, true, 0}};
  uint32_t seed = 900;
  for (const Case& c : cases) {
    SCOPED_TRACE(describe(c));
    Problem p(c, seed += 11, 0.37f);
    for (const IsaCase& isa : all_isas()) {
      if (skip_unsupported(isa)) continue;
      ScopedIsa scoped(isa.isa);
      SCOPED_TRACE(instSetName(isa.isa));
      for (int threads : {1, 2}) p.check(threads);
    }
  }
}

// With a power-of-two C_scale the two formulas round alike (FBGEMM's own test setup), so
// the product equals sparseDenseInt8MMRef's.
TEST(SparseBcsr, Int8MatchesReferenceFormWithPowerOfTwoScale) {
  uint32_t seed = 500;
  for (int N : {1, 17, 65})
    for (int K : {3, 63, 4001}) {
      const Case c{17, N, K, 0.5, N == 17, K == 63, true, true, false, 0};
      SCOPED_TRACE(describe(c));
      Problem p(c, seed += 3, 128.0f);
      p.check(1, /*reference=*/true);
      p.check(1);
    }
}

// Outputs where y = (x + bias) * s / C_scale leaves int32: x86 converts to INT32_MIN,
// so the output is 0 (C_zero_point with ReLU) on every path, as on FBGEMM's.
TEST(SparseBcsr, Int8OutOfRangeScaledValues) {
  for (bool relu : {false, true}) {
    const Case c{3, 40, 8, 0.0, relu, false, true, false, false, 0};
    Problem p(c, 77, 1.0f);
    p.bias = {3e12f, -3e12f, 1e30f};
    p.scale = {1.0f};
    trRequantizationParams_t r{0, p.w_zp.data(), 19, 1.0f, p.bcsr->row_offsets.data(), nullptr,
                               p.bias.data(), p.scale.data()};
    for (const IsaCase& isa : all_isas()) {
      if (skip_unsupported(isa)) continue;
      ScopedIsa scoped(isa.isa);
      std::vector<int32_t> C32(120);
      std::vector<uint8_t> C8(120);
      call_mm(relu, false, false, 40, p.bcsr, p.B.data(), 40, C32.data(), C8.data(), 40, r, false,
              0, 1);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 40; ++j)
          ASSERT_EQ(C8[i * 40 + j], relu ? 19 : 0) << instSetName(isa.isa) << " at " << i << ", " << j;
    }
  }
}

TEST(SparseBcsr, PackUnpackRoundTrip) {
  uint32_t seed = 40;
  for (auto [R, C] : {std::pair{1, 1}, {3, 5}, {17, 63}, {65, 4}, {5, 4001}, {2, 8005}, {0, 7}, {4, 0}})
    for (double zf : {0.0, 0.5, 0.9, 1.0}) {
      SCOPED_TRACE(std::to_string(R) + " x " + std::to_string(C) + " zeros " + std::to_string(zf));
      const std::vector<int8_t> W = block_sparse_s8(R, C, zf, seed++);
      const auto bcsr = fbgemmDenseToBCSR(R, C, W.data());
      std::vector<int8_t> back(W.size(), 99);
      bcsr->unpack(back.data());
      EXPECT_EQ(back, W);
      // One stored block per 1 x 4 block with a nonzero; row offsets are the row sums.
      size_t blocks = 0;
      for (int i = 0; i < R; ++i) {
        int32_t sum = 0;
        for (int b = 0; b < C; b += 4) {
          bool any = false;
          for (int j = b; j < std::min(C, b + 4); ++j) {
            any |= W[static_cast<size_t>(i) * C + j] != 0;
            sum += W[static_cast<size_t>(i) * C + j];
          }
          blocks += any;
        }
        EXPECT_EQ(bcsr->row_offsets[i], sum) << "row " << i;
      }
      EXPECT_EQ(bcsr->colBIdx.size(), blocks);
      EXPECT_EQ(bcsr->values.size(), 4 * blocks);
      EXPECT_EQ(bcsr->rowBPtr.size(), static_cast<size_t>(bcsr->colTiles()) * R + 1);
    }
  // Leading dimensions, and other block shapes (rows and columns not multiples of them).
  const std::vector<int8_t> W = block_sparse_s8(7, 10, 0.3, 3);
  std::vector<int8_t> wide(7 * 13, 5);
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 10; ++j) wide[i * 13 + j] = W[i * 10 + j];
  const auto from_wide = fbgemmDenseToBCSR(7, 10, wide.data(), 13);
  std::vector<int8_t> back(W.size());
  from_wide->unpack(back.data());
  EXPECT_EQ(back, W);
  std::vector<int8_t> back_wide(7 * 13, 5);
  from_wide->unpack(back_wide.data(), 13);
  EXPECT_EQ(back_wide, wide);
  BCSRMatrix<int8_t, 3, 2> other(7, 10);
  other.pack(W.data());
  other.pack(W.data());  // packing again replaces the contents
  std::vector<int8_t> back_other(W.size(), 1);
  other.unpack(back_other.data());
  EXPECT_EQ(back_other, W);
}

TEST(SparseBcsr, DenseToCsr) {
  const std::vector<float> A = {0, 1.5f, 0, 0, 0, 0, -2, 0, 3};
  const auto csr = fbgemmDenseToCSR(3, 3, A.data());
  EXPECT_EQ(csr->rowPtr, (std::vector<int>{0, 1, 1, 3}));
  EXPECT_EQ(csr->colIdx, (std::vector<int>{1, 0, 2}));
  EXPECT_EQ(csr->values, (std::vector<float>{1.5f, -2, 3}));
  const auto csr2 = fbgemmDenseToCSR(2, 2, A.data(), 3);  // rows {0, 1.5}, {0, 0}
  EXPECT_EQ(csr2->rowPtr, (std::vector<int>{0, 1, 1}));
}

#define W(...) ({__VA_ARGS__})
TEST(SparseBcsr, BadArguments) {
  const std::vector<int8_t> Wt = block_sparse_s8(4, 8, 0.5, 1);
  auto bcsr = fbgemmDenseToBCSR(4, 8, Wt.data());
  std::vector<uint8_t> B(8 * 5);
  std::vector<int32_t> C32(4 * 5);
  std::vector<uint8_t> C8(4 * 5);
  const std::vector<float> s = {0.1f};
  const std::vector<int32_t> zp = {0};
  trRequantizationParams_t r{2, zp.data(), 3, 0.5f, bcsr->row_offsets.data(), nullptr, nullptr,
                             s.data()};
  auto mm = [&](int N, int ldb, int ldc, trRequantizationParams_t& rp, int t = 0, int n = 1) {
    fbgemmSparseDenseInt8MM<false, Gran::TENSOR>(N, bcsr, B.data(), ldb, C32.data(), C8.data(), ldc,
                                                 rp, false, t, n);
  };
  EXPECT_NO_THROW(mm(5, 5, 5, r));
  EXPECT_INVALID(W("N", "-1"), mm(-1, 5, 5, r));
  EXPECT_INVALID(W("ldb", "4"), mm(5, 4, 5, r));
  EXPECT_INVALID(W("ldc", "3"), mm(5, 5, 3, r));
  EXPECT_INVALID(W("thread_id", "2"), mm(5, 5, 5, r, 2, 2));
  EXPECT_INVALID(W("num_threads", "0"), mm(5, 5, 5, r, 0, 0));
  trRequantizationParams_t bad_scale{2, zp.data(), 3, 0.0f, bcsr->row_offsets.data(), nullptr,
                                     nullptr, s.data()};
  EXPECT_INVALID(W("C_scale"), mm(5, 5, 5, bad_scale));
  trRequantizationParams_t bad_zp{2, zp.data(), 300, 0.5f, bcsr->row_offsets.data(), nullptr,
                                  nullptr, s.data()};
  EXPECT_INVALID(W("C_zero_point", "300"), mm(5, 5, 5, bad_zp));
  trRequantizationParams_t no_offsets{2, zp.data(), 3, 0.5f, nullptr, nullptr, nullptr, s.data()};
  EXPECT_INVALID(W("weight_row_offsets"), mm(5, 5, 5, no_offsets));
  trRequantizationParams_t no_scale{0, zp.data(), 3, 0.5f, nullptr, nullptr, nullptr, nullptr};
  EXPECT_INVALID(W("act_times_w_scale"), mm(5, 5, 5, no_scale));
  const std::vector<float> inf = {1.0f / 0.0f};
  trRequantizationParams_t inf_scale{0, zp.data(), 3, 0.5f, nullptr, nullptr, nullptr, inf.data()};
  EXPECT_INVALID(W("act_times_w_scale[0]", "inf"), mm(5, 5, 5, inf_scale));
  EXPECT_INVALID(W("B"), fbgemmSparseDenseInt8MM<false, Gran::TENSOR>(5, bcsr, nullptr, 5, C32.data(),
                                                                      C8.data(), 5, r));
  std::unique_ptr<BCSRMatrix<>> none;
  EXPECT_INVALID(W("bcsr"), fbgemmSparseDenseInt8MM<false, Gran::TENSOR>(5, none, B.data(), 5,
                                                                         C32.data(), C8.data(), 5, r));
  auto unpacked = std::make_unique<BCSRMatrix<>>(4, 8);
  EXPECT_INVALID(W("rowBPtr"), fbgemmSparseDenseInt8MM<false, Gran::TENSOR>(
                                   5, unpacked, B.data(), 5, C32.data(), C8.data(), 5, r));
  // An empty batch is not an error.
  EXPECT_NO_THROW(mm(0, 0, 0, r));
  bcsr->colBIdx[0] = 2;  // K = 8 has two blocks of 4
  EXPECT_INVALID(W("colBIdx[0]", "2"), mm(5, 5, 5, r));
  EXPECT_INVALID(W("Rows", "-1"), BCSRMatrix<>(-1, 3));
  EXPECT_INVALID(W("ld", "7"), fbgemmDenseToBCSR(4, 8, Wt.data(), 7));
  EXPECT_INVALID(W("src"), fbgemmDenseToBCSR<int8_t>(4, 8, nullptr));
  EXPECT_INVALID(W("ld", "2"), fbgemmDenseToCSR(4, 8, Wt.data(), 2));
}
#undef W

}  // namespace
}  // namespace quire::test
