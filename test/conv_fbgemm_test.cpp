// fbgemmConv end to end, requantized to uint8, against the direct reference convolution
// and ReQuantizeOutput's formula (ref::conv_requantize_u8), bit for bit, on every ISA
// path this CPU has and with 1, 2 and 3 threads. Each shape states the path its
// documentation (quire/ConvFastPath.h) promises, and the test checks ConvFastPath and
// conv_path_taken say so: depthwise 3x3 / 5x5 / 7x7 / 3D (3 or 5 in time by 3x3 or 5x5)
// with channel multiplier 1 and 2, strides 1 to 3, pads 0 to 3 (asymmetric), channel
// counts with vector tails; groupwise with 2, 4, 8 and 16 channels per group, 1D to 3D,
// strides, dilation, odd channel totals; pointwise; directconv (transposed 2 x K
// kernels, per-pixel column offsets); im2col for the rest (dilated depthwise, other
// transposed shapes). Requantization covers TENSOR, GROUP and
// OUT_CHANNEL, ReLU on and off, no / int32 / float bias, symmetric and asymmetric B.
// ReQuantizeForFloat pipelines take the GEMM for depthwise, groupwise and directconv shapes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "conv_test_util.h"
#include "quire/ref/ReferenceOutput.h"

namespace quire::test {
namespace {

using Gran = QuantizationGranularity;
using Path = optimized_conv_t;

template <int D>
struct Shape {
  conv_param_t<D> p;
  Path path;
};

std::vector<Shape<2>> shapes2d() {
  using P = conv_param_t<2>;
  return {
      // depthwise
      {P(1, 32, 32, {7, 9}, 32, {3, 3}, {1, 1}, {1, 1, 1, 1}), Path::depthwise},
      {P(3, 40, 40, {5, 6}, 40, {3, 3}, {2, 2}, {1, 0, 2, 1}), Path::depthwise},
      {P(1, 72, 72, {9, 7}, 72, {3, 3}, {2, 1}, {0, 0, 0, 0}), Path::depthwise},
      {P(1, 136, 136, {6, 5}, 136, {5, 5}, {1, 1}, {2, 2, 2, 2}), Path::depthwise},
      {P(2, 8, 8, {11, 10}, 8, {5, 5}, {3, 2}, {1, 2, 0, 1}), Path::depthwise},
      {P(1, 8, 8, {5, 4}, 8, {7, 7}, {1, 1}, {3, 3, 3, 3}), Path::depthwise},
      {P(2, 65, 65, {9, 8}, 65, {7, 7}, {2, 1}, {3, 2, 3, 1}), Path::depthwise},
      // depthwise, channel multiplier 2 (OC = 2 IC)
      {P(1, 32, 64, {6, 7}, 32, {3, 3}, {1, 1}, {1, 1, 1, 1}), Path::depthwise},
      {P(2, 17, 34, {5, 6}, 17, {5, 5}, {2, 1}, {2, 2, 2, 2}), Path::depthwise},
      {P(1, 40, 80, {8, 9}, 40, {7, 7}, {2, 2}, {3, 3, 3, 3}), Path::depthwise},
      {P(1, 3, 6, {4, 5}, 3, {3, 3}, {1, 1}, {0, 1, 1, 0}), Path::depthwise},
      // groupwise
      {P(1, 128, 128, {6, 7}, 32, {3, 3}, {1, 1}, {1, 1, 1, 1}), Path::groupwise},
      {P(2, 32, 32, {7, 5}, 4, {3, 3}, {2, 1}, {1, 0, 0, 2}), Path::groupwise},
      {P(1, 32, 32, {5, 5}, 2, {3, 3}, {1, 1}, {1, 1, 1, 1}, {2, 2}), Path::groupwise},
      {P(1, 12, 12, {4, 6}, 3, {1, 1}, {1, 1}, {0, 0, 0, 0}), Path::groupwise},
      {P(1, 40, 40, {6, 4}, 5, {5, 3}, {2, 2}, {2, 1, 2, 1}), Path::groupwise},
      {P(1, 64, 64, {7, 6}, 32, {3, 3}, {1, 1}, {1, 1, 1, 1}), Path::groupwise},
      {P(2, 34, 34, {5, 7}, 17, {3, 3}, {2, 2}, {1, 1, 1, 1}), Path::groupwise},
      {P(1, 6, 6, {4, 5}, 3, {1, 3}, {1, 2}, {0, 1, 0, 2}), Path::groupwise},
      // pointwise
      {P(2, 24, 20, {5, 7}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}), Path::pointwise},
      {P(1, 6, 10, {3, 5}, 2, {1, 1}, {1, 1}, {0, 0, 0, 0}), Path::pointwise},
      // im2col
      {P(1, 3, 16, {11, 13}, 1, {7, 7}, {2, 2}, {3, 3, 3, 3}), Path::im2col},
      {P(1, 16, 16, {7, 7}, 16, {3, 3}, {1, 1}, {2, 2, 2, 2}, {2, 2}), Path::im2col},
      {P(1, 16, 24, {6, 6}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}), Path::im2col},
      {P(1, 24, 24, {6, 5}, 8, {3, 3}, {1, 1}, {1, 1, 1, 1}), Path::im2col},
      {P(1, 8, 6, {4, 5}, 2, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, {1, 0}, true), Path::im2col},
      {P(2, 4, 4, {5, 5}, 1, {1, 1}, {2, 2}, {0, 0, 0, 0}), Path::im2col},
      // directconv (its col_offsets are per output pixel, see run_conv)
      {P(1, 16, 24, {3, 7}, 1, {2, 3}, {2, 2}, {0, 0, 1, 0}, {1, 1}, {1, 0}, true), Path::directconv},
      {P(2, 8, 8, {4, 5}, 1, {2, 6}, {1, 2}, {0, 0, 0, 0}, {1, 1}, {0, 1}, true), Path::directconv},
  };
}

