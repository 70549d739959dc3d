// CompressedSparseColumn::SparseConv and DoSConvOnInpBuffer against the direct reference
// convolution (quire::ref), bit for bit: the sparse part alone, and the whole convolution
// as FBGEMM's callers run it (dense part through PackAWithIm2Col + fbgemmPacked, the
// sparse part added by DoSConvOnInpBuffer before ReQuantizeOutput), on every ISA path
// and several thread counts; bad arguments.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "conv_test_util.h"
#include "quire/DoSConvOnInpBuffer.h"
#include "quire/quire.h"

namespace quire::test {
namespace {

using Gran = QuantizationGranularity;

std::vector<conv_param_t<2>> shapes() {
  return {
      conv_param_t<2>(1, 8, 8, {6, 7}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}),
      conv_param_t<2>(2, 6, 9, {5, 5}, 3, {3, 2}, {2, 1}, {1, 0, 0, 1}),
      conv_param_t<2>(1, 4, 4, {7, 7}, 2, {3, 3}, {1, 1}, {2, 2, 2, 2}, {2, 2}),
      conv_param_t<2>(3, 5, 3, {4, 6}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}),
      conv_param_t<2>(1, 3, 17, {3, 3}, 1, {5, 5}, {1, 1}, {2, 2, 2, 2}),
  };
}

// W (KRSC) split in two: `sparse` holds about a tenth of the weights (as a CSC with
// KHs / KWs / ICs, RowIdx filled only if with_rowidx, as FBGEMM's callers may leave it),
// `dense` the rest; dense_only / sparse_only are the two parts as KRSC matrices.
struct Split {
  std::vector<int8_t> dense, sparse_only;
  CompressedSparseColumn csc;
  Split(const conv_param_t<2>& p, const std::vector<int8_t>& W, bool with_rowidx, uint32_t seed)
      : dense(W), sparse_only(W.size(), 0), csc(p.K[0] * p.K[1] * (p.IC / p.G), p.OC) {
    std::mt19937 gen(seed);
    std::bernoulli_distribution moved(0.1);
    const int icg = p.IC / p.G, kg = p.K[0] * p.K[1] * icg;
    for (int oc = 0; oc < p.OC; ++oc) {
      const int g = oc / (p.OC / p.G);
      for (int r = 0; r < kg; ++r) {
        const size_t e = static_cast<size_t>(oc) * kg + r;
        if (W[e] == 0 || !moved(gen)) continue;
        const int tap = r / icg, c = r % icg;
        csc.KHs().push_back(static_cast<int16_t>(tap / p.K[1]));
        csc.KWs().push_back(static_cast<int16_t>(tap % p.K[1]));
        csc.ICs().push_back(static_cast<int16_t>(g * icg + c));
        if (with_rowidx) csc.RowIdx().push_back(static_cast<int16_t>(r));
        csc.Values().push_back(W[e]);
        sparse_only[e] = W[e];
        dense[e] = 0;
      }
      csc.ColPtr()[oc + 1] = static_cast<int32_t>(csc.Values().size());
    }
  }
};

TEST(SparseConv, SparsePartAgainstDirectConvolution) {
  uint32_t seed = 3;
  for (const auto& p : shapes()) {
    SCOPED_TRACE(p.toString());
    const ConvProblem<2> c(p, 23, seed++);
    const Split s(p, c.W, false, seed++);
    const int M = static_cast<int>(out_pixels(p));
    std::vector<int32_t> want(static_cast<size_t>(M) * p.OC);
    ref::conv_u8s8s32(p, c.A.data(), c.a_zp, s.sparse_only.data(), want.data());
    // A block of rows and columns inside the output, C relative to it (ldc > col_size).
    const block_type_t b{M / 3, M - M / 3, p.OC / 3, p.OC - p.OC / 3};
    const int ldc = b.col_size + 2;
    const std::vector<int32_t> before = random_vector<int32_t>(
        static_cast<size_t>(b.row_size - 1) * ldc + b.col_size, -1000, 1000, seed++);
    for (bool accumulation : {false, true}) {
      std::vector<int32_t> got = before;
      s.csc.SparseConv(p, b, c.A.data(), c.a_zp, accumulation, got.data(), ldc);
      for (int i = 0; i < b.row_size; ++i)
        for (int j = 0; j < b.col_size; ++j) {
          const int32_t expect = want[static_cast<size_t>(b.row_start + i) * p.OC + b.col_start + j] +
                                 (accumulation ? before[static_cast<size_t>(i) * ldc + j] : 0);
          ASSERT_EQ(got[static_cast<size_t>(i) * ldc + j], expect)
              << "accumulation " << accumulation << " at " << i << ", " << j;
        }
    }
  }
}

