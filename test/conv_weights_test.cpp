// Packed convolution weights: PackWeightsForConv holds exactly its path's packed form and
// unpacks to the KRSC weights it was given; isPackingCompliant / mismatchingParams name
// what differs and fbgemmConv refuses weights packed for other parameters;
// PackedDepthWiseConvMatrix and PackWeightMatrixForGConv round-trip through unpack, agree
// with their documented layouts (addr), and reject bad arguments.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "conv_test_util.h"

namespace quire::test {
namespace {

using Path = optimized_conv_t;

template <int D>
void expect_round_trip(const conv_param_t<D>& p, Path path) {
  SCOPED_TRACE(p.toString());
  const std::vector<int8_t> W = random_vector<int8_t>(
      static_cast<size_t>(p.OC) * kernel_prod(p) * (p.IC / p.G), -128, 127, 5);
  PackWeightsForConv<D> w(p, W.data());
  EXPECT_EQ(path, w.path());
  EXPECT_EQ(path == Path::depthwise, w.getPackedWForDepthwise() != nullptr);
  EXPECT_EQ(path == Path::groupwise, w.getPackedWForGroupwise() != nullptr);
  EXPECT_EQ(path == Path::pointwise, w.getPackedWForPointwise() != nullptr);
  EXPECT_EQ(path == Path::im2col, w.getPackedWForIm2col() != nullptr);
  EXPECT_EQ(p.IC, w.inputChannels());
  EXPECT_EQ(p.OC, w.outputChannels());
  EXPECT_EQ(p.G, w.groups());
  EXPECT_EQ(p.K, w.kernelDims());
  std::vector<int8_t> back(W.size(), 0);
  w.unpack(back.data());
  EXPECT_EQ(W, back);
  // The GEMM form made on demand for a direct path holds the same weights.
  std::vector<int8_t> gemm_back(W.size(), 0);
  w.gemmWeights().unpack(gemm_back.data());
  EXPECT_EQ(W, gemm_back);
}

TEST(ConvWeights, PackedFormPerPathAndUnpack) {
  expect_round_trip(conv_param_t<2>(1, 72, 72, {5, 5}, 72, {5, 5}, {1, 1}, {2, 2, 2, 2}),
                    Path::depthwise);
  expect_round_trip(conv_param_t<3>(1, 24, 24, {3, 3, 3}, 24, {3, 3, 3}, {1, 1, 1},
                                    {1, 1, 1, 1, 1, 1}),
                    Path::depthwise);
  expect_round_trip(conv_param_t<2>(1, 40, 40, {5, 5}, 5, {3, 3}, {1, 1}, {1, 1, 1, 1}),
                    Path::groupwise);
  expect_round_trip(conv_param_t<1>(1, 32, 32, {9}, 2, {5}, {1}, {2, 2}), Path::groupwise);
  expect_round_trip(conv_param_t<2>(1, 12, 20, {5, 5}, 2, {1, 1}, {1, 1}, {0, 0, 0, 0}),
                    Path::pointwise);
  expect_round_trip(conv_param_t<2>(1, 6, 10, {5, 5}, 2, {3, 2}, {2, 1}, {1, 0, 1, 1}),
                    Path::im2col);
}

TEST(ConvWeights, ComplianceNamesMismatches) {
  const conv_param_t<2> p(1, 16, 16, {8, 8}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1});
  const ConvProblem<2> c(p, 0, 1);
  PackWeightsForConv<2> w(p, c.W.data());
  // Batch and image size may change between calls; what shapes the weights may not.
  EXPECT_TRUE(w.isPackingCompliant(conv_param_t<2>(4, 16, 16, {5, 9}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1})));
  EXPECT_EQ("", w.mismatchingParams(p));
  const conv_param_t<2> other(1, 16, 16, {8, 8}, 1, {3, 3}, {2, 1}, {1, 1, 1, 0});
  EXPECT_FALSE(w.isPackingCompliant(other));
  EXPECT_EQ("stride: packed [1, 1], given [2, 1]; pad: packed [1, 1, 1, 1], given [1, 1, 1, 0]",
            w.mismatchingParams(other));
  std::vector<uint8_t> out(c.C32.size());
  std::vector<int32_t> buf(c.C32.size());
  const float mult = 0.01f;
  const int32_t zp = 0;
  DoNothing<> done;
  ReQuantizeOutput<false> op(done, &mult, 0, 0, &zp, nullptr, nullptr, nullptr, 16);
  try {
    fbgemmConv(other, c.A.data(), w, out.data(), buf.data(), op, 0, 1);
    ADD_FAILURE() << "mismatching weights accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string::npos, std::string(e.what()).find("stride: packed [1, 1], given [2, 1]"))
        << e.what();
  }
}

