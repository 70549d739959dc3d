// Row spans (src/driver/packed_gemm.cpp): where quire's packer reads A in place, fbgemmPacked
// runs several consecutive A blocks as one, with their row sums in a scratch the op is
// pointed at. The results must equal the reference requantization of the same int32
// product, and after each call the packer's row offset buffer must hold its last block's
// sums, as after per-block runs. Cases: outputs of one column slice (spans) and wider
// (none), K in place (a multiple of 4) and not (every block copied: per-block runs), A
// transposed, blocks of the default size and small ones (many spans, tails), symmetric and
// asymmetric B, an op with its own row offsets (per-block runs), uint8 and float outputs,
// 1-3 threads, every path.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "quire/quire.h"
#include "quire/ref/Reference.h"
#include "quire/ref/ReferenceOutput.h"
#include "test_util.h"

namespace quire::test {
namespace {

using Gran = QuantizationGranularity;

struct SpanCase {
  int M, N, K;
  bool transposed;
  bool small_blocks;  // MCB = 2 MR: many blocks per span, a short last one
  int b_zp;           // 0: symmetric B (no row term)
  int threads;

  std::string describe() const {
    return std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) +
           (transposed ? " A^T" : "") + (small_blocks ? " small blocks" : "") +
           " b_zp=" + std::to_string(b_zp) + " threads=" + std::to_string(threads);
  }
};

// Per-channel quantization parameters for the reference requantization.
ref::QuantParams out_channel_params(int N, int32_t a_zp, const std::vector<int32_t>& b_zp,
                                    const std::vector<int32_t>& row_offsets,
                                    const std::vector<int32_t>& col_offsets) {
  ref::QuantParams qp;
  qp.granularity = Gran::OUT_CHANNEL;
  qp.nCol = static_cast<uint32_t>(N);
  qp.Aq_zero_point = a_zp;
  qp.Bq_zero_point = b_zp.data();
  qp.row_offsets = row_offsets.data();
  qp.col_offsets = col_offsets.data();
  return qp;
}

// The rows of thread t's last A block, as fbgemmPacked's partition and MCB give them.
struct Rows {
  int begin, end;
};

void run_span_case(const SpanCase& c) {
  SCOPED_TRACE(c.describe());
  const int M = c.M, N = c.N, K = c.K;
  const uint32_t seed = uint32_t(M * 31 + N * 7 + K);
  const std::vector<uint8_t> A = random_vector<uint8_t>(size_t(M) * K, 0, 255, seed);
  // A^T stored K x M: the same matrix.
  std::vector<uint8_t> At(size_t(M) * K);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) At[size_t(k) * M + i] = A[size_t(i) * K + k];
  const std::vector<int8_t> B = random_vector<int8_t>(size_t(K) * N, -128, 127, seed + 1);
  BlockingFactors bf = defaultBlocking<int32_t>();
  if (c.small_blocks) bf.MCB = 2 * bf.MR;
  const BlockingFactors* params = c.small_blocks ? &bf : nullptr;
  PackBMatrix<int8_t> packB(matrix_op_t::NoTranspose, K, N, B.data(), N, nullptr, 1, params);
  const auto make_packer = [&](int32_t* row_offsets) {
    return c.transposed ? PackAWithRowOffset<uint8_t>(matrix_op_t::Transpose, M, K, At.data(), M,
                                                      nullptr, 1, row_offsets, params)
                        : PackAWithRowOffset<uint8_t>(matrix_op_t::NoTranspose, M, K, A.data(), K,
                                                      nullptr, 1, row_offsets, params);
  };