std::vector<Shape<3>> shapes3d() {
  using P = conv_param_t<3>;
  return {
      {P(1, 24, 24, {3, 5, 4}, 24, {3, 3, 3}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}), Path::depthwise},
      {P(2, 72, 72, {4, 3, 5}, 72, {3, 3, 3}, {2, 1, 2}, {1, 0, 1, 0, 1, 1}), Path::depthwise},
      {P(1, 24, 24, {3, 5, 6}, 24, {3, 5, 5}, {1, 1, 1}, {1, 2, 2, 1, 2, 2}), Path::depthwise},
      {P(1, 17, 17, {5, 4, 3}, 17, {5, 3, 3}, {1, 1, 2}, {2, 1, 1, 2, 1, 1}), Path::depthwise},
      {P(1, 16, 32, {3, 4, 5}, 16, {3, 3, 3}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}), Path::depthwise},
      {P(1, 8, 16, {5, 5, 5}, 8, {5, 5, 5}, {2, 1, 1}, {2, 2, 2, 2, 2, 2}), Path::depthwise},
      {P(1, 16, 16, {3, 4, 4}, 8, {3, 3, 3}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}), Path::groupwise},
      {P(1, 32, 32, {3, 4, 4}, 8, {3, 3, 3}, {1, 2, 1}, {1, 1, 1, 1, 1, 1}), Path::groupwise},
      {P(1, 8, 12, {3, 3, 4}, 1, {1, 1, 1}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}), Path::pointwise},
      {P(1, 6, 4, {3, 4, 3}, 2, {2, 3, 2}, {1, 1, 2}, {1, 1, 0, 0, 1, 1}), Path::im2col},
  };
}

std::vector<Shape<1>> shapes1d() {
  using P = conv_param_t<1>;
  return {
      {P(2, 64, 64, {13}, 16, {3}, {1}, {1, 1}), Path::groupwise},
      {P(1, 16, 8, {9}, 1, {1}, {1}, {0, 0}), Path::pointwise},
      {P(3, 8, 8, {11}, 8, {3}, {2}, {1, 0}), Path::im2col},
  };
}

struct RequantConfig {
  Gran gran;
  bool relu;
  BiasKind bias;
  bool b_symmetric;
};

const RequantConfig kConfigs[] = {
    {Gran::TENSOR, false, BiasKind::none, false},
    {Gran::OUT_CHANNEL, true, BiasKind::i32, false},
    {Gran::GROUP, false, BiasKind::f32, true},
    {Gran::OUT_CHANNEL, false, BiasKind::f32, false},
};

