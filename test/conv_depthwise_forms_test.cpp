// The two depthwise kernels of the ymm paths (src/conv/depthwise_rows_avx2.cpp: the
// certified vpmaddubsw row kernel for stride-1 shares of 7-bit activations, the exact
// vpmaddwd tap-pair kernel for the rest) against the reference bit for bit on every
// path: full-range and 7-bit activations with full-range weights, pair-safe weights with
// full-range activations, phases with different weights, images whose rows are 7-bit
// in part, activations at the certified form's bound and one past it (on both signs)
// and at the 7-bit gate, stride 1 and 2, per tensor, per group and per channel, ReLU,
// every bias kind, 1-3 threads (shares that fall on either side of the gate), and odd
// channel counts, which the pixel kernel takes.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "conv_test_util.h"

namespace quire::test {
namespace {

using Gran = QuantizationGranularity;

// Activations in [0, a_max], weights in [w_lo, w_hi], B zero points in [z_lo, z_hi].
struct Data {
  const char* name;
  int a_max, w_lo, w_hi, z_lo, z_hi;
};
constexpr Data kFull = {"full range", 255, -128, 127, -128, 127};
constexpr Data k7Bit = {"7-bit activations", 127, -128, 127, -128, 127};
// |w| <= 64 with |z| <= 64: no vpmaddubsw pair can saturate, whatever the activations.
constexpr Data kSafe = {"pair-safe weights", 255, -64, 64, -64, 64};

template <Gran Q, class BIAS>
void run(const ConvProblem<2>& c, const Requant<2>& rq, int threads, std::vector<uint8_t>& got) {
  const conv_param_t<2>& p = c.p;
  const PackedDepthWiseConvMatrix B(p.OC, 9, c.W.data());
  const BIAS* bias = nullptr;
  if constexpr (std::is_same_v<BIAS, float>) bias = rq.bias_f32.data();
  else if (rq.bias_kind == BiasKind::i32) bias = rq.bias_i32.data();
  for_each_thread(threads, [&](int t, int n) {
    depthwise_2d_same_pad<Q, BIAS>(p.MB, p.IN_DIM[0], p.IN_DIM[1], p.IC, p.OC, p.stride[0],
                                   p.stride[1], c.a_zp, c.A.data(), rq.b_zp.data(), B,
                                   rq.multiplier.data(), rq.c_zp, got.data(),
                                   rq.col_offsets.data(), bias, rq.relu, rq.act_w_scale.data(), t,
                                   n);
  });
}

// Every supported path and 1-3 threads; the seed picks bias kind, ReLU and symmetric B.
template <Gran Q>
void check(const ConvProblem<2>& c, const Data& d, uint32_t seed) {
  SCOPED_TRACE(c.p.toString() + " " + gran_name(Q) + " " + d.name);
  const BiasKind kinds[] = {BiasKind::none, BiasKind::i32, BiasKind::f32};
  const BiasKind bk = kinds[seed % 3];
  const Requant<2> rq(c, Q, seed % 2 == 0, bk, seed % 5 == 0, seed, d.z_lo, d.z_hi);
  for_each_supported_path([&] {
    for (int threads = 1; threads <= 3; ++threads) {
      std::vector<uint8_t> got(rq.want.size(), 0);
      if (bk == BiasKind::f32) run<Q, float>(c, rq, threads, got);
      else run<Q, int32_t>(c, rq, threads, got);
      ASSERT_TRUE(same_bits(rq.want, got)) << threads << " threads, relu " << rq.relu;
    }
  });
}

conv_param_t<2> layer(int N, int H, int W, int C, int stride) {
  return conv_param_t<2>(N, C, C, {H, W}, C, {3, 3}, {stride, stride}, {1, 1, 1, 1});
}

TEST(DepthwiseForms, DataAndShapes) {
  uint32_t seed = 1000;
  for (const Data& d : {kFull, k7Bit, kSafe})
    for (int stride : {1, 2})
      for (int C : {16, 48, 96, 144, 1, 3, 17, 63, 65})
        for (const auto& [N, H, W] : {std::tuple{1, 1, 1}, {1, 3, 7}, {2, 5, 4}, {1, 9, 8}}) {
          ++seed;
          const ConvProblem<2> c(layer(N, H, W, C, stride), seed * 37 % 256, seed, d.a_max,
                                 d.w_lo, d.w_hi);
          if (seed % 2 == 0) check<Gran::OUT_CHANNEL>(c, d, seed);
          else check<Gran::TENSOR>(c, d, seed);
        }
}

TEST(DepthwiseForms, GroupGranularity) {
  uint32_t seed = 2000;
  for (const Data& d : {kFull, k7Bit, kSafe})
    for (int stride : {1, 2}) {
      ++seed;
      const ConvProblem<2> c(layer(2, 7, 6, 64, stride), 99, seed, d.a_max, d.w_lo, d.w_hi);
      check<Gran::GROUP>(c, d, seed);
    }
}

// Pair-safe weights except in a few channels (every tap 127 or -128: limits 129 and 128),
// whose phases then take the exact form with full-range activations while the others
// stay certified: 96 channels are three phases
// of 32; with 48 a phase straddles two pixels and channel 5 is in two of the three.
TEST(DepthwiseForms, MixedPhases) {
  uint32_t seed = 3000;
  for (const auto& [C, first, count] : {std::tuple{96, 32, 16}, {48, 5, 1}, {144, 100, 3}})
    for (int stride : {1, 2})
      for (const Data& d : {kSafe, k7Bit}) {
        ++seed;
        ConvProblem<2> c(layer(1, 6, 7, C, stride), 77, seed, d.a_max, kSafe.w_lo, kSafe.w_hi);
        for (int ch = first; ch < first + count; ++ch)
          for (int t = 0; t < 9; ++t) c.W[ch * 9 + t] = static_cast<int8_t>(ch % 2 ? -128 : 127);
        c.reference();
        check<Gran::OUT_CHANNEL>(c, kSafe, seed);
      }
}

// Rows of 7-bit activations above rows of full-range ones, full-range weights, zero
// point 100: with 2 and 3 threads some stride-1 shares are all 7-bit (the row kernel)
// and others not (the tap-pair kernel).
TEST(DepthwiseForms, MixedRows) {
  uint32_t seed = 4000;
  for (int stride : {1, 2})
    for (const auto& [H, full_from] : {std::tuple{9, 4}, {12, 7}, {8, 1}, {10, 5}}) {
      ++seed;
      ConvProblem<2> c(layer(2, H, 6, 48, stride), 100, seed, 127);
      const std::vector<uint8_t> full = random_vector<uint8_t>(c.A.size(), 0, 255, seed + 7);
      for (size_t i = 0; i < c.A.size(); ++i)
        if (static_cast<int>(i / (6 * 48) % H) >= full_from) c.A[i] = full[i];
      c.reference();
      check<Gran::OUT_CHANNEL>(c, kFull, seed);
    }
}

// The certified form's bound: every weight w (127: pairs of P = 254, exact up to 32767 /
// 254 = 129; -128: N = -256, up to 128) and every activation a, the zero point a too, so
// that raw is 0 and the output is C_zero_point = 128; a pair that saturates makes it
// wrong by hundreds. At 127 the row kernel runs (stride 1), from 128 the tap-pair kernel;
// a gate let through to the form's limit + 1 fails here.
TEST(DepthwiseForms, CertificateBound) {
  for (const auto& [w, limit] : {std::tuple{127, 129}, {-128, 128}})
    for (int a : {127, 128, limit, limit + 1})
      for (int stride : {1, 2}) {
        const conv_param_t<2> p = layer(1, 5, 6, 32, stride);
        SCOPED_TRACE(p.toString() + " w " + std::to_string(w) + " a " + std::to_string(a));
        const std::vector<uint8_t> A(static_cast<size_t>(in_elements(p)), static_cast<uint8_t>(a));
        const std::vector<int8_t> W(32 * 9, static_cast<int8_t>(w));
        const PackedDepthWiseConvMatrix B(32, 9, W.data());
        const int32_t b_zp = 0;
        const float mult = 1.0f;
        const std::vector<int32_t> col_offsets(32, 9 * w);
        const std::vector<uint8_t> want(static_cast<size_t>(out_pixels(p)) * 32, 128);
        for_each_supported_path([&] {
          std::vector<uint8_t> got(want.size(), 0);
          depthwise_2d_same_pad<Gran::TENSOR>(1, 5, 6, 32, 32, stride, stride, a, A.data(), &b_zp,
                                              B, &mult, 128, got.data(), col_offsets.data(),
                                              static_cast<const int32_t*>(nullptr));
          ASSERT_TRUE(same_bits(want, got));
        });
      }
}

}  // namespace
}  // namespace quire::test
