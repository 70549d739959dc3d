// PackAWithIm2Col driven by fbgemmPacked, against the direct reference convolution, bit
// for bit: int32 output (memCopy) and requantized uint8 output (ReQuantizeOutput with the
// packer's fused row sums and nonzero per-channel B zero points). Shapes cover 1D, 2D
// and 3D; kernels 1 to 7; strides 1 and 2; pads 0 to 3, asymmetric; dilation 1 and 2;
// groups 1, 2, 4, 16, 32; batch 1 to 3; odd sizes; transposed convolutions; K longer
// than a K block. Each runs on every ISA path this CPU has, with the default blocking and
// with a tiny one (MCB = 2 MR, KCB = 8: many row and K blocks, K blocks cutting through
// taps), and with 1, 2 and 3 threads, all of which must give the same bits.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "conv_test_util.h"
#include "quire/detail/Blocking.h"

namespace quire::test {
namespace {

using Gran = QuantizationGranularity;

template <int D>
std::vector<conv_param_t<D>> shapes();

template <>
std::vector<conv_param_t<1>> shapes<1>() {
  return {
      conv_param_t<1>(2, 8, 12, {17}, 1, {5}, {2}, {2, 1}),
      conv_param_t<1>(1, 16, 8, {9}, 4, {3}, {1}, {0, 3}, {2}),
      conv_param_t<1>(3, 3, 4, {15}, 1, {7}, {1}, {3, 3}),
      conv_param_t<1>(1, 4, 6, {7}, 1, {3}, {2}, {1, 1}, {1}, {1}, true),
      conv_param_t<1>(1, 12, 8, {11}, 1, {1}, {1}, {0, 0}),
  };
}

template <>
std::vector<conv_param_t<2>> shapes<2>() {
  return {
      conv_param_t<2>(1, 3, 8, {9, 11}, 1, {7, 7}, {2, 2}, {3, 3, 3, 3}),
      // Kernel rows of at most 32 bytes (copied through padded rows): asymmetric pads,
      // stride 3, a batch; one channel with pads wider than the input.
      conv_param_t<2>(2, 4, 8, {6, 9}, 1, {3, 5}, {1, 3}, {2, 4, 1, 3}),
      conv_param_t<2>(1, 1, 4, {4, 3}, 1, {2, 7}, {2, 1}, {1, 5, 0, 4}),
      // The stem's rows (7 x 21 bytes) in blocks of 8 rows and a rest, and 7 x 28.
      conv_param_t<2>(1, 3, 8, {12, 40}, 1, {7, 7}, {2, 2}, {3, 3, 3, 3}),
      conv_param_t<2>(2, 4, 8, {9, 23}, 1, {5, 7}, {1, 1}, {2, 3, 2, 3}),
      conv_param_t<2>(3, 16, 16, {7, 9}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}),
      conv_param_t<2>(1, 8, 12, {10, 7}, 2, {3, 5}, {2, 1}, {0, 2, 1, 3}),
      conv_param_t<2>(1, 16, 8, {11, 13}, 4, {3, 3}, {1, 2}, {2, 1, 0, 3}, {2, 2}),
      conv_param_t<2>(2, 64, 64, {5, 5}, 32, {3, 3}, {1, 1}, {1, 1, 1, 1}),
      conv_param_t<2>(1, 20, 24, {6, 6}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}),
      conv_param_t<2>(1, 6, 10, {6, 5}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}),
      conv_param_t<2>(1, 4, 4, {5, 5}, 1, {1, 1}, {2, 2}, {1, 0, 0, 1}),
      conv_param_t<2>(1, 64, 16, {5, 5}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}),
      conv_param_t<2>(1, 5, 7, {13, 12}, 1, {5, 5}, {2, 2}, {2, 2, 2, 2}),
      conv_param_t<2>(1, 16, 16, {7, 7}, 16, {3, 3}, {2, 2}, {1, 1, 1, 1}),
      conv_param_t<2>(1, 8, 6, {4, 5}, 1, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, {1, 0}, true),
      conv_param_t<2>(2, 4, 4, {3, 4}, 2, {3, 2}, {1, 2}, {0, 1, 2, 0}, {2, 1}, {0, 1}, true),
  };
}