template <bool RELU, Gran Q, class BiasT, int D>
std::vector<uint8_t> run_conv(const ConvProblem<D>& c, const Requant<D>& rq,
                              PackWeightsForConv<D>& w, int threads, Path expected) {
  using Op = ReQuantizeOutput<RELU, Q, BiasT>;
  EXPECT_EQ(expected, conv_path_taken<Op>(c.p));
  const BiasT* bias = nullptr;
  if constexpr (std::is_same_v<BiasT, float>)
    bias = rq.bias_f32.data();
  else if (rq.bias_kind == BiasKind::i32)
    bias = rq.bias_i32.data();
  // The directconv path takes per-pixel column offsets (quire/DirectConv.h).
  std::vector<int32_t> col = rq.col_offsets;
  if constexpr (D == 2) {
    if (expected == Path::directconv) {
      std::vector<int32_t> b_zp = rq.b_zp;
      PackedDirectConvMatrix(c.p.IC, c.p.OC, kernel_prod(c.p), c.W.data())
          .col_offsets_with_zero_pt_s8acc32_DirectConvT(c.p, b_zp.data(), col,
                                                        c.p.OC / static_cast<int>(b_zp.size()));
    }
  }
  std::vector<uint8_t> out(c.C32.size(), 0);
  std::vector<int32_t> buffer(c.C32.size());
  for_each_thread(threads, [&](int t, int n) {
    DoNothing<> done;
    Op op(done, rq.multiplier.data(), rq.c_zp, c.a_zp, rq.b_zp.data(), nullptr,
          col.data(), bias, c.p.OC, c.p.G, rq.act_w_scale.data());
    fbgemmConv(c.p, c.A.data(), w, out.data(), buffer.data(), op, t, n);
  });
  return out;
}

template <bool RELU, Gran Q, int D>
std::vector<uint8_t> run_bias(const ConvProblem<D>& c, const Requant<D>& rq,
                              PackWeightsForConv<D>& w, int threads, Path expected) {
  if (rq.bias_kind == BiasKind::f32) return run_conv<RELU, Q, float>(c, rq, w, threads, expected);
  return run_conv<RELU, Q, int32_t>(c, rq, w, threads, expected);
}

template <int D>
std::vector<uint8_t> run_config(const ConvProblem<D>& c, const Requant<D>& rq,
                                PackWeightsForConv<D>& w, int threads, Path expected) {
  switch (rq.gran) {
    case Gran::TENSOR:
      return rq.relu ? run_bias<true, Gran::TENSOR>(c, rq, w, threads, expected)
                     : run_bias<false, Gran::TENSOR>(c, rq, w, threads, expected);
    case Gran::GROUP:
      return rq.relu ? run_bias<true, Gran::GROUP>(c, rq, w, threads, expected)
                     : run_bias<false, Gran::GROUP>(c, rq, w, threads, expected);
    case Gran::OUT_CHANNEL:
      break;
  }
  return rq.relu ? run_bias<true, Gran::OUT_CHANNEL>(c, rq, w, threads, expected)
                 : run_bias<false, Gran::OUT_CHANNEL>(c, rq, w, threads, expected);
}

template <int D>
void check_shapes(const std::vector<Shape<D>>& shapes, uint32_t seed) {
  for (const Shape<D>& s : shapes) {
    SCOPED_TRACE(s.p.toString());
    EXPECT_EQ(s.path, ConvFastPath(s.p)) << "ConvFastPath says " << optimizedConvName(ConvFastPath(s.p));
    const ConvProblem<D> c(s.p, 113, ++seed);
    std::vector<Requant<D>> requants;
    for (const RequantConfig& k : kConfigs)
      requants.emplace_back(c, k.gran, k.relu, k.bias, k.b_symmetric, ++seed);
    for (const IsaCase& isa : all_isas()) {
      if (skip_unsupported(isa)) continue;
      ScopedIsa scoped(isa.isa);
      SCOPED_TRACE(instSetName(isa.isa));
      PackWeightsForConv<D> w(s.p, c.W.data());
      EXPECT_EQ(s.path, w.path());
      for (const Requant<D>& rq : requants) {
        SCOPED_TRACE(std::string(gran_name(rq.gran)) + " relu=" + std::to_string(rq.relu) +
                     " bias=" + std::to_string(static_cast<int>(rq.bias_kind)));
        for (int threads : {1, 2, 3}) {
          SCOPED_TRACE("threads=" + std::to_string(threads));
          EXPECT_TRUE(same_bits(rq.want, run_config(c, rq, w, threads, s.path)));
        }
      }
    }
  }
}

TEST(FbgemmConv, Paths2D) { check_shapes(shapes2d(), 1000); }

