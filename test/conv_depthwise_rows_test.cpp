// The depthwise row kernel (3x3, stride 1, pad 1, channels a multiple of 16; AVX512-VNNI)
// and the pixel kernel it stands beside, against the reference bit for bit on every
// path: channel counts whose 64-byte phases straddle pixels (16, 48, 80, 144, 208),
// images down to one pixel, odd row counts (a last unpaired row), 1-3 threads (row
// splits inside an image), batches, 3D frames, every bias kind and granularity, ReLU,
// and B zero points at the byte limits (-127 and 127 run the row kernel, -128 and
// wider values the others).
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "conv_test_util.h"

namespace quire::test {
namespace {

using Gran = QuantizationGranularity;

template <Gran Q, class BIAS>
void run_2d(const ConvProblem<2>& c, const Requant<2>& rq, int threads, std::vector<uint8_t>& got) {
  const conv_param_t<2>& p = c.p;
  const PackedDepthWiseConvMatrix B(p.OC, 9, c.W.data());
  const BIAS* bias = nullptr;
  if constexpr (std::is_same_v<BIAS, float>) bias = rq.bias_f32.data();
  else if (rq.bias_kind == BiasKind::i32) bias = rq.bias_i32.data();
  for_each_thread(threads, [&](int t, int n) {
    depthwise_2d_same_pad<Q, BIAS>(p.MB, p.IN_DIM[0], p.IN_DIM[1], p.IC, p.OC, 1, 1, c.a_zp,
                                   c.A.data(), rq.b_zp.data(), B, rq.multiplier.data(), rq.c_zp,
                                   got.data(), rq.col_offsets.data(), bias, rq.relu,
                                   rq.act_w_scale.data(), t, n);
  });
}

template <Gran Q>
void check_2d(int N, int H, int W, int C, uint32_t seed, int zp_lo = -127, int zp_hi = 127) {
  const conv_param_t<2> p(N, C, C, {H, W}, C, {3, 3}, {1, 1}, {1, 1, 1, 1});
  SCOPED_TRACE(p.toString() + " " + gran_name(Q) + " zp [" + std::to_string(zp_lo) + ", " +
               std::to_string(zp_hi) + "]");
  const ConvProblem<2> c(p, static_cast<int32_t>(seed * 37 % 256), seed);
  const BiasKind kinds[] = {BiasKind::none, BiasKind::i32, BiasKind::f32};
  const BiasKind bk = kinds[seed % 3];
  const Requant<2> rq(c, Q, seed % 2 == 0, bk, seed % 5 == 0, seed, zp_lo, zp_hi);
  for (const IsaCase& isa : all_isas()) {
    if (skip_unsupported(isa)) continue;
    ScopedIsa scoped(isa.isa);
    for (int threads = 1; threads <= 3; ++threads) {
      std::vector<uint8_t> got(rq.want.size(), 0);
      if (bk == BiasKind::f32) run_2d<Q, float>(c, rq, threads, got);
      else run_2d<Q, int32_t>(c, rq, threads, got);
      ASSERT_TRUE(same_bits(rq.want, got))
          << instSetName(isa.isa) << ", " << threads << " threads, relu " << rq.relu;
    }
  }
}

TEST(DepthwiseRows, ShapesAndChannels) {
  uint32_t seed = 100;
  for (int C : {16, 32, 48, 64, 80, 144, 208})
    for (const auto& [N, H, W] : {std::tuple{1, 1, 1}, {1, 1, 5}, {2, 2, 3}, {1, 3, 7}, {1, 5, 4},
                                  {2, 8, 9}, {1, 13, 6}}) {
      check_2d<Gran::OUT_CHANNEL>(N, H, W, C, ++seed);
      check_2d<Gran::TENSOR>(N, H, W, C, ++seed);
    }
  check_2d<Gran::GROUP>(1, 9, 11, 96, ++seed);
  check_2d<Gran::GROUP>(2, 4, 4, 16, ++seed);
}

// The mobile layers' channel counts on small images (wide rows, several phases).
TEST(DepthwiseRows, WideChannels) {
  uint32_t seed = 200;
  for (int C : {192, 576, 960}) check_2d<Gran::OUT_CHANNEL>(1, 5, 6, C, ++seed);
  check_2d<Gran::OUT_CHANNEL>(1, 7, 7, 960, ++seed);
}

// Zero points at and past the byte limits of the second dot product's weights (-z).
TEST(DepthwiseRows, ZeroPointLimits) {
  uint32_t seed = 300;
  for (const auto& [lo, hi] : {std::tuple{127, 127}, {-127, -127}, {-128, -128}, {-128, 127},
                               {128, 128}, {-300, 300}}) {
    check_2d<Gran::OUT_CHANNEL>(1, 6, 5, 48, ++seed, lo, hi);
    check_2d<Gran::TENSOR>(2, 3, 4, 64, ++seed, lo, hi);
  }
}

// 3D with a kernel one frame deep: frames are images to the row kernel.
TEST(DepthwiseRows, Frames3D) {
  uint32_t seed = 400;
  for (const auto& [T, C] : {std::tuple{3, 32}, {2, 144}}) {
    const conv_param_t<3> p(2, C, C, {T, 5, 6}, C, {1, 3, 3}, {1, 1, 1}, {0, 1, 1, 0, 1, 1});
    SCOPED_TRACE(p.toString());
    const ConvProblem<3> c(p, 17, ++seed);
    const Requant<3> rq(c, Gran::OUT_CHANNEL, true, BiasKind::i32, false, seed, -127, 127);
    const PackedDepthWiseConvMatrix B(C, 9, c.W.data());
    for (const IsaCase& isa : all_isas()) {
      if (skip_unsupported(isa)) continue;
      ScopedIsa scoped(isa.isa);
      std::vector<uint8_t> got(rq.want.size(), 0);
      for_each_thread(2, [&](int t, int n) {
        depthwise_3d_same_pad<Gran::OUT_CHANNEL>(p, c.a_zp, c.A.data(), rq.b_zp.data(), B,
                                                 rq.multiplier.data(), rq.c_zp, got.data(),
                                                 rq.col_offsets.data(), rq.bias_i32.data(),
                                                 rq.relu, nullptr, t, n);
      });
      ASSERT_TRUE(same_bits(rq.want, got)) << instSetName(isa.isa);
    }
  }
}

}  // namespace
}  // namespace quire::test