TEST(ConvWeights, DepthwiseLayout) {
  for (int kp : {9, 25, 27, 5}) {
    for (int oc : {1, 8, 64, 72, 200}) {
      const std::vector<int8_t> W = random_vector<int8_t>(size_t(oc) * kp, -128, 127, oc + kp);
      const PackedDepthWiseConvMatrix m(oc, kp, W.data());
      EXPECT_EQ(kp, m.GetKernelProduct());
      EXPECT_EQ(oc, m.numChannels());
      std::vector<int8_t> back(W.size());
      m.unpack(back.data());
      EXPECT_EQ(W, back);
      // Channel 16 L + 4 j + d of block b, tap 4 q + t sits at
      // (((b * quads + q) * 4 + j) * 64) + 16 L + 4 d + t.
      const int quads = (kp + 3) / 4;
      for (int r = 0; r < oc; ++r) {
        for (int t = 0; t < kp; ++t) {
          const int b = r / 64, L = (r % 64) / 16, j = (r % 16) / 4, d = r % 4;
          const int want = (((b * quads + t / 4) * 4 + j) * 64) + 16 * L + 4 * d + t % 4;
          ASSERT_EQ(want, m.addr(r, t));
          ASSERT_EQ(W[size_t(r) * kp + t], m.PackedMat()[want]);
        }
      }
    }
  }
  const std::vector<int8_t> W(64);
  EXPECT_THROW(PackedDepthWiseConvMatrix(0, 9, W.data()), std::invalid_argument);
  EXPECT_THROW(PackedDepthWiseConvMatrix(8, 0, W.data()), std::invalid_argument);
  EXPECT_THROW(PackedDepthWiseConvMatrix(8, 9, nullptr), std::invalid_argument);
  const PackedDepthWiseConvMatrix m(4, 9, W.data());
  EXPECT_THROW(m.addr(4, 0), std::invalid_argument);
  EXPECT_THROW(m.addr(0, 9), std::invalid_argument);
  EXPECT_THROW(m.unpack(nullptr), std::invalid_argument);
}

TEST(ConvWeights, GroupwiseLayouts) {
  const conv_param_t<2> p(1, 24, 24, {5, 5}, 3, {3, 2}, {1, 1}, {1, 1, 0, 0});
  const int cg = 8, taps = 6;
  const std::vector<int8_t> krsc = random_vector<int8_t>(size_t(24) * taps * cg, -128, 127, 3);
  // The same weights as G x taps x IC/G x OC/G (NoTranspose).
  std::vector<int8_t> gtco(krsc.size());
  for (int g = 0; g < 3; ++g)
    for (int o = 0; o < cg; ++o)
      for (int t = 0; t < taps; ++t)
        for (int c = 0; c < cg; ++c)
          gtco[((size_t(g) * taps + t) * cg + c) * cg + o] = krsc[((size_t(g) * cg + o) * taps + t) * cg + c];
  PackWeightMatrixForGConv<int8_t, int32_t, 2> a(matrix_op_t::Transpose, p, krsc.data());
  PackWeightMatrixForGConv<int8_t, int32_t, 2> b(matrix_op_t::NoTranspose, p, gtco.data());
  const int64_t bytes = PackWeightMatrixForGConv<int8_t, int32_t, 2>::packedBufferSize(p);
  EXPECT_EQ(32 * taps * cg, bytes);  // 24 channels padded to two 16-lane vectors
  EXPECT_TRUE(std::equal(a.getBuf(), a.getBuf() + bytes, b.getBuf()));
  std::vector<int8_t> back(krsc.size());
  a.unpack(back.data());
  EXPECT_EQ(krsc, back);
  b.unpack(back.data());
  EXPECT_EQ(gtco, back);
  EXPECT_EQ(2, (PackWeightMatrixForGConv<int8_t, int32_t, 2>::numOfGroupsTogether(p)));
  // A caller-provided buffer is used as is.
  std::vector<int8_t> mine(bytes);
  PackWeightMatrixForGConv<int8_t, int32_t, 2> c(matrix_op_t::Transpose, p, krsc.data(), mine.data());
  EXPECT_EQ(mine.data(), c.getBuf());
  EXPECT_TRUE(std::equal(a.getBuf(), a.getBuf() + bytes, mine.data()));
  // Not a direct-kernel shape (3 channels per group): packed as FBGEMM packs it, the
  // G x taps x IC/G x OC/G layout, and unpacked back.
  const conv_param_t<2> other(1, 6, 6, {5, 5}, 2, {3, 3}, {1, 1}, {1, 1, 1, 1});
  const int taps3 = 9;
  std::vector<int8_t> krsc3(2 * 3 * taps3 * 3), gtco3(krsc3.size());
  for (size_t i = 0; i < krsc3.size(); ++i) krsc3[i] = static_cast<int8_t>(i * 7 % 251 - 125);
  for (int g = 0; g < 2; ++g)
    for (int o = 0; o < 3; ++o)
      for (int t = 0; t < taps3; ++t)
        for (int c = 0; c < 3; ++c)
          gtco3[((size_t(g) * taps3 + t) * 3 + c) * 3 + o] = krsc3[((size_t(g) * 3 + o) * taps3 + t) * 3 + c];
  EXPECT_EQ(static_cast<int64_t>(krsc3.size()),
            (PackWeightMatrixForGConv<int8_t, int32_t, 2>::packedBufferSize(other)));
  PackWeightMatrixForGConv<int8_t, int32_t, 2> o3(matrix_op_t::Transpose, other, krsc3.data());
  EXPECT_TRUE(std::equal(gtco3.begin(), gtco3.end(), o3.getBuf()));
  o3.unpack(back.data());
  EXPECT_TRUE(std::equal(krsc3.begin(), krsc3.end(), back.begin()));
  EXPECT_THROW((PackWeightMatrixForGConv<int8_t, int32_t, 2>(matrix_op_t::Transpose, p, nullptr)),
               std::invalid_argument);
}

}  // namespace
}  // namespace quire::test