template <>
std::vector<conv_param_t<3>> shapes<3>() {
  return {
      conv_param_t<3>(1, 4, 8, {3, 5, 4}, 1, {3, 3, 3}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}),
      conv_param_t<3>(2, 8, 8, {4, 3, 5}, 2, {2, 3, 1}, {2, 1, 1}, {0, 1, 0, 1, 1, 0}),
      conv_param_t<3>(1, 8, 4, {5, 5, 5}, 4, {3, 1, 3}, {1, 1, 2}, {2, 0, 1, 0, 0, 2}, {2, 1, 1}),
      conv_param_t<3>(1, 4, 4, {2, 3, 3}, 1, {3, 3, 3}, {2, 1, 2}, {1, 1, 1, 1, 1, 1}, {1, 1, 1},
                      {1, 0, 1}, true),
  };
}

// The active path's default blocking, and one with tiny MCB and KCB.
std::vector<BlockingFactors> blockings() {
  const BlockingFactors def = detail::resolve_blocking(nullptr, "test");
  BlockingFactors tiny = def;
  tiny.MCB = 2 * def.MR;
  tiny.KCB = 8;
  tiny.NCB = def.NR;
  return {def, tiny};
}

template <int D>
void check_shape(const conv_param_t<D>& p, uint32_t seed) {
  SCOPED_TRACE(p.toString());
  const ConvProblem<D> c(p, 37, seed);
  const Requant<D> rq(c, Gran::OUT_CHANNEL, false, BiasKind::i32, false, seed + 7);
  const int kg = kernel_prod(p) * (p.IC / p.G);
  const int M = static_cast<int>(out_pixels(p));
  for (const IsaCase& isa : all_isas()) {
    if (skip_unsupported(isa)) continue;
    ScopedIsa scoped(isa.isa);
    SCOPED_TRACE(instSetName(isa.isa));
    for (const BlockingFactors& bf : blockings()) {
      SCOPED_TRACE("MCB=" + std::to_string(bf.MCB) + " KCB=" + std::to_string(bf.KCB));
      PackBMatrix<int8_t> B(matrix_op_t::Transpose, kg * p.G, p.OC / p.G, c.W.data(), kg,
                            nullptr, p.G, &bf);
      for (int threads : {1, 2, 3}) {
        SCOPED_TRACE("threads=" + std::to_string(threads));
        std::vector<int32_t> got32(c.C32.size(), -1);
        for_each_thread(threads, [&](int t, int n) {
          PackAWithIm2Col<uint8_t, int32_t, D> A(p, c.A.data(), nullptr, c.a_zp, nullptr, true,
                                                 &bf);
          DoNothing<int32_t, int32_t> done;
          memCopy<> copy(done);
          fbgemmPacked(A, B, got32.data(), got32.data(), p.OC, copy, t, n, &bf);
        });
        EXPECT_TRUE(same_bits(c.C32, got32));

        std::vector<uint8_t> got8(c.C32.size(), 0);
        std::vector<int32_t> scratch(c.C32.size());
        for_each_thread(threads, [&](int t, int n) {
          PackAWithIm2Col<uint8_t, int32_t, D> A(p, c.A.data(), nullptr, c.a_zp, nullptr, false,
                                                 &bf);
          DoNothing<> done;
          ReQuantizeOutput<false, Gran::OUT_CHANNEL> requant(
              done, rq.multiplier.data(), rq.c_zp, c.a_zp, rq.b_zp.data(), A.getRowOffsetBuffer(),
              rq.col_offsets.data(), rq.bias_i32.data(), p.OC, p.G);
          fbgemmPacked(A, B, got8.data(), scratch.data(), p.OC, requant, t, n, &bf);
        });
        EXPECT_TRUE(same_bits(rq.want, got8));
      }
    }
  }
  (void)M;
}

