// Convolution entry points with every caller-owned operand flush against a PROT_NONE
// page (test/guard_alloc.h), at its end and then at its start, on every ISA path the CPU
// has, 1 and 3 threads. Buffers are sized as FBGEMM's callers size them: activations
// MB x IN_DIM x IC, weights OC x kernel x IC/G, output and the int32 outBuffer
// MB x OUT_DIM x OC, C_multiplier / B zero points / act_times_w_scale per quantization
// group (1, G or OC), col_offsets and bias per output channel.
//  - fbgemmConv over odd shapes taking each path (depthwise 3x3 / 5x5 / 3x3x3,
//    groupwise, pointwise, im2col, 1D to 3D, strides, pads, dilation, transposed), with
//    ReQuantizeOutput (int32 and float bias) and, through the GEMM paths,
//    ReQuantizeForFloat;
//  - PackAWithIm2Col with a guarded pmat (packedBufferSize()) and row-offset buffer
//    (rowOffsetBufferSize()) driven by fbgemmPacked;
//  - depthwise_2d_same_pad and depthwise_3d_same_pad on a PackedDepthWiseConvMatrix
//    packed from guarded weights.
// Results are compared with quire::ref bit for bit.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "conv_test_util.h"
#include "guard_alloc.h"
#include "quire/ref/ReferenceOutput.h"

