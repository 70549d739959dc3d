// An empty batch (conv_param_t MB = 0), which FBGEMM accepts and does nothing for: every
// ConvFastPath class (depthwise 2D and 3D, groupwise, pointwise, directconv, im2col
// forward and transposed, 1D to 3D) through fbgemmConv, and the path entry points
// (depthwise_2d_same_pad, depthwise_3d_same_pad, fbgemmGroupwiseConv, fbgemmDirectConv,
// PackAWithIm2Col with fbgemmPacked) leave the output untouched, with real buffers and
// with null data pointers. A negative batch is still rejected.
#include <gtest/gtest.h>

#include <vector>

#include "conv_test_util.h"

namespace quire::test {
namespace {

using Gran = QuantizationGranularity;
using Path = optimized_conv_t;

constexpr uint8_t kSentinel = 0xA5;

template <int D>
struct EmptyCase {
  conv_param_t<D> p;
  Path path;
};

// Runs fbgemmConv on every supported ISA with a sentinel-filled output, then with null
// data pointers; the output must keep its sentinel.
template <int D>
void check_fbgemm_conv(const EmptyCase<D>& k) {
  SCOPED_TRACE(k.p.toString());
  EXPECT_EQ(k.path, ConvFastPath(k.p));
  const std::vector<int8_t> W(static_cast<size_t>(k.p.OC) * kernel_prod(k.p) * (k.p.IC / k.p.G), 1);
  const std::vector<uint8_t> A(16, 7);
  const std::vector<int32_t> b_zp(k.p.OC, 3), col(k.p.OC, 0), bias(k.p.OC, 5);
  const std::vector<float> mult(k.p.OC, 0.5f), scale(k.p.OC, 1.0f);
  for (const IsaCase& isa : all_isas()) {
    if (skip_unsupported(isa)) continue;
    ScopedIsa scoped(isa.isa);
    PackWeightsForConv<D> w(k.p, W.data());
    std::vector<uint8_t> out(64, kSentinel);
    std::vector<int32_t> buffer(64, -1);
    DoNothing<> done;
    ReQuantizeOutput<true, Gran::OUT_CHANNEL> op(done, mult.data(), 10, 20, b_zp.data(), nullptr,
                                                 col.data(), bias.data(), k.p.OC, k.p.G);
    for (int t = 0; t < 2; ++t) {
      EXPECT_EQ(0, fbgemmConv(k.p, A.data(), w, out.data(), buffer.data(), op, t, 2));
      EXPECT_EQ(0, fbgemmConv(k.p, static_cast<const uint8_t*>(nullptr), w,
                              static_cast<uint8_t*>(nullptr), nullptr, op, t, 2));
    }
    EXPECT_EQ(std::vector<uint8_t>(64, kSentinel), out) << instSetName(isa.isa);
    EXPECT_EQ(std::vector<int32_t>(64, -1), buffer) << instSetName(isa.isa);
    // A float pipeline takes the GEMM paths.
    std::vector<float> fout(16, -3.0f);
    DoNothing<float, float> fdone;
    ReQuantizeForFloat<false, Gran::OUT_CHANNEL> fop(fdone, 0.1f, scale.data(), 20, b_zp.data(),
                                                     nullptr, col.data(), nullptr, k.p.OC, k.p.G);
    EXPECT_EQ(0, fbgemmConv(k.p, A.data(), w, fout.data(), reinterpret_cast<int32_t*>(fout.data()),
                            fop, 0, 1));
    EXPECT_EQ(std::vector<float>(16, -3.0f), fout);
  }
}

TEST(EmptyBatch, EveryFastPathClass2D) {
  using P = conv_param_t<2>;
  const EmptyCase<2> cases[] = {
      {P(0, 32, 32, {7, 9}, 32, {3, 3}, {1, 1}, {1, 1, 1, 1}), Path::depthwise},
      {P(0, 128, 128, {6, 7}, 32, {3, 3}, {1, 1}, {1, 1, 1, 1}), Path::groupwise},
      {P(0, 24, 20, {5, 7}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}), Path::pointwise},
      {P(0, 16, 16, {3, 5}, 1, {2, 3}, {2, 2}, {0, 0, 0, 0}, {1, 1}, {1, 1}, true), Path::directconv},
      {P(0, 3, 16, {11, 13}, 1, {7, 7}, {2, 2}, {3, 3, 3, 3}), Path::im2col},
      {P(0, 8, 6, {4, 5}, 2, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, {1, 0}, true), Path::im2col},
  };
  for (const EmptyCase<2>& k : cases) check_fbgemm_conv(k);
}

TEST(EmptyBatch, EveryFastPathClass1DAnd3D) {
  check_fbgemm_conv(EmptyCase<1>{conv_param_t<1>(0, 64, 64, {13}, 16, {3}, {1}, {1, 1}), Path::groupwise});
  check_fbgemm_conv(EmptyCase<1>{conv_param_t<1>(0, 8, 8, {11}, 8, {3}, {2}, {1, 0}), Path::im2col});
  using P3 = conv_param_t<3>;
  check_fbgemm_conv(EmptyCase<3>{P3(0, 24, 24, {3, 5, 4}, 24, {3, 3, 3}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}),
                                 Path::depthwise});
  check_fbgemm_conv(EmptyCase<3>{P3(0, 8, 12, {3, 3, 4}, 1, {1, 1, 1}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}),
                                 Path::pointwise});
  check_fbgemm_conv(EmptyCase<3>{P3(0, 6, 4, {3, 4, 3}, 2, {2, 3, 2}, {1, 1, 2}, {1, 1, 0, 0, 1, 1}),
                                 Path::im2col});
}

