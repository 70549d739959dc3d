// The direct kernels through their own entry points: depthwise_2d_same_pad (3x3, 5x5),
// depthwise_3d_same_pad and fbgemmGroupwiseConv, per tensor and per channel, against the
// reference bit for bit on every ISA path; col_offsets left null with the A zero point
// term folded into the bias (FBGEMM's convention); bad arguments; and fbgemmConv on real
// concurrent threads sharing one PackWeightsForConv (including the GEMM weights a float
// pipeline makes on first use).
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "conv_test_util.h"

namespace quire::test {
namespace {

using Gran = QuantizationGranularity;

template <Gran Q>
void check_depthwise_2d(int N, int H, int W, int C, int k, int stride_h, int stride_w,
                        uint32_t seed) {
  const int pad = (k - 1) / 2;
  const conv_param_t<2> p(N, C, C, {H, W}, C, {k, k}, {stride_h, stride_w}, {pad, pad, pad, pad});
  SCOPED_TRACE(p.toString());
  const ConvProblem<2> c(p, 61, seed);
  const Requant<2> rq(c, Q, seed % 2 == 0, BiasKind::i32, false, seed);
  // Bias with the A zero point term folded in, and no col_offsets.
  std::vector<int32_t> folded(C);
  for (int j = 0; j < C; ++j) folded[j] = rq.bias_i32[j] - c.a_zp * rq.col_offsets[j];
  const PackedDepthWiseConvMatrix B(C, k * k, c.W.data());
  for (const IsaCase& isa : all_isas()) {
    if (skip_unsupported(isa)) continue;
    ScopedIsa scoped(isa.isa);
    SCOPED_TRACE(instSetName(isa.isa));
    for (bool fold : {false, true}) {
      std::vector<uint8_t> got(rq.want.size(), 0);
      for_each_thread(3, [&](int t, int n) {
        depthwise_2d_same_pad<Q>(N, H, W, C, C, stride_h, stride_w, c.a_zp, c.A.data(),
                                 rq.b_zp.data(), B, rq.multiplier.data(), rq.c_zp, got.data(),
                                 fold ? nullptr : rq.col_offsets.data(),
                                 fold ? folded.data() : rq.bias_i32.data(), rq.relu, nullptr, t, n);
      });
      EXPECT_TRUE(same_bits(rq.want, got)) << "folded bias: " << fold;
    }
  }
}

TEST(DepthwiseApi, SamePad2D) {
  check_depthwise_2d<Gran::TENSOR>(1, 7, 9, 32, 3, 1, 1, 1);
  check_depthwise_2d<Gran::OUT_CHANNEL>(2, 8, 5, 72, 3, 2, 2, 2);
  check_depthwise_2d<Gran::GROUP>(1, 6, 7, 20, 5, 1, 2, 3);
  check_depthwise_2d<Gran::OUT_CHANNEL>(1, 9, 9, 136, 5, 2, 1, 4);
}

// B zero points outside int8 (the API's int32 allows them; engines fold offsets into
// them): they once wrapped to a byte on the SIMD paths and gave wrong results silently.
TEST(DepthwiseApi, ZeroPointsBeyondInt8) {
  for (const auto& [h, ch, k, gran] : {std::tuple{7, 32, 3, Gran::OUT_CHANNEL},
                                       {6, 72, 5, Gran::OUT_CHANNEL}, {5, 20, 3, Gran::TENSOR}}) {
    // Copies: the lambda below captures them, and clang 14 cannot capture structured bindings.
    const int H = h, C = ch;
    const Gran q = gran;
    const int pad = (k - 1) / 2;
    const conv_param_t<2> p(2, C, C, {H, H + 2}, C, {k, k}, {1, 1}, {pad, pad, pad, pad});
    SCOPED_TRACE(p.toString());
    const ConvProblem<2> c(p, 37, 7);
    const Requant<2> rq(c, q, false, BiasKind::i32, false, 8, -400, 400);
    const PackedDepthWiseConvMatrix B(C, k * k, c.W.data());
    for (const IsaCase& isa : all_isas()) {
      if (skip_unsupported(isa)) continue;
      ScopedIsa scoped(isa.isa);
      std::vector<uint8_t> got(rq.want.size(), 0);
      for_each_thread(2, [&](int t, int n) {
        if (q == Gran::TENSOR) {
          depthwise_2d_same_pad<Gran::TENSOR>(2, H, H + 2, C, C, 1, 1, c.a_zp, c.A.data(),
                                              rq.b_zp.data(), B, rq.multiplier.data(), rq.c_zp,
                                              got.data(), rq.col_offsets.data(),
                                              rq.bias_i32.data(), false, nullptr, t, n);
        } else {
          depthwise_2d_same_pad<Gran::OUT_CHANNEL>(2, H, H + 2, C, C, 1, 1, c.a_zp, c.A.data(),
                                                   rq.b_zp.data(), B, rq.multiplier.data(),
                                                   rq.c_zp, got.data(), rq.col_offsets.data(),
                                                   rq.bias_i32.data(), false, nullptr, t, n);
        }
      });
      EXPECT_TRUE(same_bits(rq.want, got)) << instSetName(isa.isa) << ", B zero point[0] = "
                                          << rq.b_zp[0];
    }
  }
}

TEST(DepthwiseApi, SamePad3D) {
  const conv_param_t<3> p(2, 40, 40, {3, 5, 4}, 40, {3, 3, 3}, {1, 2, 1}, {1, 1, 1, 1, 1, 1});
  const ConvProblem<3> c(p, 17, 9);
  for (Gran q : {Gran::TENSOR, Gran::OUT_CHANNEL}) {
    const Requant<3> rq(c, q, true, BiasKind::f32, false, 10);
    const PackedDepthWiseConvMatrix B(40, 27, c.W.data());
    for (const IsaCase& isa : all_isas()) {
      if (skip_unsupported(isa)) continue;
      ScopedIsa scoped(isa.isa);
      std::vector<uint8_t> got(rq.want.size(), 0);
      for_each_thread(2, [&](int t, int n) {
        if (q == Gran::TENSOR)
          depthwise_3d_same_pad<Gran::TENSOR, float>(
              p, c.a_zp, c.A.data(), rq.b_zp.data(), B, rq.multiplier.data(), rq.c_zp, got.data(),
              rq.col_offsets.data(), rq.bias_f32.data(), true, rq.act_w_scale.data(), t, n);
        else
          depthwise_3d_same_pad<Gran::OUT_CHANNEL, float>(
              p, c.a_zp, c.A.data(), rq.b_zp.data(), B, rq.multiplier.data(), rq.c_zp, got.data(),
              rq.col_offsets.data(), rq.bias_f32.data(), true, rq.act_w_scale.data(), t, n);
      });
      EXPECT_TRUE(same_bits(rq.want, got)) << instSetName(isa.isa) << " " << gran_name(q);
    }
  }
}

TEST(GroupwiseApi, MatchesReference) {
  const conv_param_t<2> p(2, 128, 128, {6, 5}, 32, {3, 3}, {1, 2}, {1, 1, 0, 1});
  const ConvProblem<2> c(p, 128, 21);
  const Requant<2> rq(c, Gran::GROUP, false, BiasKind::i32, false, 22);
  for (const IsaCase& isa : all_isas()) {
    if (skip_unsupported(isa)) continue;
    ScopedIsa scoped(isa.isa);
    PackWeightMatrixForGConv<int8_t, int32_t, 2> W(matrix_op_t::Transpose, p, c.W.data());
    std::vector<uint8_t> got(rq.want.size(), 0);
    for_each_thread(3, [&](int t, int n) {
      DoNothing<> done;
      ReQuantizeOutput<false, Gran::GROUP> op(done, rq.multiplier.data(), rq.c_zp, c.a_zp,
                                              rq.b_zp.data(), nullptr, rq.col_offsets.data(),
                                              rq.bias_i32.data(), p.OC, p.G);
      std::vector<int32_t> row_offsets(rowOffsetBufferSizeGConv(p));
      fbgemmGroupwiseConv(p, c.A.data(), c.a_zp, row_offsets.data(), W, got.data(), nullptr, op,
                          t, n);
    });
    EXPECT_TRUE(same_bits(rq.want, got)) << instSetName(isa.isa);
  }
}

// B zero points at the limits of the kernels that fold z into int16 weights w - z (the
// AVX2 depthwise row kernels, the groupwise kernels without VNNI: z in [-32640, 32640])
// and one past them, where those layers take other kernels; 3 threads. The multiplier is scaled
// down so that the large sums land inside the output range, and the expected bytes
// recomputed with it.
TEST(DirectApi, ZeroPointsAtInt16Limits) {
  uint32_t seed = 60;
  for (int32_t z : {32640, -32640, 32641, -32641})
    for (const auto& [G, stride] : {std::tuple{32, 1}, {32, 2}, {16, 1}, {32, 0}}) {
      // G 32 of 32 channels: depthwise (stride 1, 2); 16 and 32 groups of 64: groupwise
      // with 4 and 2 channels per group.
      const int C = stride == 0 || G == 16 ? 64 : 32, s = stride == 0 ? 1 : stride;
      const conv_param_t<2> p(2, C, C, {5, 7}, G, {3, 3}, {s, s}, {1, 1, 1, 1});
      SCOPED_TRACE(p.toString() + " B zero point " + std::to_string(z));
      const ConvProblem<2> c(p, 90, ++seed);
      Requant<2> rq(c, Gran::TENSOR, false, BiasKind::none, false, seed, z, z);
      rq.multiplier[0] = 1e-6f;
      ref::ConvRequant r;
      r.granularity = Gran::TENSOR;
      r.A_zero_point = c.a_zp;
      r.B_zero_point = rq.b_zp.data();
      r.col_offsets = rq.col_offsets.data();
      r.C_multiplier = rq.multiplier.data();
      r.C_zero_point = rq.c_zp;
      r.fuse_relu = rq.relu;
      ref::conv_requantize_u8<2, int32_t>(p, c.C32.data(), c.row_offsets.data(), r, nullptr,
                                          rq.want.data());
      for_each_supported_path([&] {
        std::vector<uint8_t> got(rq.want.size(), 0);
        PackWeightsForConv<2> W(p, c.W.data());
        for_each_thread(3, [&](int t, int n) {
          DoNothing<> done;
          ReQuantizeOutput<false, Gran::TENSOR> op(done, rq.multiplier.data(), rq.c_zp, c.a_zp,
                                                   rq.b_zp.data(), nullptr, rq.col_offsets.data(),
                                                   nullptr, p.OC, p.G);
          std::vector<int32_t> buffer(rq.want.size());
          fbgemmConv(p, c.A.data(), W, got.data(), buffer.data(), op, t, n);
        });
        EXPECT_TRUE(same_bits(rq.want, got));
      });
    }
}

template <class F>
void expect_rejects(F call, const std::string& name) {
  try {
    call();
    ADD_FAILURE() << "no exception for " << name;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string::npos, std::string(e.what()).find(name)) << e.what();
  }
}

TEST(DirectApi, BadArguments) {
  const std::vector<int8_t> W(16 * 25);
  const PackedDepthWiseConvMatrix B3(16, 9, W.data()), B5(16, 25, W.data());
  std::vector<uint8_t> A(16 * 25), C(16 * 25);
  const float mult = 0.1f;
  const int32_t zp = 0;
  auto dw = [&](int ic, int oc, const PackedDepthWiseConvMatrix& b, const uint8_t* a, uint8_t* out,
                int32_t c_zp, int tid, int nt) {
    depthwise_2d_same_pad<Gran::TENSOR>(1, 5, 5, ic, oc, 1, 1, 0, a, &zp, b, &mult, c_zp, out,
                                        nullptr, static_cast<const int32_t*>(nullptr), false,
                                        nullptr, tid, nt);
  };
  expect_rejects([&] { dw(16, 48, B3, A.data(), C.data(), 0, 0, 1); }, "OC=48");
  expect_rejects([&] { dw(16, 32, B3, A.data(), C.data(), 0, 0, 1); }, "Bp.numChannels()=16");
  expect_rejects([&] { dw(8, 8, B3, A.data(), C.data(), 0, 0, 1); }, "Bp.numChannels()=16");
  expect_rejects([&] { dw(16, 16, B3, nullptr, C.data(), 0, 0, 1); }, "A is null");
  expect_rejects([&] { dw(16, 16, B5, A.data(), nullptr, 0, 0, 1); }, "C is null");
  expect_rejects([&] { dw(16, 16, B3, A.data(), C.data(), 256, 0, 1); }, "C_zero_point=256");
  expect_rejects([&] { dw(16, 16, B3, A.data(), C.data(), 0, 2, 2); }, "thread_id=2");
  const PackedDepthWiseConvMatrix B6(16, 36, std::vector<int8_t>(16 * 36).data());
  expect_rejects([&] { dw(16, 16, B6, A.data(), C.data(), 0, 0, 1); }, "Bp.GetKernelProduct()=36");
  const conv_param_t<3> p3(1, 16, 16, {3, 3, 3}, 16, {3, 3, 3}, {1, 1, 1}, {1, 1, 1, 1, 1, 1});
  expect_rejects(
      [&] {
        depthwise_3d_same_pad<Gran::TENSOR>(p3, 0, A.data(), &zp, B3, &mult, 0, C.data(), nullptr,
                                            static_cast<const int32_t*>(nullptr));
      },
      "Bp.GetKernelProduct()=9");
  const PackedDepthWiseConvMatrix B27(16, 27, std::vector<int8_t>(16 * 27).data());
  std::vector<uint8_t> A3(16 * 27), C3(16 * 27);
  expect_rejects(
      [&] {
        depthwise_3d_same_pad<Gran::TENSOR>(p3, 0, A3.data(), nullptr, B27, &mult, 0, C3.data(),
                                            nullptr, static_cast<const int32_t*>(nullptr));
      },
      "B_zero_point is null");
  // fbgemmGroupwiseConv: the padding value must be the pipeline's A zero point.
  const conv_param_t<2> pg(1, 16, 16, {4, 4}, 4, {3, 3}, {1, 1}, {1, 1, 1, 1});
  const std::vector<int8_t> wg(16 * 9 * 4);
  PackWeightMatrixForGConv<int8_t, int32_t, 2> Wg(matrix_op_t::Transpose, pg, wg.data());
  DoNothing<> done;
  const std::vector<int32_t> col_offsets(16);
  ReQuantizeOutput<false> op(done, &mult, 0, 3, &zp, nullptr, col_offsets.data(), nullptr, 16);
  expect_rejects([&] { fbgemmGroupwiseConv(pg, A.data(), 5, nullptr, Wg, C.data(), nullptr, op, 0, 1); },
                 "a_zero_point=5");
}

// Concurrent calls on std::threads, sharing the packed weights: depthwise and groupwise
// (direct kernels), an im2col shape, and a float pipeline on a depthwise shape, whose
// GEMM weights the first caller packs while the others wait.
TEST(DirectApi, ConcurrentThreadsShareWeights) {
  const std::vector<conv_param_t<2>> shapes = {
      conv_param_t<2>(2, 64, 64, {9, 9}, 64, {3, 3}, {1, 1}, {1, 1, 1, 1}),
      conv_param_t<2>(1, 64, 64, {9, 9}, 16, {3, 3}, {1, 1}, {1, 1, 1, 1}),
      conv_param_t<2>(1, 16, 32, {9, 9}, 1, {5, 5}, {2, 2}, {2, 2, 2, 2}),
  };
  constexpr int kThreads = 4;
  for (const conv_param_t<2>& p : shapes) {
    SCOPED_TRACE(p.toString());
    const ConvProblem<2> c(p, 33, 4);
    const Requant<2> rq(c, Gran::OUT_CHANNEL, true, BiasKind::i32, false, 8);
    PackWeightsForConv<2> w(p, c.W.data());
    std::vector<uint8_t> got(rq.want.size(), 0);
    std::vector<int32_t> buffer(rq.want.size());
    std::vector<float> got_f(rq.want.size(), 0.0f), want_f(rq.want.size(), 0.0f);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        DoNothing<> done;
        ReQuantizeOutput<true, Gran::OUT_CHANNEL> op(done, rq.multiplier.data(), rq.c_zp, c.a_zp,
                                                     rq.b_zp.data(), nullptr, rq.col_offsets.data(),
                                                     rq.bias_i32.data(), p.OC, p.G);
        fbgemmConv(p, c.A.data(), w, got.data(), buffer.data(), op, t, kThreads);
        DoNothing<float, float> done_f;
        ReQuantizeForFloat<false, Gran::OUT_CHANNEL> op_f(done_f, 0.5f, rq.act_w_scale.data(), c.a_zp,
                                                          rq.b_zp.data(), nullptr,
                                                          rq.col_offsets.data(), nullptr, p.OC, p.G);
        fbgemmConv(p, c.A.data(), w, got_f.data(), reinterpret_cast<int32_t*>(got_f.data()), op_f, t,
                   kThreads);
      });
    }
    for (std::thread& th : threads) th.join();
    EXPECT_TRUE(same_bits(rq.want, got));
    // The float results of one sequential call are the reference for the threaded ones.
    DoNothing<float, float> done_f;
    ReQuantizeForFloat<false, Gran::OUT_CHANNEL> op_f(done_f, 0.5f, rq.act_w_scale.data(), c.a_zp,
                                                      rq.b_zp.data(), nullptr, rq.col_offsets.data(),
                                                      nullptr, p.OC, p.G);
    fbgemmConv(p, c.A.data(), w, want_f.data(), reinterpret_cast<int32_t*>(want_f.data()), op_f, 0, 1);
    EXPECT_TRUE(same_bits(want_f, got_f));
  }
}

}  // namespace
}  // namespace quire::test