namespace quire::test {
namespace {

using Gran = QuantizationGranularity;

template <int D>
std::vector<conv_param_t<D>> shapes();

template <>
std::vector<conv_param_t<2>> shapes<2>() {
  using P = conv_param_t<2>;
  return {
      P(1, 17, 17, {5, 7}, 17, {3, 3}, {1, 1}, {1, 1, 1, 1}),             // depthwise
      P(1, 48, 48, {5, 7}, 48, {3, 3}, {1, 1}, {1, 1, 1, 1}),             // depthwise rows
      P(2, 33, 33, {3, 4}, 33, {5, 5}, {2, 2}, {2, 2, 2, 2}),             // depthwise
      P(1, 65, 65, {1, 3}, 65, {3, 3}, {2, 1}, {1, 0, 1, 1}),             // depthwise
      P(1, 12, 12, {5, 3}, 3, {3, 3}, {1, 1}, {1, 1, 1, 1}),              // groupwise
      P(1, 40, 40, {3, 5}, 5, {3, 3}, {2, 1}, {1, 0, 1, 2}),              // groupwise
      P(3, 17, 5, {3, 5}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}),               // pointwise
      P(1, 3, 17, {7, 5}, 1, {3, 3}, {2, 1}, {1, 1, 1, 1}),               // im2col
      P(1, 6, 9, {5, 4}, 3, {2, 3}, {1, 2}, {0, 1, 1, 0}, {2, 1}),        // im2col, dilated
      P(1, 4, 6, {3, 4}, 2, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, {1, 0}, true),  // transposed
  };
}

template <>
std::vector<conv_param_t<1>> shapes<1>() {
  using P = conv_param_t<1>;
  return {P(2, 24, 24, {13}, 8, {3}, {1}, {1, 1}), P(1, 7, 5, {9}, 1, {1}, {1}, {0, 0}),
          P(3, 3, 5, {11}, 1, {3}, {2}, {1, 0})};
}

template <>
std::vector<conv_param_t<3>> shapes<3>() {
  using P = conv_param_t<3>;
  return {P(1, 17, 17, {3, 4, 3}, 17, {3, 3, 3}, {1, 1, 1}, {1, 1, 1, 1, 1, 1}),
          P(1, 32, 32, {3, 3, 4}, 8, {3, 3, 3}, {1, 2, 1}, {1, 1, 1, 1, 1, 1}),
          P(1, 3, 5, {3, 4, 3}, 1, {2, 3, 2}, {1, 1, 2}, {1, 1, 0, 0, 1, 1})};
}

template <class T>
::testing::AssertionResult same(const std::vector<T>& want, const GuardedArray<T>& got) {
  for (size_t i = 0; i < want.size(); ++i)
    if (want[i] != got[i])
      return ::testing::AssertionFailure() << "element " << i << ": want " << +want[i] << ", got "
                                           << +got[i];
  return ::testing::AssertionSuccess();
}

// The requantization parameters of rq in guarded arrays.
template <int D>
struct GuardedRequant {
  GuardedArray<int32_t> b_zp, col_off, bias_i32;
  GuardedArray<float> mult, act_w, bias_f32;
  GuardedRequant(const Requant<D>& rq, Guard g)
      : b_zp(rq.b_zp, g), col_off(rq.col_offsets, g), bias_i32(rq.bias_i32, g),
        mult(rq.multiplier, g), act_w(rq.act_w_scale, g), bias_f32(rq.bias_f32, g) {}
};

// fbgemmConv with ReQuantizeOutput<RELU, Q, BiasT> to uint8; returns the path it took.
template <bool RELU, Gran Q, class BiasT, int D>
optimized_conv_t conv_u8(const ConvProblem<D>& c, const Requant<D>& rq, Guard g, int threads) {
  using Op = ReQuantizeOutput<RELU, Q, BiasT>;
  const GuardedArray<uint8_t> A(c.A, g);
  const GuardedArray<int8_t> W(c.W, g);
  const GuardedRequant<D> r(rq, g);
  GuardedArray<uint8_t> out(c.C32.size(), g);
  GuardedArray<int32_t> buffer(c.C32.size(), g);
  PackWeightsForConv<D> w(c.p, W.data());
  const BiasT* bias = nullptr;
  if constexpr (std::is_same_v<BiasT, float>) bias = r.bias_f32.data();
  else if (rq.bias_kind == BiasKind::i32) bias = r.bias_i32.data();
  for (int t = 0; t < threads; ++t) {
    DoNothing<> done;
    Op op(done, r.mult.data(), rq.c_zp, c.a_zp, r.b_zp.data(), nullptr, r.col_off.data(), bias,
          c.p.OC, c.p.G, r.act_w.data());
    fbgemmConv(c.p, A.data(), w, out.data(), buffer.data(), op, t, threads);
  }
  EXPECT_TRUE(same(rq.want, out)) << "fbgemmConv ReQuantizeOutput";
  return conv_path_taken<Op>(c.p);
}

// fbgemmConv with ReQuantizeForFloat (a GEMM path), TENSOR, against the int32 reference.
template <int D>
void conv_f32(const ConvProblem<D>& c, const Requant<D>& rq, Guard g, int threads) {
  const GuardedArray<uint8_t> A(c.A, g);
  const GuardedArray<int8_t> W(c.W, g);
  const std::vector<float> b_scale_v(1, 0.01f);
  const GuardedArray<float> b_scale(b_scale_v, g), bias(rq.bias_f32, g);
  const GuardedArray<int32_t> b_zp(std::vector<int32_t>(1, rq.b_zp[0]), g);
  std::vector<int32_t> col_v(c.p.OC);
  ref::conv_col_offsets(c.p, c.W.data(), &rq.b_zp[0], c.p.OC, col_v.data());
  const GuardedArray<int32_t> col_off(col_v, g);
  GuardedArray<float> out(c.C32.size(), g);
  GuardedArray<int32_t> buffer(c.C32.size(), g);
  PackWeightsForConv<D> w(c.p, W.data());
  const float a_scale = 0.05f;
  for (int t = 0; t < threads; ++t) {
    DoNothing<float, float> done;
    ReQuantizeForFloat<false> op(done, a_scale, b_scale.data(), c.a_zp, b_zp.data(), nullptr,
                                 col_off.data(), bias.data(), c.p.OC, c.p.G);
    fbgemmConv(c.p, A.data(), w, out.data(), buffer.data(), op, t, threads);
  }
  // The same arithmetic as ReQuantizeForFloat, on the reference sums.
  std::vector<float> want(c.C32.size());
  const int rows = int(c.C32.size() / c.p.OC), per_g = c.p.OC / c.p.G;
  for (int m = 0; m < rows; ++m)
    for (int g = 0; g < c.p.G; ++g) {
      ref::QuantParams qp;
      qp.nCol = uint32_t(c.p.OC);
      qp.groups = c.p.G;
      qp.Aq_zero_point = c.a_zp;
      qp.Bq_zero_point = b_zp.data();
      qp.row_offsets = &c.row_offsets[size_t(m) * c.p.G + g];
      qp.col_offsets = col_v.data();
      ref::requantize_f32(want.data(), &c.C32[size_t(m) * c.p.OC + g * per_g],
                          block_type_t{m, 1, g * per_g, per_g}, c.p.OC, c.p.OC, qp, a_scale,
                          b_scale.data(), bias.data(), false);
    }
  EXPECT_TRUE(same(want, out)) << "fbgemmConv ReQuantizeForFloat";
}

// PackAWithIm2Col (guarded pmat and row offsets) with fbgemmPacked and ReQuantizeOutput.
template <int D>
void im2col_gemm(const ConvProblem<D>& c, const Requant<D>& rq, Guard g, int threads) {
  const conv_param_t<D>& p = c.p;
  const int Kg = kernel_prod(p) * (p.IC / p.G);
  const GuardedArray<uint8_t> A(c.A, g);
  const GuardedArray<int8_t> W(c.W, g);
  const GuardedRequant<D> r(rq, g);
  PackBMatrix<int8_t> packB(matrix_op_t::Transpose, p.G * Kg, p.OC / p.G, W.data(), Kg, nullptr,
                            p.G);
  GuardedArray<uint8_t> out(c.C32.size(), g);
  GuardedArray<int32_t> buffer(c.C32.size(), g);
  for (int t = 0; t < threads; ++t) {
    GuardedArray<uint8_t> pmat(size_t(PackAWithIm2Col<uint8_t, int32_t, D>::packedBufferSize()), g);
    GuardedArray<int32_t> row_off(
        size_t(PackAWithIm2Col<uint8_t, int32_t, D>::rowOffsetBufferSize()), g);
    PackAWithIm2Col<uint8_t, int32_t, D> packA(p, A.data(), pmat.data(), c.a_zp, row_off.data());
    DoNothing<> done;
    ReQuantizeOutput<false, Gran::OUT_CHANNEL> op(done, r.mult.data(), rq.c_zp, c.a_zp,
                                                  r.b_zp.data(), row_off.data(), r.col_off.data(),
                                                  r.bias_i32.data(), p.OC, p.G);
    fbgemmPacked(packA, packB, out.data(), buffer.data(), uint32_t(p.OC), op, t, threads);
  }
  EXPECT_TRUE(same(rq.want, out)) << "PackAWithIm2Col + fbgemmPacked";
}

template <int D>
void run_shapes(std::set<optimized_conv_t>& paths) {
  uint32_t seed = 700 + 10 * D;
  for (const conv_param_t<D>& p : shapes<D>()) {
    ++seed;
    const ConvProblem<D> c(p, int32_t(seed % 200), seed);
    const Requant<D> rq_i(c, Gran::OUT_CHANNEL, true, BiasKind::i32, false, seed);
    const Requant<D> rq_f(c, Gran::GROUP, false, BiasKind::f32, false, seed + 1);
    const Requant<D> rq_t(c, Gran::TENSOR, false, BiasKind::none, false, seed + 2);
    const Requant<D> rq_oc(c, Gran::OUT_CHANNEL, false, BiasKind::i32, false, seed + 3);
    for (Guard g : kGuards) {
      for (int threads : {1, 3}) {
        SCOPED_TRACE(p.toString() + " " + guard_name(g) + " T=" + std::to_string(threads));
        paths.insert(conv_u8<true, Gran::OUT_CHANNEL, int32_t>(c, rq_i, g, threads));
        conv_u8<false, Gran::GROUP, float>(c, rq_f, g, threads);
        conv_u8<false, Gran::TENSOR, int32_t>(c, rq_t, g, threads);
        conv_f32(c, rq_t, g, threads);
        im2col_gemm(c, rq_oc, g, threads);
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

TEST(GuardPageConv, FbgemmConvAndIm2ColOnEveryPath) {
  for (const IsaCase& isa : all_isas()) {
    if (skip_unsupported(isa)) continue;
    ScopedIsa scoped(isa.isa);
    SCOPED_TRACE(instSetName(isa.isa));
    std::set<optimized_conv_t> paths;
    run_shapes<1>(paths);
    run_shapes<2>(paths);
    run_shapes<3>(paths);
    if (HasFailure()) return;
    for (optimized_conv_t want : {optimized_conv_t::depthwise, optimized_conv_t::groupwise,
                                  optimized_conv_t::pointwise, optimized_conv_t::im2col})
      EXPECT_EQ(paths.count(want), 1u) << "no shape took path " << static_cast<int>(want);
  }
}

// depthwise_2d_same_pad (3x3, 5x5) and depthwise_3d_same_pad through their own entry
// points, per tensor and per channel.
template <Gran Q>
void depthwise_2d(int N, int H, int W, int C, int k, int stride, Guard g, uint32_t seed) {
  const int pad = (k - 1) / 2;
  const conv_param_t<2> p(N, C, C, {H, W}, C, {k, k}, {stride, stride}, {pad, pad, pad, pad});
  SCOPED_TRACE(p.toString() + " " + guard_name(g));
  const ConvProblem<2> c(p, 17, seed);
  const Requant<2> rq(c, Q, seed % 2 == 0, BiasKind::i32, false, seed);
  const GuardedArray<uint8_t> A(c.A, g);
  const GuardedArray<int8_t> Wt(c.W, g);
  const GuardedRequant<2> r(rq, g);
  const PackedDepthWiseConvMatrix Bp(C, k * k, Wt.data());
  GuardedArray<uint8_t> out(c.C32.size(), g);
  for (int t = 0; t < 2; ++t)
    depthwise_2d_same_pad<Q>(N, H, W, C, C, stride, stride, c.a_zp, A.data(), r.b_zp.data(), Bp,
                             r.mult.data(), rq.c_zp, out.data(), r.col_off.data(),
                             r.bias_i32.data(), rq.relu, nullptr, t, 2);
  EXPECT_TRUE(same(rq.want, out));
}

template <Gran Q>
void depthwise_3d(const conv_param_t<3>& p, Guard g, uint32_t seed) {
  SCOPED_TRACE(p.toString() + " " + guard_name(g));
  const ConvProblem<3> c(p, 201, seed);
  const Requant<3> rq(c, Q, false, BiasKind::f32, false, seed);
  const GuardedArray<uint8_t> A(c.A, g);
  const GuardedArray<int8_t> Wt(c.W, g);
  const GuardedRequant<3> r(rq, g);
  const PackedDepthWiseConvMatrix Bp(p.OC, 27, Wt.data());
  GuardedArray<uint8_t> out(c.C32.size(), g);
  depthwise_3d_same_pad<Q, float>(p, c.a_zp, A.data(), r.b_zp.data(), Bp, r.mult.data(), rq.c_zp,
                                  out.data(), r.col_off.data(), r.bias_f32.data(), false,
                                  r.act_w.data());
  EXPECT_TRUE(same(rq.want, out));
}

TEST(GuardPageConv, DepthwiseEntryPointsOnEveryPath) {
  for (const IsaCase& isa : all_isas()) {
    if (skip_unsupported(isa)) continue;
    ScopedIsa scoped(isa.isa);
    SCOPED_TRACE(instSetName(isa.isa));
    for (Guard g : kGuards) {
      uint32_t seed = 40;
      for (int C : {1, 3, 17, 63, 65}) {
        depthwise_2d<Gran::TENSOR>(1, 5, 3 + C % 4, C, 3, 1 + C % 2, g, ++seed);
        depthwise_2d<Gran::OUT_CHANNEL>(2, 3, 7, C, 5, 2 - C % 2, g, ++seed);
        depthwise_3d<Gran::OUT_CHANNEL>(
            conv_param_t<3>(1, C, C, {3, 4, 3}, C, {3, 3, 3}, {1, 1 + C % 2, 1},
                            {1, 1, 1, 1, 1, 1}),
            g, ++seed);
      }
      if (HasFailure()) return;
    }
  }
}

}  // namespace
}  // namespace quire::test