TEST(EmptyBatch, PathEntryPoints) {
  const std::vector<int32_t> b_zp(64, 2), col(64, 0);
  const std::vector<float> mult(64, 0.25f);
  std::vector<uint8_t> out(32, kSentinel);
  const std::vector<uint8_t> A(32, 9);
  DoNothing<> done;

  const std::vector<int8_t> dw(32 * 9, 1);
  PackedDepthWiseConvMatrix dw_packed(32, 9, dw.data());
  depthwise_2d_same_pad<Gran::TENSOR>(0, 7, 9, 32, 32, 1, 1, 4, A.data(), b_zp.data(), dw_packed,
                                      mult.data(), 3, out.data(), col.data(),
                                      static_cast<const int32_t*>(nullptr));
  depthwise_2d_same_pad<Gran::TENSOR>(0, 7, 9, 32, 32, 1, 1, 4, nullptr, b_zp.data(), dw_packed,
                                      mult.data(), 3, nullptr, col.data(),
                                      static_cast<const int32_t*>(nullptr));
  const std::vector<int8_t> dw3(32 * 27, 1);
  PackedDepthWiseConvMatrix dw3_packed(32, 27, dw3.data());
  const conv_param_t<3> p3(0, 32, 32, {3, 4, 5}, 32, {3, 3, 3}, {1, 1, 1}, {1, 1, 1, 1, 1, 1});
  depthwise_3d_same_pad<Gran::OUT_CHANNEL>(p3, 4, nullptr, b_zp.data(), dw3_packed, mult.data(), 3,
                                           nullptr, col.data(), static_cast<const int32_t*>(nullptr));

  const conv_param_t<2> pg(0, 32, 32, {5, 5}, 4, {3, 3}, {1, 1}, {1, 1, 1, 1});
  const std::vector<int8_t> wg(32 * 9 * 8, 1);
  PackWeightMatrixForGConv<int8_t, int32_t, 2> g_packed(matrix_op_t::Transpose, pg, wg.data());
  ReQuantizeOutput<false, Gran::GROUP> gop(done, mult.data(), 3, 4, b_zp.data(), nullptr,
                                           col.data(), nullptr, 32, 4);
  fbgemmGroupwiseConv(pg, A.data(), 4, nullptr, g_packed, out.data(), nullptr, gop, 0, 1);
  fbgemmGroupwiseConv(pg, static_cast<const uint8_t*>(nullptr), 4, nullptr, g_packed,
                      static_cast<uint8_t*>(nullptr), nullptr, gop, 0, 1);

  const conv_param_t<2> pt(0, 16, 16, {3, 5}, 1, {2, 3}, {2, 2}, {0, 0, 0, 0}, {1, 1}, {1, 1}, true);
  const std::vector<int8_t> wt(16 * 6 * 16, 1);
  PackedDirectConvMatrix t_packed(16, 16, 6, wt.data());
  ReQuantizeOutput<false> top(done, mult.data(), 3, 4, b_zp.data(), nullptr, col.data(), nullptr, 16);
  fbgemmDirectConv(pt, A.data(), t_packed, out.data(), nullptr, top,
                   static_cast<const int32_t*>(nullptr), 0, 1);
  fbgemmDirectConv(pt, nullptr, t_packed, nullptr, nullptr, top,
                   static_cast<const int32_t*>(nullptr), 0, 1);
  // The pixel column offsets of an empty first batch are still one image's worth.
  std::vector<int32_t> pixel_col;
  std::vector<int32_t> zp(1, 0);
  t_packed.col_offsets_with_zero_pt_s8acc32_DirectConvT(pt, zp.data(), pixel_col, 16);
  EXPECT_EQ(size_t(pt.OUT_DIM[0]) * pt.OUT_DIM[1] * 16, pixel_col.size());

  const conv_param_t<2> pi(0, 3, 8, {6, 6}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1});
  const std::vector<int8_t> wi(8 * 27, 1);
  PackBMatrix<int8_t> bi(matrix_op_t::Transpose, 27, 8, wi.data(), 27);
  std::vector<int32_t> buffer(8, -1);
  for (const uint8_t* src : {A.data(), static_cast<const uint8_t*>(nullptr)}) {
    PackAWithIm2Col<uint8_t> ai(pi, src, nullptr, 4);
    EXPECT_EQ(0, ai.numRows());
    ReQuantizeOutput<false> iop(done, mult.data(), 3, 4, b_zp.data(), ai.getRowOffsetBuffer(),
                                col.data(), nullptr, 8);
    fbgemmPacked(ai, bi, out.data(), buffer.data(), 8, iop, 0, 1);
  }
  EXPECT_EQ(std::vector<uint8_t>(32, kSentinel), out);
  EXPECT_EQ(std::vector<int32_t>(8, -1), buffer);
}

TEST(EmptyBatch, NegativeBatchStillRejected) {
  EXPECT_INVALID(({"conv_param_t", "MB", "-1"}),
                 conv_param_t<2>(-1, 8, 8, {5, 5}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}));
  const conv_param_t<2> p(0, 8, 8, {5, 5}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1});
  EXPECT_EQ(0, p.MB);
  EXPECT_EQ(5, p.OUT_DIM[0]);
}

}  // namespace
}  // namespace quire::test