  std::vector<int32_t> sums(static_cast<size_t>(M), 0);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) sums[size_t(i)] += A[size_t(i) * K + k];

  const int mcb = PackAWithRowOffset<uint8_t>::rowOffsetBufferSize(params);
  const auto last_block = [&](int t) {
    int64_t m0, m1;  // the threads split M in MR-row panels (one column part: N <= NR)
    const int mr = bf.MR, panels = (M + mr - 1) / mr;
    const int base = panels / c.threads, extra = panels % c.threads;
    m0 = int64_t{t} * base + std::min(t, extra);
    m1 = m0 + base + (t < extra ? 1 : 0);
    const int begin = int(std::min<int64_t>(m0 * mr, M)), end = int(std::min<int64_t>(m1 * mr, M));
    return Rows{begin + (end - begin - 1) / mcb * mcb, end};
  };
  const auto check_buffer = [&](const int32_t* buffer, int t) {
    const Rows r = last_block(t);
    for (int i = r.begin; i < r.end; ++i)
      ASSERT_EQ(buffer[i - r.begin], sums[size_t(i)])
          << "thread " << t << ", row offset of row " << i;
  };

  // int32 output (memCopy, which reads no row offsets: spans too), against the plain product.
  std::vector<int32_t> raw(size_t(M) * N);
  for (int t = 0; t < c.threads; ++t) {
    std::vector<int32_t> row_offsets(static_cast<size_t>(mcb), -1);
    PackAWithRowOffset<uint8_t> packA = make_packer(row_offsets.data());
    DoNothing<int32_t, int32_t> done;
    memCopy<> copy(done);
    fbgemmPacked(packA, packB, raw.data(), raw.data(), N, copy, t, c.threads, params);
    if (N <= bf.NR || c.threads == 1) check_buffer(row_offsets.data(), t);
  }
  std::vector<int32_t> product(size_t(M) * N);
  ref::matmul_u8s8s32(M, N, K, A.data(), K, B.data(), N, product.data(), N);
  for (size_t e = 0; e < raw.size(); ++e)
    ASSERT_EQ(raw[e], product[e]) << "int32 element (" << e / N << ", " << e % N << ")";

  std::vector<int32_t> b_zp(static_cast<size_t>(N)), col_off(static_cast<size_t>(N));
  std::vector<float> mult(static_cast<size_t>(N));
  for (int j = 0; j < N; ++j) {
    b_zp[size_t(j)] = c.b_zp == 0 ? 0 : c.b_zp - (j % 5);
    col_off[size_t(j)] = 1000 * j - 77;
    mult[size_t(j)] = 0.0007f + 0.0001f * float(j % 7);
  }
  const ref::QuantParams qp = out_channel_params(N, 3, b_zp, sums, col_off);
  std::vector<uint8_t> expected(size_t(M) * N);
  ref::requantize_u8<int32_t>(expected.data(), raw.data(), block_type_t{0, M, 0, N}, N, N, qp,
                              mult.data(), 9, nullptr, nullptr, false);
  std::vector<float> expected_f(size_t(M) * N);
  ref::requantize_f32(expected_f.data(), raw.data(), block_type_t{0, M, 0, N}, N, N, qp, 0.5f,
                      mult.data(), nullptr, false);

  std::vector<uint8_t> C(size_t(M) * N, 0xA5);
  std::vector<int32_t> C_buffer(size_t(M) * N);
  for (int t = 0; t < c.threads; ++t) {
    std::vector<int32_t> row_offsets(static_cast<size_t>(mcb), -1);
    PackAWithRowOffset<uint8_t> packA = make_packer(row_offsets.data());
    DoNothing<> done;
    ReQuantizeOutput<false, Gran::OUT_CHANNEL> op(done, mult.data(), 9, 3, b_zp.data(),
                                                  packA.getRowOffsetBuffer(), col_off.data(),
                                                  nullptr, static_cast<uint32_t>(N));
    fbgemmPacked(packA, packB, C.data(), C_buffer.data(), N, op, t, c.threads, params);
    if (N <= bf.NR || c.threads == 1) check_buffer(row_offsets.data(), t);
  }
  for (size_t e = 0; e < C.size(); ++e)
    ASSERT_EQ(int(C[e]), int(expected[e])) << "element (" << e / N << ", " << e % N << ")";

  std::vector<float> Cf(size_t(M) * N, -1.0f);
  for (int t = 0; t < c.threads; ++t) {
    PackAWithRowOffset<uint8_t> packA = make_packer(nullptr);
    DoNothing<float, float> done;
    ReQuantizeForFloat<false, Gran::OUT_CHANNEL> op(done, 0.5f, mult.data(), 3, b_zp.data(),
                                                    packA.getRowOffsetBuffer(), col_off.data(),
                                                    nullptr, static_cast<uint32_t>(N));
    fbgemmPacked(packA, packB, Cf.data(), reinterpret_cast<int32_t*>(Cf.data()), N, op, t,
                 c.threads, params);
    if (N <= bf.NR || c.threads == 1) check_buffer(packA.getRowOffsetBuffer(), t);
  }
  for (size_t e = 0; e < Cf.size(); ++e)
    ASSERT_EQ(std::bit_cast<uint32_t>(Cf[e]), std::bit_cast<uint32_t>(expected_f[e]))
        << "float output, element (" << e / N << ", " << e % N << ")";
}

class GemmRowSpans : public ::testing::TestWithParam<IsaCase> {};

