// Transposed convolutions: the direct path (PackedDirectConvMatrix, fbgemmDirectConv, and
// fbgemmConv where ConvFastPath picks directconv) against the reference transposed
// convolution (quire::ref, direct loops) and ReQuantizeOutput's formula, bit for bit:
// odd sizes (IN_DIM 1, 3, 7, 17), odd and multiple-of-8 channels, kernels 1 to 6,
// strides 1 and 2, pads 0 and 1 (asymmetric), output_pad, batch 1 and 2, TENSOR and
// OUT_CHANNEL, ReLU on and off, no / int32 / float bias, symmetric and asymmetric B, on
// every ISA path this CPU has and with 1, 2 and 3 threads. Also: the path rule (FBGEMM's,
// restated here), the per-pixel column offsets against FBGEMM's formula, the GEMM
// fallback for other pipelines, unpacking, full-range extremes and bad arguments.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "conv_test_util.h"
#include "quire/ref/ReferenceOutput.h"

namespace quire::test {
namespace {

using Gran = QuantizationGranularity;
using Path = optimized_conv_t;
using P2 = conv_param_t<2>;

P2 transposed(int mb, int ic, int oc, std::array<int, 2> in, std::array<int, 2> k,
              std::array<int, 2> stride, std::array<int, 4> pad, std::array<int, 2> out_pad = {0, 0}) {
  return P2(mb, ic, oc, in, 1, k, stride, pad, {1, 1}, out_pad, true);
}

// Shapes for the direct entry point (any transposed G = 1 shape).
std::vector<P2> direct_shapes() {
  return {
      transposed(1, 8, 8, {2, 4}, {2, 6}, {1, 2}, {0, 0, 0, 0}),
      transposed(1, 16, 24, {4, 12}, {2, 6}, {1, 1}, {0, 0, 0, 0}),
      transposed(2, 3, 5, {3, 7}, {2, 3}, {2, 2}, {0, 0, 0, 0}, {1, 1}),
      transposed(1, 17, 9, {7, 3}, {3, 3}, {2, 1}, {1, 1, 1, 0}),
      transposed(1, 5, 3, {1, 1}, {1, 5}, {1, 2}, {0, 0, 0, 0}),
      transposed(2, 8, 16, {3, 17}, {2, 4}, {2, 2}, {0, 0, 1, 1}, {1, 0}),
      transposed(1, 64, 8, {1, 17}, {4, 2}, {1, 2}, {1, 0, 0, 1}, {0, 1}),
      transposed(1, 7, 13, {17, 1}, {5, 1}, {2, 1}, {0, 0, 1, 0}),
      transposed(1, 12, 7, {3, 3}, {1, 1}, {1, 1}, {0, 0, 0, 0}),
      transposed(1, 136, 40, {2, 65}, {2, 2}, {1, 2}, {0, 0, 0, 0}),
      // output_pad at or past the stride: trailing rows and columns no input reaches.
      transposed(1, 8, 8, {3, 5}, {2, 4}, {1, 1}, {0, 0, 0, 0}, {1, 2}),
      transposed(2, 9, 5, {4, 3}, {2, 3}, {2, 1}, {1, 0, 0, 1}, {3, 1}),
  };
}

// Shapes ConvFastPath sends to directconv (FBGEMM's test shapes among them).
std::vector<P2> directconv_shapes() {
  return {
      transposed(1, 256, 176, {2, 4}, {2, 6}, {1, 2}, {0, 0, 0, 0}),
      transposed(1, 128, 128, {4, 12}, {2, 6}, {1, 1}, {0, 0, 0, 0}),
      transposed(2, 8, 16, {3, 7}, {2, 3}, {2, 2}, {0, 0, 0, 0}, {1, 1}),
      transposed(1, 24, 8, {7, 17}, {2, 1}, {2, 1}, {0, 0, 1, 0}, {1, 0}),
      transposed(3, 16, 32, {1, 3}, {2, 5}, {1, 2}, {0, 0, 1, 2}),
  };
}

struct Config {
  Gran gran;
  bool relu;
  BiasKind bias;
  bool b_symmetric;
};
const Config kConfigs[] = {
    {Gran::TENSOR, false, BiasKind::none, false},
    {Gran::OUT_CHANNEL, true, BiasKind::i32, false},
    {Gran::TENSOR, true, BiasKind::f32, true},
    {Gran::OUT_CHANNEL, false, BiasKind::f32, false},
};

// The per-pixel column offsets of one requantization, from a fresh matrix (the offsets
// are made once per matrix, and each configuration has its own B zero points).
template <int D>
std::vector<int32_t> pixel_col_offsets(const ConvProblem<D>& c, const Requant<D>& rq) {
  PackedDirectConvMatrix m(c.p.IC, c.p.OC, kernel_prod(c.p), c.W.data());
  std::vector<int32_t> col;
  std::vector<int32_t> b_zp = rq.b_zp;
  m.col_offsets_with_zero_pt_s8acc32_DirectConvT(c.p, b_zp.data(), col,
                                                 rq.gran == Gran::OUT_CHANNEL ? 1 : c.p.OC);
  return col;
}

// Runs one requantization through fbgemmDirectConv (direct = true) or fbgemmConv.
template <bool RELU, Gran Q, class BiasT, int D>
std::vector<uint8_t> run(const ConvProblem<D>& c, const Requant<D>& rq, const int32_t* col,
                         PackedDirectConvMatrix* m, PackWeightsForConv<D>* w, int threads) {
  const BiasT* bias = nullptr;
  if constexpr (std::is_same_v<BiasT, float>)
    bias = rq.bias_f32.data();
  else if (rq.bias_kind == BiasKind::i32)
    bias = rq.bias_i32.data();
  std::vector<uint8_t> out(c.C32.size(), 0);
  std::vector<int32_t> buffer(c.C32.size());
  for_each_thread(threads, [&](int t, int n) {
    DoNothing<> done;
    ReQuantizeOutput<RELU, Q, BiasT> op(done, rq.multiplier.data(), rq.c_zp, c.a_zp,
                                        rq.b_zp.data(), nullptr, col, bias, c.p.OC, 1,
                                        rq.act_w_scale.data());
    if (m != nullptr)
      fbgemmDirectConv(c.p, c.A.data(), *m, out.data(), buffer.data(), op, bias, t, n);
    else
      fbgemmConv(c.p, c.A.data(), *w, out.data(), buffer.data(), op, t, n);
  });
  return out;
}

template <int D>
std::vector<uint8_t> run_config(const ConvProblem<D>& c, const Requant<D>& rq,
                                const int32_t* col, PackedDirectConvMatrix* m,
                                PackWeightsForConv<D>* w, int threads) {
  const bool f32 = rq.bias_kind == BiasKind::f32;
  if (rq.gran == Gran::TENSOR) {
    if (rq.relu)
      return f32 ? run<true, Gran::TENSOR, float>(c, rq, col, m, w, threads)
                 : run<true, Gran::TENSOR, int32_t>(c, rq, col, m, w, threads);
    return f32 ? run<false, Gran::TENSOR, float>(c, rq, col, m, w, threads)
               : run<false, Gran::TENSOR, int32_t>(c, rq, col, m, w, threads);
  }
  if (rq.relu)
    return f32 ? run<true, Gran::OUT_CHANNEL, float>(c, rq, col, m, w, threads)
               : run<true, Gran::OUT_CHANNEL, int32_t>(c, rq, col, m, w, threads);
  return f32 ? run<false, Gran::OUT_CHANNEL, float>(c, rq, col, m, w, threads)
             : run<false, Gran::OUT_CHANNEL, int32_t>(c, rq, col, m, w, threads);
}

// Every configuration, ISA and thread count of one shape, through the direct entry
// point (use_fbgemm_conv false) or fbgemmConv.
template <int D>
void check_shape(const conv_param_t<D>& p, bool use_fbgemm_conv, uint32_t seed) {
  SCOPED_TRACE(p.toString());
  const ConvProblem<D> c(p, 97, seed);
  for (const Config& k : kConfigs) {
    const Requant<D> rq(c, k.gran, k.relu, k.bias, k.b_symmetric, ++seed);
    SCOPED_TRACE(std::string(gran_name(k.gran)) + " relu=" + std::to_string(k.relu) +
                 " bias=" + std::to_string(static_cast<int>(k.bias)));
    const bool direct = !use_fbgemm_conv || ConvFastPath(p) == Path::directconv;
    const std::vector<int32_t> col = direct ? pixel_col_offsets(c, rq) : rq.col_offsets;
    for (const IsaCase& isa : all_isas()) {
      if (skip_unsupported(isa)) continue;
      ScopedIsa scoped(isa.isa);
      SCOPED_TRACE(instSetName(isa.isa));
      PackedDirectConvMatrix m(p.IC, p.OC, kernel_prod(p), c.W.data());
      PackWeightsForConv<D> w(p, c.W.data());
      for (int threads : {1, 2, 3}) {
        SCOPED_TRACE("threads=" + std::to_string(threads));
        EXPECT_TRUE(same_bits(rq.want, run_config(c, rq, col.data(), use_fbgemm_conv ? nullptr : &m,
                                                  &w, threads)));
      }
    }
  }
}

TEST(TransposedConv, DirectEntryPointMatchesReference) {
  uint32_t seed = 100;
  for (const P2& p : direct_shapes()) check_shape(p, false, seed += 10);
  for (const P2& p : directconv_shapes()) check_shape(p, false, seed += 10);
}

// quire's fbgemmDirectConv also runs 1D and 3D transposed convolutions (FBGEMM's is 2D
// only); fbgemmConv sends those to im2col.
TEST(TransposedConv, DirectEntryPoint1DAnd3D) {
  check_shape(conv_param_t<1>(2, 9, 8, {7}, 1, {3}, {2}, {1, 0}, {1}, {1}, true), false, 300);
  check_shape(conv_param_t<1>(1, 16, 5, {17}, 1, {2}, {1}, {0, 1}, {1}, {0}, true), false, 310);
  check_shape(conv_param_t<3>(1, 8, 7, {3, 2, 5}, 1, {2, 2, 3}, {2, 1, 2}, {0, 1, 0, 1, 0, 1},
                              {1, 1, 1}, {1, 0, 1}, true),
              false, 320);
}

TEST(TransposedConv, FbgemmConvTakesDirectconv) {
  uint32_t seed = 500;
  for (const P2& p : directconv_shapes()) {
    EXPECT_EQ(Path::directconv, ConvFastPath(p)) << p.toString();
    EXPECT_EQ(Path::directconv, conv_path_taken<ReQuantizeOutput<false>>(p)) << p.toString();
    PackWeightsForConv<2> w(p, random_vector<int8_t>(size_t(p.OC) * kernel_prod(p) * p.IC, -128, 127, 1).data());
    EXPECT_NE(nullptr, w.getPackedWForDirectconv());
    EXPECT_EQ(nullptr, w.getPackedWForIm2col());
    check_shape(p, true, seed += 10);
  }
  // Transposed shapes outside the rule run as im2col GEMMs with per-channel offsets.
  for (const P2& p : {direct_shapes()[3], direct_shapes()[4]}) {
    EXPECT_EQ(Path::im2col, ConvFastPath(p)) << p.toString();
    check_shape(p, true, seed += 10);
  }
}

// FBGEMM's takeDirectConvPath, shape by shape: transposed, 2D, G = 1, IC and OC multiples
// of 8, K = 2 x (<= 6), strides 1 or 2, dilation 1, begin pads 0.
TEST(TransposedConv, PathRule) {
  struct Case {
    P2 p;
    Path path;
  };
  const Case cases[] = {
      {transposed(1, 8, 8, {3, 3}, {2, 1}, {1, 1}, {0, 0, 0, 0}), Path::directconv},
      {transposed(1, 8, 8, {3, 3}, {2, 6}, {2, 2}, {0, 0, 2, 3}, {1, 1}), Path::directconv},
      {transposed(1, 12, 8, {3, 3}, {2, 3}, {1, 1}, {0, 0, 0, 0}), Path::im2col},
      {transposed(1, 8, 12, {3, 3}, {2, 3}, {1, 1}, {0, 0, 0, 0}), Path::im2col},
      {transposed(1, 8, 8, {3, 3}, {3, 3}, {1, 1}, {0, 0, 0, 0}), Path::im2col},
      {transposed(1, 8, 8, {3, 9}, {2, 7}, {1, 1}, {0, 0, 0, 0}), Path::im2col},
      {transposed(1, 8, 8, {3, 3}, {2, 3}, {3, 1}, {0, 0, 0, 0}), Path::im2col},
      {transposed(1, 8, 8, {3, 3}, {2, 3}, {1, 1}, {1, 0, 0, 0}), Path::im2col},
      {transposed(1, 8, 8, {3, 3}, {2, 3}, {1, 1}, {0, 1, 0, 0}), Path::im2col},
      {P2(1, 8, 8, {3, 3}, 1, {2, 3}, {1, 1}, {0, 0, 0, 0}, {2, 1}, {0, 0}, true), Path::im2col},
      {P2(1, 16, 16, {3, 3}, 2, {2, 3}, {1, 1}, {0, 0, 0, 0}, {1, 1}, {0, 0}, true), Path::im2col},
      {P2(1, 8, 8, {3, 3}, 1, {2, 2}, {1, 1}, {0, 0, 0, 0}), Path::im2col},
  };
  for (const Case& k : cases) EXPECT_EQ(k.path, ConvFastPath(k.p)) << k.p.toString();
  EXPECT_FALSE((takeDirectConvPath<2, int16_t>(cases[0].p)));
  EXPECT_EQ(Path::im2col, ConvFastPath(conv_param_t<1>(1, 8, 8, {5}, 1, {2}, {1}, {0, 0}, {1}, {0}, true)));
}

// The offsets against FBGEMM's own formula (each input pixel's taps counted at
// (ih * stride + kh, iw * stride + kw)), on the shapes that formula covers: pads 0 and
// no output_pad. Later calls leave the offsets alone.
TEST(TransposedConv, PixelColOffsetsFollowFbgemmFormula) {
  for (const P2& p : {directconv_shapes()[0], directconv_shapes()[1], direct_shapes()[0],
                      transposed(2, 8, 8, {3, 5}, {2, 3}, {2, 2}, {0, 0, 0, 0})}) {
    SCOPED_TRACE(p.toString());
    const std::vector<int8_t> W =
        random_vector<int8_t>(size_t(p.OC) * kernel_prod(p) * p.IC, -128, 127, 3);
    std::vector<int32_t> b_zp = random_vector<int32_t>(p.OC, -128, 127, 4);
    const int OW = p.OUT_DIM[1], OC = p.OC, ncq = 3;
    std::vector<int32_t> want(size_t(p.MB) * p.OUT_DIM[0] * OW * OC, 0);
    std::vector<int32_t> count(want.size(), 0);
    for (int oc = 0; oc < OC; ++oc)
      for (int ih = 0; ih < p.IN_DIM[0]; ++ih)
        for (int iw = 0; iw < p.IN_DIM[1]; ++iw)
          for (int kh = 0; kh < p.K[0]; ++kh)
            for (int kw = 0; kw < p.K[1]; ++kw)
              for (int ic = 0; ic < p.IC; ++ic) {
                const size_t o = (size_t(ih * p.stride[0] + kh) * OW + iw * p.stride[1] + kw) * OC + oc;
                want[o] += W[(size_t(oc) * kernel_prod(p) + kh * p.K[1] + kw) * p.IC + ic];
                ++count[o];
              }
    for (int o = 0; o < p.OUT_DIM[0] * OW; ++o)
      for (int oc = 0; oc < OC; ++oc)
        want[size_t(o) * OC + oc] -= b_zp[oc / ncq] * count[size_t(o) * OC + oc];
    PackedDirectConvMatrix m(p.IC, p.OC, kernel_prod(p), W.data());
    EXPECT_TRUE(m.is_first_call());
    std::vector<int32_t> got;
    m.col_offsets_with_zero_pt_s8acc32_DirectConvT(p, b_zp.data(), got, ncq);
    EXPECT_TRUE(same_bits(want, got));
    EXPECT_FALSE(m.is_first_call());
    std::vector<int32_t> again = {1, 2, 3};
    m.col_offsets_with_zero_pt_s8acc32_DirectConvT(p, b_zp.data(), again, ncq);
    EXPECT_EQ((std::vector<int32_t>{1, 2, 3}), again);
  }
}

// Any other pipeline runs a directconv shape as an im2col GEMM (per-channel offsets),
// with B made once from the direct form; unpack gives the weights back.
TEST(TransposedConv, OtherPipelinesTakeTheGemm) {
  const P2 p = directconv_shapes()[2];
  const ConvProblem<2> c(p, 40, 77);
  const Requant<2> rq(c, Gran::OUT_CHANNEL, true, BiasKind::f32, false, 78);
  using Op = ReQuantizeForFloat<true, Gran::OUT_CHANNEL>;
  EXPECT_EQ(Path::im2col, conv_path_taken<Op>(p));
  const int M = static_cast<int>(out_pixels(p));
  const float a_scale = 0.03f;
  std::vector<float> want(c.C32.size());
  ref::QuantParams qp;
  qp.granularity = Gran::OUT_CHANNEL;
  qp.nCol = p.OC;
  qp.Aq_zero_point = c.a_zp;
  qp.Bq_zero_point = rq.b_zp.data();
  qp.row_offsets = c.row_offsets.data();
  qp.col_offsets = rq.col_offsets.data();
  ref::requantize_f32(want.data(), c.C32.data(), block_type_t{0, M, 0, p.OC}, p.OC, p.OC, qp,
                      a_scale, rq.act_w_scale.data(), rq.bias_f32.data(), true);
  for (const IsaCase& isa : all_isas()) {
    if (skip_unsupported(isa)) continue;
    ScopedIsa scoped(isa.isa);
    PackWeightsForConv<2> w(p, c.W.data());
    std::vector<int8_t> unpacked(c.W.size());
    w.unpack(unpacked.data());
    EXPECT_EQ(c.W, unpacked);
    std::vector<float> got(c.C32.size(), -1.0f);
    for_each_thread(2, [&](int t, int n) {
      DoNothing<float, float> done;
      Op op(done, a_scale, rq.act_w_scale.data(), c.a_zp, rq.b_zp.data(), nullptr,
            rq.col_offsets.data(), rq.bias_f32.data(), p.OC, 1);
      fbgemmConv(p, c.A.data(), w, got.data(), reinterpret_cast<int32_t*>(got.data()), op, t, n);
    });
    EXPECT_TRUE(same_bits(want, got)) << instSetName(isa.isa);
  }
}

// Full-range extremes: A = 255 with a zero point of 0, B at -128 or 127 everywhere.
TEST(TransposedConv, ExtremeValues) {
  for (const P2& p : {directconv_shapes()[0], direct_shapes()[3]}) {
    for (int8_t b : {int8_t{-128}, int8_t{127}}) {
      SCOPED_TRACE(p.toString() + " B=" + std::to_string(b));
      ConvProblem<2> c(p, 0, 5);
      std::fill(c.A.begin(), c.A.end(), uint8_t{255});
      std::fill(c.W.begin(), c.W.end(), b);
      ref::conv_u8s8s32(p, c.A.data(), 0, c.W.data(), c.C32.data());
      ref::conv_row_offsets(p, c.A.data(), 0, c.row_offsets.data());
      const Requant<2> rq(c, Gran::OUT_CHANNEL, false, BiasKind::i32, false, 6);
      const std::vector<int32_t> col = pixel_col_offsets(c, rq);
      for (const IsaCase& isa : all_isas()) {
        if (skip_unsupported(isa)) continue;
        ScopedIsa scoped(isa.isa);
        PackedDirectConvMatrix m(p.IC, p.OC, kernel_prod(p), c.W.data());
        EXPECT_TRUE(same_bits(rq.want, run_config<2>(c, rq, col.data(), &m, nullptr, 2)))
            << instSetName(isa.isa);
      }
    }
  }
}

#define W(...) ({__VA_ARGS__})

TEST(TransposedConv, BadArguments) {
  const P2 p = directconv_shapes()[2];
  const ConvProblem<2> c(p, 3, 9);
  PackedDirectConvMatrix m(p.IC, p.OC, kernel_prod(p), c.W.data());
  std::vector<uint8_t> out(c.C32.size());
  std::vector<int32_t> buf(c.C32.size()), col(c.C32.size()), b_zp(1, 0);
  const std::vector<float> mult(1, 0.01f);
  DoNothing<> done;
  ReQuantizeOutput<false> op(done, mult.data(), 0, 3, b_zp.data(), nullptr, col.data(), nullptr,
                             p.OC);
  const auto call = [&](const P2& q, const uint8_t* A, uint8_t* C, int32_t* B, int t, int n) {
    fbgemmDirectConv(q, A, m, C, B, op, static_cast<const int32_t*>(nullptr), t, n);
  };
  EXPECT_INVALID(W("PackedDirectConvMatrix", "IC_per_G", "0"), PackedDirectConvMatrix(0, 8, 6, c.W.data()));
  EXPECT_INVALID(W("filter_prod", "-1"), PackedDirectConvMatrix(8, 8, -1, c.W.data()));
  EXPECT_INVALID(W("smat"), PackedDirectConvMatrix(8, 8, 6, nullptr));
  EXPECT_INVALID(W("fbgemmDirectConv", "Aint8"), call(p, nullptr, out.data(), buf.data(), 0, 1));
  EXPECT_INVALID(W("C"), call(p, c.A.data(), nullptr, buf.data(), 0, 1));
  EXPECT_INVALID(W("C_buffer"), call(p, c.A.data(), out.data(), nullptr, 0, 1));
  EXPECT_INVALID(W("thread_id", "2"), call(p, c.A.data(), out.data(), buf.data(), 2, 2));
  EXPECT_INVALID(W("num_threads", "0"), call(p, c.A.data(), out.data(), buf.data(), 0, 0));
  const P2 forward(2, 8, 16, {3, 7}, 1, {2, 3}, {2, 2}, {0, 0, 0, 0});
  EXPECT_INVALID(W("conv_p.transposed", "0"), call(forward, c.A.data(), out.data(), buf.data(), 0, 1));
  const P2 other_ic = transposed(2, 16, 16, {3, 7}, {2, 3}, {2, 2}, {0, 0, 0, 0}, {1, 1});
  EXPECT_INVALID(W("conv_p.IC", "16"), call(other_ic, c.A.data(), out.data(), buf.data(), 0, 1));
  const P2 other_k = transposed(2, 8, 16, {3, 7}, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1});
  EXPECT_INVALID(W("kernel", "4"), call(other_k, c.A.data(), out.data(), buf.data(), 0, 1));
  ReQuantizeOutput<false> no_col(done, mult.data(), 0, 3, b_zp.data(), nullptr, nullptr, nullptr, p.OC);
  EXPECT_INVALID(W("getColOffsets", "3"),
                 fbgemmDirectConv(p, c.A.data(), m, out.data(), buf.data(), no_col,
                                  static_cast<const int32_t*>(nullptr), 0, 1));
  const int32_t bias = 0;
  EXPECT_INVALID(W("bias", "getBias"),
                 fbgemmDirectConv(p, c.A.data(), m, out.data(), buf.data(), op, &bias, 0, 1));
  std::vector<int32_t> offsets;
  EXPECT_INVALID(W("B_zero_point"),
                 m.col_offsets_with_zero_pt_s8acc32_DirectConvT(p, nullptr, offsets, 1));
  EXPECT_INVALID(W("ncols_per_quant_group", "0"),
                 m.col_offsets_with_zero_pt_s8acc32_DirectConvT(p, b_zp.data(), offsets, 0));
  EXPECT_TRUE(m.is_first_call());
}

}  // namespace
}  // namespace quire::test