// The documented choice (quire/ConvFastPath.h), restated as the test's oracle.
template <int D>
Path documented_path(const conv_param_t<D>& p) {
  bool k1 = true, unit_dilation = true, plain = !p.transposed;
  for (int d = 0; d < D; ++d) {
    k1 = k1 && p.K[d] == 1;
    unit_dilation = unit_dilation && p.dilation[d] == 1;
    plain = plain && p.stride[d] == 1 && p.pad[d] == 0 && p.pad[D + d] == 0;
  }
  const int icg = p.IC / p.G;
  bool dw_kernel = D >= 2 && p.K[D - 2] == p.K[D - 1];
  for (int d = 0; d < D; ++d) dw_kernel = dw_kernel && (p.K[d] == 3 || p.K[d] == 5 || p.K[d] == 7);
  if (!p.transposed && p.G == p.IC && (p.OC == p.G || p.OC == 2 * p.G) && unit_dilation &&
      dw_kernel)
    return Path::depthwise;
  bool k3 = true;
  for (int d = 0; d < D; ++d) k3 = k3 && p.K[d] == 3;
  if (!p.transposed && (p.G > 1 || (k3 && icg >= 8)) && icg == p.OC / p.G &&
      (icg == 2 || icg == 4 || icg == 8 || icg == 16))
    return Path::groupwise;
  if (k1 && plain) return Path::pointwise;
  bool direct = D == 2 && p.transposed && p.G == 1 && p.IC % 8 == 0 && p.OC % 8 == 0 &&
                p.K[0] == 2 && p.K[D - 1] <= 6;
  for (int d = 0; d < D; ++d)
    direct = direct && (p.stride[d] == 1 || p.stride[d] == 2) && p.dilation[d] == 1 && p.pad[d] == 0;
  if (direct) return Path::directconv;
  return Path::im2col;
}

// A sampled sweep over the grid: kernels 1, 3, 5, 7; strides 1, 2; pads 0..3
// (asymmetric); dilation 1, 2; groups 1, 2, 4, 32 and depthwise; batch 1 and 3; odd
// sizes; transposed now and then. Each shape runs with the path its documentation
// promises, on every ISA and with 1, 2 and 3 threads, against the reference.
TEST(FbgemmConv, SampledSweep2D) {
  std::mt19937 rng(2024);
  auto pick = [&](std::initializer_list<int> v) { return *(v.begin() + rng() % v.size()); };
  std::vector<Shape<2>> shapes;
  while (shapes.size() < 48) {
    const int k = pick({1, 3, 5, 7}), k2 = rng() % 4 == 0 ? pick({1, 3, 5}) : k;
    const int stride = pick({1, 2}), dil = k > 1 && rng() % 4 == 0 ? 2 : 1;
    const int kind = static_cast<int>(rng() % 6);  // dense, G=2, G=4, G=32, depthwise, groupwise
    int G = 1, IC = pick({3, 8, 16}), OC = pick({5, 8, 24});
    if (kind == 1) G = 2, IC = 2 * pick({3, 4, 8}), OC = 2 * pick({2, 4, 8});
    if (kind == 2) G = 4, IC = 4 * pick({2, 5}), OC = 4 * pick({3, 4});
    if (kind == 3) G = 32, IC = 32 * pick({1, 2}), OC = 32 * pick({1, 2, 4});
    if (kind == 4) G = IC = pick({16, 40, 72}), OC = G * pick({1, 2});
    if (kind == 5) G = pick({2, 3}), IC = OC = G * pick({2, 4, 8, 16});
    const int MB = pick({1, 3});
    const std::array<int, 4> pad = {static_cast<int>(rng() % 4), static_cast<int>(rng() % 4),
                                    static_cast<int>(rng() % 4), static_cast<int>(rng() % 4)};
    const bool transposed = rng() % 8 == 0;
    const int H = 3 + static_cast<int>(rng() % 6) * 2, W = 4 + static_cast<int>(rng() % 7);
    try {
      if (transposed) {
        const conv_param_t<2> p(MB, IC, OC, {H, W}, G, {k, k2}, {stride, stride}, pad, {dil, dil},
                                {stride - 1, 0}, true);
        shapes.push_back({p, documented_path(p)});
      } else {
        const conv_param_t<2> p(MB, IC, OC, {H, W}, G, {k, k2}, {stride, stride}, pad, {dil, dil});
        shapes.push_back({p, documented_path(p)});
      }
    } catch (const std::invalid_argument&) {
      // kernel wider than the padded input, or no output: draw again
    }
  }
  check_shapes(shapes, 4000);
}
TEST(FbgemmConv, Paths3D) { check_shapes(shapes3d(), 2000); }
TEST(FbgemmConv, Paths1D) { check_shapes(shapes1d(), 3000); }

