// Every convolution shape FBGEMM's fast paths take (issue 11), exact against the
// reference (quire::ref) on each ISA path this CPU has (one test per path; a path the
// CPU lacks is skipped, naming it) with 1, 2 and 3 threads:
//   - ConvFastPath sends every shape FBGEMM's rule sends to depthwise, groupwise or
//     directconv to the same path (FBGEMM's rule restated below from its source);
//   - depthwise_2d_same_pad with 3x3, 5x5, 7x7 kernels and depthwise_3d_same_pad with
//     3 / 5 / 7 in time by 3x3 / 5x5 / 7x7, channel multiplier 1 and 2, odd channel
//     counts, strides 1 and 2, B zero points across int32 ([-400, 400] and +-70000);
//   - PackWeightMatrixForGConv + fbgemmGroupwiseConv with 2, 4, 8, 16 channels per
//     group (direct kernel) and shapes the direct kernel does not take (1, 3, 32
//     channels per group, IC/G != OC/G, G = 1: the im2col fallback), 2D and 3D;
//   - fbgemmConv on the new depthwise and groupwise shapes with wide zero points.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "conv_test_util.h"

namespace quire::test {
namespace {

using Gran = QuantizationGranularity;
using Path = optimized_conv_t;

// FBGEMM's choice (src/FbgemmConv.cc and fbgemmOptimizedGConv in src/Fbgemm.cc at the
// reference snapshot), on an AVX-512 CPU (numOfGroupsTogether's vector width).
template <int D>
Path fbgemm_path(const conv_param_t<D>& p) {
  bool dw = p.G == p.IC && (p.OC == p.G || p.OC == 2 * p.G) && p.G % 8 == 0 && D >= 2 &&
            !p.transposed && p.K[D - 2] == p.K[D - 1];
  for (int d = 0; d < D; ++d) {
    dw = dw && (p.stride[d] == 1 || p.stride[d] == 2) && p.dilation[d] == 1 &&
         (p.K[d] == 3 || p.K[d] == 5 || p.K[d] == 7) && p.pad[d] == (p.K[d] - 1) / 2 &&
         p.pad[d] == p.pad[D + d];
  }
  if (dw) return Path::depthwise;
  const int icg = p.IC / p.G, ocg = p.OC / p.G;
  const int together = std::max(64 / ocg / std::max(icg, 4), 1);
  bool gw = D != 1 && icg == ocg && (icg == 2 || icg == 4 || icg == 8 || icg == 16) &&
            p.G >= together && !p.transposed;
  bool hw1 = true, hw2 = true;
  for (int d = 0; d < D; ++d) {
    gw = gw && p.K[d] == 3 && p.pad[d] == 1 && p.pad[D + d] == 1 && p.dilation[d] == 1;
    if (d >= D - 2) hw1 = hw1 && p.stride[d] == 1, hw2 = hw2 && p.stride[d] == 2;
  }
  if (gw && (hw1 || hw2)) return Path::groupwise;
  bool pw = !p.transposed;
  for (int d = 0; d < D; ++d)
    pw = pw && p.K[d] == 1 && p.stride[d] == 1 && p.dilation[d] == 1 && p.pad[d] == 0 &&
         p.pad[D + d] == 0;
  if (pw) return Path::pointwise;
  bool dc = D == 2 && p.transposed && p.G == 1 && p.IC % 8 == 0 && p.OC % 8 == 0 &&
            p.K[0] == 2 && p.K[D - 1] <= 6;
  for (int d = 0; d < D; ++d)
    dc = dc && (p.stride[d] == 1 || p.stride[d] == 2) && p.dilation[d] == 1 && p.pad[d] == 0;
  return dc ? Path::directconv : Path::im2col;
}

template <int D>
void expect_fbgemm_class(const conv_param_t<D>& p, int& fast) {
  const Path f = fbgemm_path(p), q = ConvFastPath(p);
  if (f == Path::im2col) return;  // quire may take a direct kernel there too (same bits)
  ++fast;
  // FBGEMM runs a grouped 1x1 as pointwise; quire's groupwise kernel takes it.
  if (f == Path::pointwise && q == Path::groupwise && fbgemmOptimizedGConv(p)) return;
  EXPECT_EQ(std::string(optimizedConvName(f)), optimizedConvName(q)) << p.toString();
}

TEST(ConvShapes, FbgemmFastPathsKeptOnTheSamePath) {
  int fast = 0;
  for (int k : {1, 2, 3, 5, 7})
    for (int s : {1, 2, 3})
      for (int pad : {0, 1, 2, 3})
        for (int ch : {4, 8, 16, 24})
          for (int kind = 0; kind < 6; ++kind) {
            // depthwise, multiplier 2, groupwise 2 / 4 / 16 per group, dense
            const int cg = kind == 2 ? 2 : kind == 3 ? 4 : 16;
            const int G = kind <= 1 ? ch : kind == 5 ? 1 : 8;
            const int IC = kind <= 1 ? ch : kind == 5 ? ch : G * cg;
            const int OC = kind == 1 ? 2 * ch : IC;
            try {
              expect_fbgemm_class(conv_param_t<2>(1, IC, OC, {9, 10}, G, {k, k}, {s, s},
                                                  {pad, pad, pad, pad}), fast);
              expect_fbgemm_class(conv_param_t<3>(1, IC, OC, {5, 8, 9}, G, {k == 7 ? 3 : k, k, k},
                                                  {1, s, s}, {1, pad, pad, 1, pad, pad}), fast);
              if (k == 2)
                expect_fbgemm_class(conv_param_t<2>(1, IC, OC, {4, 5}, 1, {2, 3}, {s, s},
                                                    {0, 0, pad, pad}, {1, 1}, {0, 0}, true), fast);
            } catch (const std::invalid_argument&) {
              // kernel wider than the padded input, or an invalid transposed shape
            }
          }
  EXPECT_GT(fast, 100);  // the grid reaches FBGEMM's fast paths
}

class ConvShapesIsa : public ::testing::TestWithParam<IsaCase> {
 protected:
  void SetUp() override {
    if (!GetParam().supported)
      GTEST_SKIP() << "needs " << instSetName(GetParam().isa) << " (not on this CPU)";
  }
};

// B zero points: in int8, across a few hundred, far outside.
constexpr std::array<std::array<int, 2>, 3> kZeroPoints = {{{-128, 127}, {-400, 400}, {-70000, 70000}}};

template <Gran Q, class F>
void for_threads(const std::vector<uint8_t>& want, size_t out_size, F call) {
  for (int threads : {1, 2, 3}) {
    std::vector<uint8_t> out(out_size, 0);
    for_each_thread(threads, [&](int t, int n) { call(out.data(), t, n); });
    EXPECT_TRUE(same_bits(want, out)) << "threads=" << threads << " " << gran_name(Q);
  }
}

template <Gran Q, int D, class F>
void depthwise_case(const conv_param_t<D>& p, uint32_t seed, F run) {
  const ConvProblem<D> c(p, 100 + static_cast<int>(seed % 50), seed);
  const std::vector<int8_t>& W = c.W;  // OC x taps: the KRSC weights when G == IC
  const PackedDepthWiseConvMatrix Bp(p.OC, kernel_prod(p), W.data());
  // Each zero-point range with one bias kind (none, int32 with ReLU, float).
  const BiasKind kinds[] = {BiasKind::none, BiasKind::i32, BiasKind::f32};
  for (size_t i = 0; i < kZeroPoints.size(); ++i) {
    const auto& zp = kZeroPoints[i];
    const BiasKind bk = kinds[(i + seed) % 3];
    const Requant<D> rq(c, Q, bk == BiasKind::i32, bk, false, seed + 7, zp[0], zp[1]);
    SCOPED_TRACE(p.toString() + " zp range " + std::to_string(zp[1]) + " bias " +
                 std::to_string(static_cast<int>(bk)));
    for_threads<Q>(rq.want, rq.want.size(), [&](uint8_t* out, int t, int n) {
      if (bk == BiasKind::f32)
        run(c, rq, Bp, rq.bias_f32.data(), out, t, n);
      else
        run(c, rq, Bp, bk == BiasKind::i32 ? rq.bias_i32.data() : nullptr, out, t, n);
    });
  }
}

template <Gran Q>
void depthwise_2d_shapes() {
  uint32_t seed = 1;
  for (int k : {3, 5, 7})
    for (int mult : {1, 2})
      for (int ch : {1, 3, 17, 63, 65})
        for (int s : {1, 2}) {
          const int pad = (k - 1) / 2;
          const conv_param_t<2> p(s == 1 ? 2 : 1, ch, mult * ch, {5 + s, 4 + k}, ch, {k, k}, {s, s},
                                  {pad, pad, pad, pad});
          depthwise_case<Q>(p, ++seed, [&](const ConvProblem<2>& c, const Requant<2>& rq,
                                           const PackedDepthWiseConvMatrix& Bp, const auto* bias,
                                           uint8_t* out, int t, int n) {
            depthwise_2d_same_pad<Q>(p.MB, p.IN_DIM[0], p.IN_DIM[1], p.IC, p.OC, s, s, c.a_zp,
                                     c.A.data(), rq.b_zp.data(), Bp, rq.multiplier.data(), rq.c_zp,
                                     out, rq.col_offsets.data(), bias, rq.relu,
                                     rq.act_w_scale.data(), t, n);
          });
        }
}

TEST_P(ConvShapesIsa, DepthwiseSamePad2D) {
  ScopedIsa isa(GetParam().isa);
  depthwise_2d_shapes<Gran::TENSOR>();
  depthwise_2d_shapes<Gran::GROUP>();
  depthwise_2d_shapes<Gran::OUT_CHANNEL>();
}

TEST_P(ConvShapesIsa, DepthwiseSamePad3D) {
  ScopedIsa isa(GetParam().isa);
  uint32_t seed = 500;
  const std::array<std::array<int, 3>, 5> kernels = {{{3, 3, 3}, {3, 5, 5}, {5, 3, 3}, {5, 5, 5}, {7, 7, 7}}};
  for (const auto& k : kernels)
    for (int mult : {1, 2})
      for (int ch : {3, 17, 65}) {
        const int pt = (k[0] - 1) / 2, ps = (k[1] - 1) / 2;
        const conv_param_t<3> p(1, ch, mult * ch, {3, 4, 5}, ch, k, {1, 2, 1}, {pt, ps, ps, pt, ps, ps});
        depthwise_case<Gran::OUT_CHANNEL>(
            p, ++seed, [&](const ConvProblem<3>& c, const Requant<3>& rq,
                           const PackedDepthWiseConvMatrix& Bp, const auto* bias, uint8_t* out, int t,
                           int n) {
              depthwise_3d_same_pad<Gran::OUT_CHANNEL>(p, c.a_zp, c.A.data(), rq.b_zp.data(), Bp,
                                                      rq.multiplier.data(), rq.c_zp, out,
                                                      rq.col_offsets.data(), bias, rq.relu,
                                                      rq.act_w_scale.data(), t, n);
            });
      }
}

// fbgemmGroupwiseConv through PackWeightMatrixForGConv (KRSC source), GROUP and
// OUT_CHANNEL granularity, with and without the caller's int32 buffer.
template <int D>
void groupwise_case(const conv_param_t<D>& p, uint32_t seed) {
  SCOPED_TRACE(p.toString() + (fbgemmOptimizedGConv(p) ? " (direct)" : " (fallback)"));
  const ConvProblem<D> c(p, 60, seed);
  PackWeightMatrixForGConv<int8_t, int32_t, D> W(matrix_op_t::Transpose, p, c.W.data());
  for (const auto& zp : kZeroPoints) {
    const Requant<D> rg(c, Gran::GROUP, true, BiasKind::i32, false, seed + 1, zp[0], zp[1]);
    const Requant<D> ro(c, Gran::OUT_CHANNEL, false, BiasKind::f32, false, seed + 2, zp[0], zp[1]);
    for (bool own_buffer : {false, true}) {
      std::vector<int32_t> buffer(own_buffer ? c.C32.size() : 0);
      for_threads<Gran::GROUP>(rg.want, rg.want.size(), [&](uint8_t* out, int t, int n) {
        DoNothing<> done;
        ReQuantizeOutput<true, Gran::GROUP> op(done, rg.multiplier.data(), rg.c_zp, c.a_zp,
                                               rg.b_zp.data(), nullptr, rg.col_offsets.data(),
                                               rg.bias_i32.data(), p.OC, p.G);
        fbgemmGroupwiseConv(p, c.A.data(), c.a_zp, nullptr, W, out,
                            own_buffer ? buffer.data() : nullptr, op, t, n);
      });
      for_threads<Gran::OUT_CHANNEL>(ro.want, ro.want.size(), [&](uint8_t* out, int t, int n) {
        DoNothing<> done;
        ReQuantizeOutput<false, Gran::OUT_CHANNEL, float> op(
            done, ro.multiplier.data(), ro.c_zp, c.a_zp, ro.b_zp.data(), nullptr,
            ro.col_offsets.data(), ro.bias_f32.data(), p.OC, p.G, ro.act_w_scale.data());
        fbgemmGroupwiseConv(p, c.A.data(), c.a_zp, nullptr, W, out,
                            own_buffer ? buffer.data() : nullptr, op, t, n);
      });
    }
  }
}

TEST_P(ConvShapesIsa, GroupwiseEveryShape) {
  ScopedIsa isa(GetParam().isa);
  using P2 = conv_param_t<2>;
  using P3 = conv_param_t<3>;
  uint32_t seed = 900;
  // Direct kernel: 2, 4, 8, 16 channels per group, odd group counts.
  for (int cg : {2, 4, 8, 16})
    for (int G : {3, 8, 17}) {
      groupwise_case(P2(2, G * cg, G * cg, {5, 6}, G, {3, 3}, {1, 1}, {1, 1, 1, 1}), ++seed);
      groupwise_case(P2(1, G * cg, G * cg, {7, 6}, G, {3, 3}, {2, 2}, {1, 1, 1, 1}), ++seed);
    }
  groupwise_case(P3(1, 64, 64, {3, 4, 5}, 32, {3, 3, 3}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}), ++seed);
  // 4 per group on AVX-512 runs in blocks of 64 channels: two whole blocks (ResNeXt's
  // 128), and two whole plus a partial one, with a batch, strides and uneven pads.
  groupwise_case(P2(1, 128, 128, {6, 7}, 32, {3, 3}, {1, 1}, {1, 1, 1, 1}), ++seed);
  groupwise_case(P2(2, 132, 132, {5, 4}, 33, {3, 3}, {2, 1}, {0, 1, 1, 0}), ++seed);
  groupwise_case(P2(1, 8, 8, {5, 4}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}), ++seed);   // G = 1, 8 channels
  groupwise_case(P2(2, 16, 16, {6, 5}, 1, {3, 3}, {2, 2}, {1, 1, 1, 1}), ++seed);  // G = 1, 16
  // Fallback (im2col): shapes FBGEMM packs but its kernel does not take.
  groupwise_case(P2(1, 12, 12, {5, 6}, 4, {3, 3}, {1, 1}, {1, 1, 1, 1}), ++seed);     // 3 per group
  groupwise_case(P2(2, 8, 8, {5, 5}, 8, {3, 3}, {1, 1}, {1, 1, 1, 1}), ++seed);       // 1 per group
  groupwise_case(P2(1, 64, 64, {4, 5}, 2, {3, 3}, {2, 1}, {1, 0, 1, 2}), ++seed);     // 32 per group
  groupwise_case(P2(1, 16, 32, {5, 4}, 4, {3, 3}, {1, 1}, {1, 1, 1, 1}), ++seed);     // IC/G != OC/G
  groupwise_case(P2(1, 4, 4, {5, 4}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}), ++seed);       // G = 1
  groupwise_case(P3(1, 20, 20, {3, 4, 4}, 4, {3, 3, 3}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}), ++seed);
}