TEST(SparseConv, DenseGemmPlusSparsePartEveryPath) {
  uint32_t seed = 50;
  for (const auto& p : shapes()) {
    SCOPED_TRACE(p.toString());
    const ConvProblem<2> c(p, 41, seed++);
    const bool with_rowidx = seed % 2 == 0;
    const Split s(p, c.W, with_rowidx, seed++);
    const Gran gran = seed % 3 == 0 ? Gran::TENSOR : Gran::OUT_CHANNEL;
    const Requant<2> rq(c, gran, false, BiasKind::i32, false, seed++);
    const int kg = kernel_prod(p) * (p.IC / p.G);
    for (const IsaCase& isa : all_isas()) {
      if (skip_unsupported(isa)) continue;
      ScopedIsa scoped(isa.isa);
      SCOPED_TRACE(instSetName(isa.isa));
      PackBMatrix<int8_t> B(matrix_op_t::Transpose, kg * p.G, p.OC / p.G, s.dense.data(), kg,
                            nullptr, p.G);
      for (int threads : {1, 3}) {
        SCOPED_TRACE("threads=" + std::to_string(threads));
        std::vector<int32_t> got32(c.C32.size(), -1);
        for_each_thread(threads, [&](int t, int n) {
          PackAWithIm2Col<uint8_t> A(p, c.A.data(), nullptr, c.a_zp, nullptr, true);
          DoNothing<int32_t, int32_t> done;
          memCopy<> copy(done);
          DoSConvOnInpBuffer<int32_t, int32_t, memCopy<>> sconv(copy, c.A.data(), p, c.a_zp, s.csc);
          fbgemmPacked(A, B, got32.data(), got32.data(), p.OC, sconv, t, n);
        });
        EXPECT_TRUE(same_bits(c.C32, got32));

        std::vector<uint8_t> got8(c.C32.size(), 0);
        std::vector<int32_t> scratch(c.C32.size());
        for_each_thread(threads, [&](int t, int n) {
          std::vector<int32_t> row_offsets(PackAWithIm2Col<uint8_t>::rowOffsetBufferSize());
          PackAWithIm2Col<uint8_t> A(p, c.A.data(), nullptr, c.a_zp, row_offsets.data());
          DoNothing<> done;
          if (gran == Gran::TENSOR) {
            ReQuantizeOutput<false, Gran::TENSOR> requant(
                done, rq.multiplier.data(), rq.c_zp, c.a_zp, rq.b_zp.data(), A.getRowOffsetBuffer(),
                rq.col_offsets.data(), rq.bias_i32.data(), p.OC, p.G);
            DoSConvOnInpBuffer<uint8_t, int32_t, decltype(requant)> sconv(requant, c.A.data(), p,
                                                                          c.a_zp, s.csc);
            fbgemmPacked(A, B, got8.data(), scratch.data(), p.OC, sconv, t, n);
          } else {
            ReQuantizeOutput<false, Gran::OUT_CHANNEL> requant(
                done, rq.multiplier.data(), rq.c_zp, c.a_zp, rq.b_zp.data(), A.getRowOffsetBuffer(),
                rq.col_offsets.data(), rq.bias_i32.data(), p.OC, p.G);
            DoSConvOnInpBuffer<uint8_t, int32_t, decltype(requant)> sconv(requant, c.A.data(), p,
                                                                          c.a_zp, s.csc);
            fbgemmPacked(A, B, got8.data(), scratch.data(), p.OC, sconv, t, n);
          }
        });
        EXPECT_TRUE(same_bits(rq.want, got8));
      }
    }
  }
}

#define W(...) ({__VA_ARGS__})
TEST(SparseConv, BadArguments) {
  const conv_param_t<2> p(1, 4, 4, {5, 5}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1});
  const ConvProblem<2> c(p, 0, 9);
  Split s(p, c.W, true, 10);
  std::vector<int32_t> C(25 * 4);
  auto conv = [&](const CompressedSparseColumn& m, const conv_param_t<2>& cp, block_type_t b, int ldc) {
    m.SparseConv(cp, b, c.A.data(), 0, false, C.data(), ldc);
  };
  EXPECT_NO_THROW(conv(s.csc, p, {0, 25, 0, 4}, 4));
  EXPECT_INVALID(W("ldc", "3"), conv(s.csc, p, {0, 25, 0, 4}, 3));
  EXPECT_INVALID(W("block"), conv(s.csc, p, {0, 26, 0, 4}, 4));
  EXPECT_INVALID(W("block"), conv(s.csc, p, {0, 25, 1, 4}, 4));
  EXPECT_INVALID(W("A"), s.csc.SparseConv(p, {0, 25, 0, 4}, nullptr, 0, false, C.data(), 4));
  const conv_param_t<2> transposed(1, 4, 4, {5, 5}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1},
                                   {0, 0}, true);
  EXPECT_INVALID(W("transposed"), conv(s.csc, transposed, {0, 1, 0, 4}, 4));
  ASSERT_FALSE(s.csc.KHs().empty());
  s.csc.KHs()[0] = 3;
  EXPECT_INVALID(W("KHs[0]", "3"), conv(s.csc, p, {0, 25, 0, 4}, 4));
  s.csc.KHs()[0] = 0;
  s.csc.ICs().pop_back();
  EXPECT_INVALID(W("ICs"), conv(s.csc, p, {0, 25, 0, 4}, 4));
  DoNothing<int32_t, int32_t> done;
  EXPECT_INVALID(W("A"), (DoSConvOnInpBuffer<>(done, nullptr, p, 0, s.csc)));
}
#undef W

}  // namespace
}  // namespace quire::test