// Full-range extremes: A = 255 everywhere with a zero point of 0 and B at its extremes,
// so every accumulator is as large as the shape allows.
TEST(FbgemmConv, ExtremeValues) {
  for (const Shape<2>& s : shapes2d()) {
    for (int8_t b : {int8_t{-128}, int8_t{127}}) {
      SCOPED_TRACE(s.p.toString() + " B=" + std::to_string(b));
      ConvProblem<2> c(s.p, 0, 7);
      std::fill(c.A.begin(), c.A.end(), uint8_t{255});
      std::fill(c.W.begin(), c.W.end(), b);
      ref::conv_u8s8s32(c.p, c.A.data(), 0, c.W.data(), c.C32.data());
      ref::conv_row_offsets(c.p, c.A.data(), 0, c.row_offsets.data());
      const Requant<2> rq(c, Gran::OUT_CHANNEL, false, BiasKind::i32, false, 9);
      for (const IsaCase& isa : all_isas()) {
        if (skip_unsupported(isa)) continue;
        ScopedIsa scoped(isa.isa);
        PackWeightsForConv<2> w(s.p, c.W.data());
        EXPECT_TRUE(same_bits(rq.want, run_config(c, rq, w, 2, s.path))) << instSetName(isa.isa);
      }
    }
  }
}

// A float output pipeline runs depthwise and groupwise shapes as GEMMs (conv_path_taken),
// with the weights packed for the GEMM on first use.
TEST(FbgemmConv, FloatOutputTakesTheGemm) {
  for (const Shape<2>& s : shapes2d()) {
    if (s.path != Path::depthwise && s.path != Path::groupwise && s.path != Path::directconv)
      continue;
    SCOPED_TRACE(s.p.toString());
    const ConvProblem<2> c(s.p, 90, 5);
    const Requant<2> rq(c, Gran::OUT_CHANNEL, true, BiasKind::f32, false, 6);
    using Op = ReQuantizeForFloat<true, Gran::OUT_CHANNEL>;
    EXPECT_EQ(takePointWiseFastPath(s.p) ? Path::pointwise : Path::im2col, conv_path_taken<Op>(s.p));
    const float a_scale = 0.02f;
    const int M = static_cast<int>(out_pixels(s.p)), ocg = s.p.OC / s.p.G;
    std::vector<float> want(c.C32.size());
    std::vector<int32_t> group_rows(M);
    for (int g = 0; g < s.p.G; ++g) {
      for (int m = 0; m < M; ++m) group_rows[m] = c.row_offsets[size_t(m) * s.p.G + g];
      ref::QuantParams qp;
      qp.granularity = Gran::OUT_CHANNEL;
      qp.nCol = s.p.OC;
      qp.Aq_zero_point = c.a_zp;
      qp.Bq_zero_point = rq.b_zp.data();
      qp.row_offsets = group_rows.data();
      qp.col_offsets = rq.col_offsets.data();
      ref::requantize_f32(want.data(), c.C32.data() + g * ocg, block_type_t{0, M, g * ocg, ocg},
                          s.p.OC, s.p.OC, qp, a_scale, rq.act_w_scale.data(), rq.bias_f32.data(),
                          true);
    }
    for (const IsaCase& isa : all_isas()) {
      if (skip_unsupported(isa)) continue;
      ScopedIsa scoped(isa.isa);
      PackWeightsForConv<2> w(s.p, c.W.data());
      std::vector<float> got(c.C32.size(), -1.0f);
      for_each_thread(3, [&](int t, int n) {
        DoNothing<float, float> done;
        Op op(done, a_scale, rq.act_w_scale.data(), c.a_zp, rq.b_zp.data(), nullptr,
              rq.col_offsets.data(), rq.bias_f32.data(), s.p.OC, s.p.G);
        fbgemmConv(s.p, c.A.data(), w, got.data(), reinterpret_cast<int32_t*>(got.data()), op, t, n);
      });
      EXPECT_TRUE(same_bits(want, got)) << instSetName(isa.isa);
    }
  }
}

}  // namespace
}  // namespace quire::test