// fbgemmConv (PackWeightsForConv) on the new shapes with B zero points outside int8.
template <int D>
void fbgemm_conv_case(const conv_param_t<D>& p, Path path, uint32_t seed) {
  SCOPED_TRACE(p.toString());
  EXPECT_EQ(std::string(optimizedConvName(path)), optimizedConvName(ConvFastPath(p)));
  const ConvProblem<D> c(p, 33, seed);
  PackWeightsForConv<D> W(p, c.W.data());
  const Requant<D> rq(c, Gran::OUT_CHANNEL, true, BiasKind::i32, false, seed + 1, -400, 400);
  std::vector<int32_t> buffer(c.C32.size());
  for_threads<Gran::OUT_CHANNEL>(rq.want, rq.want.size(), [&](uint8_t* out, int t, int n) {
    DoNothing<> done;
    ReQuantizeOutput<true, Gran::OUT_CHANNEL> op(done, rq.multiplier.data(), rq.c_zp, c.a_zp,
                                                 rq.b_zp.data(), nullptr, rq.col_offsets.data(),
                                                 rq.bias_i32.data(), p.OC, p.G);
    fbgemmConv(p, c.A.data(), W, out, buffer.data(), op, t, n);
  });
}

TEST_P(ConvShapesIsa, FbgemmConvNewShapes) {
  ScopedIsa isa(GetParam().isa);
  using P2 = conv_param_t<2>;
  using P3 = conv_param_t<3>;
  fbgemm_conv_case(P2(1, 96, 96, {9, 8}, 96, {7, 7}, {1, 1}, {3, 3, 3, 3}), Path::depthwise, 1);
  fbgemm_conv_case(P2(2, 24, 48, {7, 7}, 24, {3, 3}, {2, 2}, {1, 1, 1, 1}), Path::depthwise, 2);
  fbgemm_conv_case(P2(1, 72, 144, {6, 6}, 72, {5, 5}, {1, 1}, {2, 2, 2, 2}), Path::depthwise, 3);
  fbgemm_conv_case(P3(1, 32, 32, {5, 4, 4}, 32, {5, 3, 3}, {1, 1, 1}, {2, 1, 1, 2, 1, 1}),
                   Path::depthwise, 4);
  fbgemm_conv_case(P3(1, 16, 32, {3, 5, 5}, 16, {3, 5, 5}, {1, 1, 1}, {1, 2, 2, 1, 2, 2}),
                   Path::depthwise, 5);
  fbgemm_conv_case(P2(1, 64, 64, {7, 7}, 32, {3, 3}, {1, 1}, {1, 1, 1, 1}), Path::groupwise, 6);
  fbgemm_conv_case(P3(1, 32, 32, {3, 5, 4}, 16, {3, 3, 3}, {1, 2, 2}, {1, 1, 1, 1, 1, 1}),
                   Path::groupwise, 7);
}

INSTANTIATE_TEST_SUITE_P(AllPaths, ConvShapesIsa, ::testing::ValuesIn(all_isas()),
                         [](const auto& info) { return std::string(instSetName(info.param.isa)); });

}  // namespace
}  // namespace quire::test
