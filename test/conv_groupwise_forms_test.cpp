// The two dot steps of the groupwise kernels on AVX2 for 2, 4, 8 and 16 channels per group
// (src/conv/groupwise_avx2.cpp: vpmaddubsw's certified step where the share's
// activations and the A zero point are 7-bit, the exact split step otherwise) against
// the reference bit for bit on every path: 7-bit and full-range activations with
// full-range weights, 7-bit activations under a zero point of 128 or more (the padding
// reads it), batches whose images fall on either side of the gate with 1-3 threads,
// activations at the certified step's bound and one past it on both signs, strides 1
// and 2, per tensor, per group and per channel, ReLU and every bias kind.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "conv_test_util.h"

namespace quire::test {
namespace {

using Gran = QuantizationGranularity;

// fbgemmGroupwiseConv into got, in `threads` shares.
template <Gran Q>
void run(const ConvProblem<2>& c, const Requant<2>& rq, int threads, std::vector<uint8_t>& got) {
  const conv_param_t<2>& p = c.p;
  PackWeightMatrixForGConv<int8_t, int32_t, 2> W(matrix_op_t::Transpose, p, c.W.data());
  const int32_t* bias_i32 = rq.bias_kind == BiasKind::i32 ? rq.bias_i32.data() : nullptr;
  for_each_thread(threads, [&](int t, int n) {
    std::vector<int32_t> row_offsets(rowOffsetBufferSizeGConv(p));
    DoNothing<> done;
    if (rq.bias_kind == BiasKind::f32) {
      ReQuantizeOutput<false, Q, float> op(done, rq.multiplier.data(), rq.c_zp, c.a_zp,
                                           rq.b_zp.data(), nullptr, rq.col_offsets.data(),
                                           rq.bias_f32.data(), p.OC, p.G, rq.act_w_scale.data());
      if (rq.relu) {
        ReQuantizeOutput<true, Q, float> relu_op(done, rq.multiplier.data(), rq.c_zp, c.a_zp,
                                                 rq.b_zp.data(), nullptr, rq.col_offsets.data(),
                                                 rq.bias_f32.data(), p.OC, p.G,
                                                 rq.act_w_scale.data());
        fbgemmGroupwiseConv(p, c.A.data(), c.a_zp, row_offsets.data(), W, got.data(), nullptr,
                            relu_op, t, n);
      } else {
        fbgemmGroupwiseConv(p, c.A.data(), c.a_zp, row_offsets.data(), W, got.data(), nullptr,
                            op, t, n);
      }
      return;
    }
    if (rq.relu) {
      ReQuantizeOutput<true, Q> op(done, rq.multiplier.data(), rq.c_zp, c.a_zp, rq.b_zp.data(),
                                   nullptr, rq.col_offsets.data(), bias_i32, p.OC, p.G);
      fbgemmGroupwiseConv(p, c.A.data(), c.a_zp, row_offsets.data(), W, got.data(), nullptr, op,
                          t, n);
    } else {
      ReQuantizeOutput<false, Q> op(done, rq.multiplier.data(), rq.c_zp, c.a_zp, rq.b_zp.data(),
                                    nullptr, rq.col_offsets.data(), bias_i32, p.OC, p.G);
      fbgemmGroupwiseConv(p, c.A.data(), c.a_zp, row_offsets.data(), W, got.data(), nullptr, op,
                          t, n);
    }
  });
}

// Every supported path and 1-3 threads; the seed picks bias kind, ReLU and symmetric B.
template <Gran Q>
void check(const ConvProblem<2>& c, uint32_t seed) {
  SCOPED_TRACE(c.p.toString() + " " + gran_name(Q) + " a_zp " + std::to_string(c.a_zp));
  const BiasKind kinds[] = {BiasKind::none, BiasKind::i32, BiasKind::f32};
  const Requant<2> rq(c, Q, seed % 2 == 0, kinds[seed % 3], seed % 5 == 0, seed);
  for_each_supported_path([&] {
    for (int threads = 1; threads <= 3; ++threads) {
      std::vector<uint8_t> got(rq.want.size(), 0);
      run<Q>(c, rq, threads, got);
      ASSERT_TRUE(same_bits(rq.want, got)) << threads << " threads";
    }
  });
}

// MB images of H x W, G groups of cg channels, 3x3, padding 1.
conv_param_t<2> layer(int MB, int H, int W, int G, int cg, int stride) {
  return conv_param_t<2>(MB, G * cg, G * cg, {H, W}, G, {3, 3}, {stride, stride}, {1, 1, 1, 1});
}

TEST(GroupwiseForms, SevenBitAndFullRange) {
  uint32_t seed = 1;
  for (int cg : {2, 4, 8, 16})
    for (int stride : {1, 2})
      for (const auto& [H, W, G] : {std::tuple{7, 9, 4}, {17, 3, 2}, {1, 5, 3}})
        for (int a_max : {127, 255}) {
          const int a_zp = a_max == 127 ? 77 : 150;
          const ConvProblem<2> c(layer(2, H, W, G, cg, stride), a_zp, seed, a_max);
          check<Gran::TENSOR>(c, seed++);
          check<Gran::GROUP>(c, seed++);
          check<Gran::OUT_CHANNEL>(c, seed++);
        }
}

// 7-bit activations, but a zero point the padding reads at 128 and above: the exact step.
TEST(GroupwiseForms, SevenBitUnderAWideZeroPoint) {
  uint32_t seed = 100;
  for (int cg : {2, 4, 8, 16})
    for (int a_zp : {127, 128, 255}) {
      const ConvProblem<2> c(layer(1, 6, 5, 3, cg, 1), a_zp, seed, 127);
      check<Gran::OUT_CHANNEL>(c, seed++);
    }
}

// A batch of four images, 7-bit but for one byte of image 2: with 2 and 3 threads some
// shares hold only 7-bit images.
TEST(GroupwiseForms, ImagesOnEitherSideOfTheGate) {
  uint32_t seed = 200;
  for (int cg : {2, 4, 8, 16}) {
    ConvProblem<2> c(layer(4, 5, 6, 2, cg, 1), 64, seed, 127);
    c.A[2 * in_elements(c.p) / 4 + 17] = 200;
    c.reference();
    check<Gran::TENSOR>(c, seed++);
    check<Gran::OUT_CHANNEL>(c, seed++);
  }
}

// The certified step's bound: every weight w (127: pairs of 254, exact up to 32767 / 254 =
// 129; -128: pairs of -256, up to 128) and every activation a, the zero point a too, so
// that the zero-point term cancels the products and the output is C_zero_point; a pair
// that saturates is off by at least 256, which moves the output (by about 3 with 9
// pairs an output, 2 channels a group, to 10 with 72, 16 a group). At 127 the certified step runs, from 128 the exact one;
// a gate let through to the step's limit + 1 fails here.
TEST(GroupwiseForms, CertificateBound) {
  for (int cg : {2, 4, 8, 16})
    for (const auto& [w, limit] : {std::tuple{127, 129}, {-128, 128}})
      for (int a : {127, 128, limit, limit + 1}) {
        ConvProblem<2> c(layer(1, 4, 5, 2, cg, 1), a, 7);
        std::fill(c.A.begin(), c.A.end(), static_cast<uint8_t>(a));
        std::fill(c.W.begin(), c.W.end(), static_cast<int8_t>(w));
        c.reference();
        SCOPED_TRACE("cg " + std::to_string(cg) + " w " + std::to_string(w) + " a " +
                     std::to_string(a));
        const Requant<2> rq(c, Gran::TENSOR, false, BiasKind::none, true, 9);
        for_each_supported_path([&] {
          std::vector<uint8_t> got(rq.want.size(), 0);
          run<Gran::TENSOR>(c, rq, 1, got);
          ASSERT_TRUE(same_bits(rq.want, got));
        });
      }
}

}  // namespace
}  // namespace quire::test