TEST(ConvIm2Col, Conv1D) {
  uint32_t seed = 100;
  for (const auto& p : shapes<1>()) check_shape(p, seed++);
}

TEST(ConvIm2Col, Conv2D) {
  uint32_t seed = 200;
  for (const auto& p : shapes<2>()) check_shape(p, seed++);
}

TEST(ConvIm2Col, Conv3D) {
  uint32_t seed = 300;
  for (const auto& p : shapes<3>()) check_shape(p, seed++);
}

// The packed block itself: rows equal the explicit im2col matrix, zero-padded to a
// multiple of 4, and the row sums equal the reference's, block by block.
TEST(ConvIm2Col, PackedBlocksMatchExplicitIm2col) {
  const conv_param_t<2> p(2, 6, 4, {5, 6}, 2, {3, 2}, {2, 1}, {1, 0, 2, 1}, {1, 2});
  const ConvProblem<2> c(p, 201, 11);
  const int kg = kernel_prod(p) * (p.IC / p.G), M = static_cast<int>(out_pixels(p));
  std::vector<uint8_t> cols(static_cast<size_t>(M) * kg * p.G);
  ref::im2col(p, c.A.data(), c.a_zp, cols.data());
  for (const IsaCase& isa : all_isas()) {
    if (skip_unsupported(isa)) continue;
    ScopedIsa scoped(isa.isa);
    SCOPED_TRACE(instSetName(isa.isa));
    BlockingFactors bf = detail::resolve_blocking(nullptr, "test");
    bf.MCB = 2 * bf.MR;
    bf.KCB = 8;
    PackAWithIm2Col<uint8_t, int32_t, 2> A(p, c.A.data(), nullptr, c.a_zp, nullptr, false, &bf);
    for (int g = 0; g < p.G; ++g) {
      for (int r0 = 0; r0 < M; r0 += bf.MCB) {
        const int mc = std::min(bf.MCB, M - r0);
        for (int k0 = 0; k0 < kg; k0 += bf.KCB) {
          const int kc = std::min(bf.KCB, kg - k0);
          const PackedABlock v = A.pack(block_type_t{r0, mc, g * kg + k0, kc});
          for (int i = 0; i < mc; ++i) {
            for (int k = 0; k < ((kc + 3) & ~3); ++k) {
              const uint8_t want = k < kc ? cols[(size_t(r0 + i) * p.G + g) * kg + k0 + k] : 0;
              ASSERT_EQ(want, v.data[i * v.ld + k]) << "row " << r0 + i << " group " << g
                                                    << " column " << k0 + k;
            }
          }
        }
        for (int i = 0; i < mc; ++i)
          ASSERT_EQ(c.row_offsets[size_t(r0 + i) * p.G + g], A.getRowOffsetBuffer()[i])
              << "row " << r0 + i << " group " << g;
      }
    }
  }
}

TEST(ConvIm2Col, BadArguments) {
  const conv_param_t<2> p(1, 4, 4, {5, 5}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1});
  std::vector<uint8_t> a(100);
  EXPECT_THROW((PackAWithIm2Col<uint8_t, int32_t, 2>(p, nullptr)), std::invalid_argument);
  EXPECT_THROW((PackAWithIm2Col<uint8_t, int32_t, 2>(p, a.data(), nullptr, 256)),
               std::invalid_argument);
  EXPECT_THROW((PackAWithIm2Col<uint8_t, int32_t, 2>(p, a.data(), nullptr, -1)),
               std::invalid_argument);
  conv_param_t<2> edited = p;
  edited.OUT_DIM[0] = 7;  // a field edited after construction is checked again
  EXPECT_THROW((PackAWithIm2Col<uint8_t, int32_t, 2>(edited, a.data())), std::invalid_argument);
}

}  // namespace
}  // namespace quire::test
