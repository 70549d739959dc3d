// The depthwise row kernels (3x3, stride 1 or 2, pad 1, channels a multiple of 16;
// AVX512-VNNI) and the pixel kernel they stand beside, against the reference bit for bit
// on every path: channel counts whose 64-byte phases straddle pixels (16, 48, 80, 144,
// 208), images down to one pixel, odd row counts (a last unpaired row), odd and even
// widths and heights at stride 2, 1-3 threads (row splits inside an image), batches, 3D
// frames, end pads other than 1 at stride 2, every bias kind and granularity, ReLU, and
// B zero points at the byte limits (-127 and 127 run the row kernel, -128 and wider
// values the others). The row kernels' predicate is checked too, so that the shapes
// meant for them do reach them.
#include <gtest/gtest.h>

#include <climits>
#include <string>
#include <tuple>
#include <vector>

#include "conv_test_util.h"
#include "quire/detail/ConvDirect.h"
#include "quire/detail/ConvGeometry.h"

// The row kernels' predicate (src/conv/depthwise_rows.h; src/ is not on the tests'
// include path).
namespace quire::conv {
bool depthwise_rows_fit(const detail::ConvGeometry& g, const detail::DirectRequant& r);
}

namespace quire::test {
namespace {

using Gran = QuantizationGranularity;

// Whether the row kernel takes the layer (on the avx512_vnni path).
template <int D>
bool row_kernel_takes(const conv_param_t<D>& p, const Requant<D>& rq) {
  detail::DirectRequant r;
  r.b_zero_point = rq.b_zp.data();
  r.channels_per_q = rq.gran == Gran::OUT_CHANNEL ? 1
                     : rq.gran == Gran::GROUP      ? p.OC / p.G
                                                   : INT_MAX;
  return conv::depthwise_rows_fit(detail::conv_geometry(p), r);
}

template <Gran Q, class BIAS>
void run_2d(const ConvProblem<2>& c, const Requant<2>& rq, int threads, std::vector<uint8_t>& got) {
  const conv_param_t<2>& p = c.p;
  const PackedDepthWiseConvMatrix B(p.OC, 9, c.W.data());
  const BIAS* bias = nullptr;
  if constexpr (std::is_same_v<BIAS, float>) bias = rq.bias_f32.data();
  else if (rq.bias_kind == BiasKind::i32) bias = rq.bias_i32.data();
  for_each_thread(threads, [&](int t, int n) {
    depthwise_2d_same_pad<Q, BIAS>(p.MB, p.IN_DIM[0], p.IN_DIM[1], p.IC, p.OC, p.stride[0],
                                   p.stride[1], c.a_zp,
                                   c.A.data(), rq.b_zp.data(), B, rq.multiplier.data(), rq.c_zp,
                                   got.data(), rq.col_offsets.data(), bias, rq.relu,
                                   rq.act_w_scale.data(), t, n);
  });
}

template <Gran Q>
void check_2d(int N, int H, int W, int C, uint32_t seed, int zp_lo = -127, int zp_hi = 127,
              int stride = 1) {
  const conv_param_t<2> p(N, C, C, {H, W}, C, {3, 3}, {stride, stride}, {1, 1, 1, 1});
  SCOPED_TRACE(p.toString() + " " + gran_name(Q) + " zp [" + std::to_string(zp_lo) + ", " +
               std::to_string(zp_hi) + "]");
  const ConvProblem<2> c(p, static_cast<int32_t>(seed * 37 % 256), seed);
  const BiasKind kinds[] = {BiasKind::none, BiasKind::i32, BiasKind::f32};
  const BiasKind bk = kinds[seed % 3];
  const Requant<2> rq(c, Q, seed % 2 == 0, bk, seed % 5 == 0, seed, zp_lo, zp_hi);
  bool zp_fits = true;
  for (int32_t z : rq.b_zp) zp_fits = zp_fits && z >= -127 && z <= 127;
  EXPECT_EQ(row_kernel_takes(p, rq), zp_fits && C % 16 == 0);
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

// Zero points at and past the byte limits of the second dot product's weights (-z), and
// at and past the ymm paths' int16 limits (w - z in the tap-pair kernel's words).
TEST(DepthwiseRows, ZeroPointLimits) {
  uint32_t seed = 300;
  for (const auto& [lo, hi] : {std::tuple{127, 127}, {-127, -127}, {-128, -128}, {-128, 127},
                               {128, 128}, {-300, 300}, {32640, 32640}, {-32640, -32640},
                               {-32640, 32640}, {32641, 32641}, {-32641, -32641}}) {
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

// Stride 2: odd and even heights and widths (an odd width ends in a padding column, an
// odd height in a padding row), a last unpaired row, batches, every granularity and
// bias kind (the seed picks bias, ReLU and symmetric B), and the channel counts of
// MobileNet-v2's stride-2 layers on small images.
TEST(DepthwiseRows, Stride2Shapes) {
  uint32_t seed = 500;
  for (int C : {16, 48, 64, 96, 144})
    for (const auto& [N, H, W] : {std::tuple{1, 1, 1}, {2, 2, 3}, {1, 3, 2}, {2, 7, 13},
                                  {1, 14, 17}, {1, 17, 14}, {2, 13, 7}, {1, 1, 17}, {1, 17, 1},
                                  {1, 2, 2}}) {
      check_2d<Gran::OUT_CHANNEL>(N, H, W, C, ++seed, -127, 127, 2);
      check_2d<Gran::TENSOR>(N, H, W, C, ++seed, -127, 127, 2);
    }
  check_2d<Gran::GROUP>(2, 9, 11, 96, ++seed, -127, 127, 2);
  check_2d<Gran::GROUP>(1, 14, 14, 32, ++seed, -127, 127, 2);
  for (int C : {192, 576}) check_2d<Gran::OUT_CHANNEL>(1, 7, 8, C, ++seed, -127, 127, 2);
}

// Stride 2 with zero points at and past the byte limits.
TEST(DepthwiseRows, Stride2ZeroPointLimits) {
  uint32_t seed = 600;
  for (const auto& [lo, hi] : {std::tuple{127, 127}, {-127, -127}, {-128, 127}, {-300, 300},
                               {32640, 32640}, {-32640, 32640}, {32641, 32641}}) {
    check_2d<Gran::OUT_CHANNEL>(1, 7, 6, 48, ++seed, lo, hi, 2);
    check_2d<Gran::TENSOR>(2, 6, 5, 64, ++seed, lo, hi, 2);
  }
}

// Stride 2 through depthwise_3d_same_pad, which honours conv_p's pads: frames one deep,
// and end pads 0 and 2 (outputs whose last window ends inside the input, or past it).
TEST(DepthwiseRows, Stride2EndPads) {
  uint32_t seed = 700;
  for (const auto& [T, H, W, end, C] : {std::tuple{2, 7, 9, 0, 32}, {1, 8, 6, 0, 48},
                                        {2, 6, 7, 2, 16}, {1, 9, 8, 2, 96}}) {
    const conv_param_t<3> p(2, C, C, {T, H, W}, C, {1, 3, 3}, {1, 2, 2},
                            {0, 1, 1, 0, end, end});
    SCOPED_TRACE(p.toString());
    const ConvProblem<3> c(p, 29, ++seed);
    const Requant<3> rq(c, Gran::OUT_CHANNEL, seed % 2 == 0, BiasKind::i32, false, seed, -127,
                        127);
    EXPECT_TRUE(row_kernel_takes(p, rq));
    const PackedDepthWiseConvMatrix B(C, 9, c.W.data());
    for (const IsaCase& isa : all_isas()) {
      if (skip_unsupported(isa)) continue;
      ScopedIsa scoped(isa.isa);
      for (int threads = 1; threads <= 3; ++threads) {
        std::vector<uint8_t> got(rq.want.size(), 0);
        for_each_thread(threads, [&](int t, int n) {
          depthwise_3d_same_pad<Gran::OUT_CHANNEL>(p, c.a_zp, c.A.data(), rq.b_zp.data(), B,
                                                   rq.multiplier.data(), rq.c_zp, got.data(),
                                                   rq.col_offsets.data(), rq.bias_i32.data(),
                                                   rq.relu, nullptr, t, n);
        });
        ASSERT_TRUE(same_bits(rq.want, got)) << instSetName(isa.isa) << ", " << threads
                                             << " threads";
      }
    }
  }
}

}  // namespace
}  // namespace quire::test