TEST_P(GemmRowSpans, MatchTheReferenceAndLeaveTheLastBlocksSums) {
  if (!GetParam().supported)
    GTEST_SKIP() << instSetName(GetParam().isa) << " not on this CPU (lacks "
                 << missing_features(GetParam().isa) << ")";
  ScopedIsa isa(GetParam().isa);
  int i = 0;
  for (const int M : {121, 250, 845, 2000})
    for (const int N : {1, 3, 4, 8, 9, 16, 17, 64, 65})
      for (const int K : {4, 36, 37, 100, 1024}) {
        ++i;
        const SpanCase c{M, N, K, i % 7 == 0, i % 3 == 0, i % 4 == 0 ? 0 : 40, 1 + i % 3};
        if (c.small_blocks && M > 900) continue;  // enough blocks already
        run_span_case(c);
        if (::testing::Test::HasFailure()) return;
      }
}

// An op given its own row offsets (one block's worth, the caller's values) keeps per-block
// runs and reads those values, while the packer's buffer still ends with its sums.
TEST_P(GemmRowSpans, AnOpWithItsOwnRowOffsetsReadsThem) {
  if (!GetParam().supported) GTEST_SKIP() << instSetName(GetParam().isa) << " not on this CPU";
  ScopedIsa isa(GetParam().isa);
  const int M = 300, K = 36;
  for (const int N : {4, 16}) {
    SCOPED_TRACE("N = " + std::to_string(N));
    const std::vector<uint8_t> A = random_vector<uint8_t>(size_t(M) * K, 0, 255, 5);
    const std::vector<int8_t> B = random_vector<int8_t>(size_t(K) * N, -128, 127, 6);
    PackBMatrix<int8_t> packB(matrix_op_t::NoTranspose, K, N, B.data(), N);
    std::vector<int32_t> raw(size_t(M) * N);
    {
      PackAWithRowOffset<uint8_t> packA(matrix_op_t::NoTranspose, M, K, A.data(), K);
      DoNothing<int32_t, int32_t> done;
      memCopy<> copy(done);
      fbgemmPacked(packA, packB, raw.data(), raw.data(), N, copy, 0, 1);
    }
    // Per block, the op reads own[i - block start]: values that are not the sums.
    const int mcb = PackAWithRowOffset<uint8_t>::rowOffsetBufferSize();
    std::vector<int32_t> own(static_cast<size_t>(mcb)), own_full(static_cast<size_t>(M));
    for (int i = 0; i < mcb; ++i) own[size_t(i)] = 500 * (i % 9) - 2000;
    for (int i = 0; i < M; ++i) own_full[size_t(i)] = own[size_t(i % mcb)];
    std::vector<int32_t> b_zp(static_cast<size_t>(N), 2), col_off(static_cast<size_t>(N), 0);
    std::vector<float> mult(static_cast<size_t>(N), 0.001f);
    const ref::QuantParams qp = out_channel_params(N, 0, b_zp, own_full, col_off);
    std::vector<uint8_t> expected(size_t(M) * N), C(size_t(M) * N, 0xA5);
    ref::requantize_u8<int32_t>(expected.data(), raw.data(), block_type_t{0, M, 0, N}, N, N, qp,
                                mult.data(), 100, nullptr, nullptr, false);
    std::vector<int32_t> C_buffer(size_t(M) * N);
    PackAWithRowOffset<uint8_t> packA(matrix_op_t::NoTranspose, M, K, A.data(), K);
    DoNothing<> done;
    ReQuantizeOutput<false, Gran::OUT_CHANNEL> op(done, mult.data(), 100, 0, b_zp.data(),
                                                  own.data(), col_off.data(), nullptr,
                                                  static_cast<uint32_t>(N));
    fbgemmPacked(packA, packB, C.data(), C_buffer.data(), N, op, 0, 1);
    for (size_t e = 0; e < C.size(); ++e)
      ASSERT_EQ(int(C[e]), int(expected[e])) << "element (" << e / N << ", " << e % N << ")";
    const int last = (M - 1) / mcb * mcb;
    for (int i = last; i < M; ++i) {
      int32_t s = 0;
      for (int k = 0; k < K; ++k) s += A[size_t(i) * K + k];
      ASSERT_EQ(packA.getRowOffsetBuffer()[i - last], s) << "row offset of row " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllIsas, GemmRowSpans, ::testing::ValuesIn(all_isas()),
                         [](const ::testing::TestParamInfo<IsaCase>& info) {
                           return std::string(instSetName(info.param.isa));
                         });

}  // namespace
}  // namespace quire::test
