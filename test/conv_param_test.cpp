// conv_param_t: derived dimensions (forward and transposed, 1D to 3D), toString, and
// validation: every impossible shape throws std::invalid_argument naming the parameter,
// also when a field is edited after construction and the shape reaches an entry point.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "conv_test_util.h"

namespace quire::test {
namespace {

TEST(ConvParam, DerivedDimsForward) {
  const conv_param_t<2> p(1, 3, 64, {224, 224}, 1, {7, 7}, {2, 2}, {3, 3, 3, 3});
  EXPECT_EQ((std::array<int, 2>{112, 112}), p.OUT_DIM);  // (224 + 6 - 7) / 2 + 1
  EXPECT_EQ((std::array<int, 2>{230, 230}), p.IN_DIMP);
  EXPECT_EQ((std::array<int, 2>{1, 1}), p.dilation);  // default
  EXPECT_FALSE(p.transposed);
  // Asymmetric pads and dilation: (10 + 0 + 3 - 2 * 2 - 1) / 3 + 1 = 3.
  const conv_param_t<1> q(2, 4, 4, {10}, 2, {3}, {3}, {0, 3}, {2});
  EXPECT_EQ(3, q.OUT_DIM[0]);
  EXPECT_EQ(13, q.IN_DIMP[0]);
  const conv_param_t<3> r(1, 8, 8, {4, 9, 10}, 1, {3, 3, 1}, {1, 2, 1}, {1, 1, 0, 1, 0, 0});
  EXPECT_EQ((std::array<int, 3>{4, 4, 10}), r.OUT_DIM);
}

TEST(ConvParam, DerivedDimsTransposed) {
  // (IN - 1) * stride - pads + dilation * (K - 1) + output_pad + 1
  const conv_param_t<2> p(1, 8, 4, {4, 5}, 1, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, {1, 0}, true);
  EXPECT_EQ((std::array<int, 2>{8, 9}), p.OUT_DIM);
  EXPECT_EQ((std::array<int, 2>{6, 7}), p.IN_DIMP);  // IN + 2 * dilation * (K - 1) - pads
  EXPECT_TRUE(p.transposed);
  // output_pad at or past the stride (FBGEMM accepts it): (30 - 1) * 1 - 2 + 2 + 1 + 1 = 31,
  // and (4 - 1) * 2 - 2 + 2 + 3 + 1 = 10 (by 5 along W).
  const conv_param_t<1> q(1, 16, 16, {30}, 1, {3}, {1}, {1, 1}, {1}, {1}, true);
  EXPECT_EQ(31, q.OUT_DIM[0]);
  const conv_param_t<2> r(1, 8, 8, {4, 4}, 8, {3, 3}, {2, 1}, {1, 1, 1, 1}, {1, 1}, {3, 1}, true);
  EXPECT_EQ((std::array<int, 2>{10, 5}), r.OUT_DIM);
}

TEST(ConvParam, ToString) {
  const conv_param_t<2> p(1, 64, 32, {56, 28}, 2, {3, 1}, {1, 2}, {1, 0, 2, 0});
  EXPECT_EQ(
      "MB:1, IC:64, OC:32, IH:56, IW:28, G:2, KH:3, KW:1, stride_H:1, stride_W:2, pad_H:1, "
      "pad_W:0, pad_H:2, pad_W:0, dilation_H:1, dilation_W:1",
      p.toString());
  const conv_param_t<1> t(1, 4, 4, {5}, 1, {3}, {2}, {1, 1}, {1}, {1}, true);
  EXPECT_EQ(
      "MB:1, IC:4, OC:4, IW:5, G:1, KW:3, stride_W:2, pad_W:1, pad_W:1, dilation_W:1, "
      "transposed, output_padding_W:1",
      t.toString());
  const conv_param_t<3> d(1, 4, 4, {3, 4, 5}, 1, {1, 1, 1}, {1, 1, 1}, {0, 0, 0, 0, 0, 0});
  EXPECT_NE(std::string::npos, d.toString().find("IT:3, IH:4, IW:5"));
}

// Constructs with one argument changed and expects std::invalid_argument naming `name`.
template <class F>
void expect_rejects(F make, const std::string& name) {
  try {
    make();
    ADD_FAILURE() << "no exception for " << name;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string::npos, std::string(e.what()).find(name)) << e.what();
  }
}

TEST(ConvParam, RejectsImpossibleShapes) {
  using P = conv_param_t<2>;
  // MB = 0 is an empty batch (conv_empty_batch_test); a negative one is impossible.
  expect_rejects([] { P(-1, 4, 4, {5, 5}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}); }, "MB=-1");
  expect_rejects([] { P(1, 0, 4, {5, 5}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}); }, "IC=0");
  expect_rejects([] { P(1, 4, -2, {5, 5}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}); }, "OC=-2");
  expect_rejects([] { P(1, 4, 4, {5, 5}, 0, {3, 3}, {1, 1}, {1, 1, 1, 1}); }, "G=0");
  expect_rejects([] { P(1, 6, 8, {5, 5}, 4, {3, 3}, {1, 1}, {1, 1, 1, 1}); }, "G=4 must divide IC");
  expect_rejects([] { P(1, 8, 6, {5, 5}, 4, {3, 3}, {1, 1}, {1, 1, 1, 1}); }, "G=4 must divide OC");
  expect_rejects([] { P(1, 4, 4, {5, 0}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}); }, "IN_DIM[1]=0");
  expect_rejects([] { P(1, 4, 4, {5, 5}, 1, {0, 3}, {1, 1}, {1, 1, 1, 1}); }, "K[0]=0");
  expect_rejects([] { P(1, 4, 4, {5, 5}, 1, {3, 3}, {1, -1}, {1, 1, 1, 1}); }, "stride[1]=-1");
  expect_rejects([] { P(1, 4, 4, {5, 5}, 1, {3, 3}, {1, 1}, {1, 1, -1, 1}); }, "pad[2]=-1");
  expect_rejects([] { P(1, 4, 4, {5, 5}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 0}); }, "dilation[1]=0");
  // A kernel wider than the padded input: 7 > 3 + 1 + 1.
  expect_rejects([] { P(1, 4, 4, {3, 9}, 1, {7, 3}, {1, 1}, {1, 1, 1, 1}); }, "K[0]=7");
  // Dilation makes a 3-tap kernel span 5 > 4.
  expect_rejects([] { P(1, 4, 4, {4, 9}, 1, {3, 3}, {1, 1}, {0, 0, 0, 0}, {2, 1}); }, "K[0]=3");
  expect_rejects([] { P(1, 4, 4, {5, 5}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, {1, 0}); },
                 "output_pad[0]=1");
  // Transposed with pads that leave nothing: (1 - 1) * 1 - 3 - 3 + 2 + 1 < 1.
  expect_rejects([] { P(1, 4, 4, {1, 5}, 1, {3, 3}, {1, 1}, {3, 0, 3, 0}, {1, 1}, {0, 0}, true); },
                 "K[0]=3");
  // Sizes whose product overflows int32: 65536 x 65536 pixels.
  expect_rejects([] { P(1, 1, 1, {65536, 65536}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}); }, "overflows int32");
}

TEST(ConvParam, EntryPointsRecheckEditedFields) {
  conv_param_t<2> p(1, 8, 8, {5, 5}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1});
  const ConvProblem<2> c(p, 0, 1);
  PackWeightsForConv<2> w(p, c.W.data());
  p.G = 3;  // no longer divides IC
  std::vector<uint8_t> out(c.C32.size());
  std::vector<int32_t> buf(c.C32.size());
  const float mult = 0.01f;
  const int32_t zp = 0;
  DoNothing<> done;
  ReQuantizeOutput<false> op(done, &mult, 0, 0, &zp, nullptr, nullptr, nullptr, 8);
  expect_rejects([&] { fbgemmConv(p, c.A.data(), w, out.data(), buf.data(), op, 0, 1); },
                 "fbgemmConv: G=3");
  p.G = 1;
  p.OUT_DIM[1] = 4;
  expect_rejects([&] { fbgemmConv(p, c.A.data(), w, out.data(), buf.data(), op, 0, 1); },
                 "OUT_DIM[1]=4");
  expect_rejects([&] { PackWeightsForConv<2> bad(p, c.W.data()); }, "PackWeightsForConv: OUT_DIM[1]=4");
}

// FBGEMM's callers recognise its conv errors by the message prefix "[FBGEMM_CONV_ERROR]"
// on a std::logic_error: weights packed for other parameters, and parameters edited after
// construction (FBGEMM's UniConvTest changes a stride without recomputing OUT_DIM).
TEST(ConvParam, ConvErrorsCarryFbgemmPrefix) {
  const conv_param_t<2> p(1, 8, 8, {5, 5}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1});
  const ConvProblem<2> c(p, 0, 1);
  PackWeightsForConv<2> w(p, c.W.data());
  std::vector<uint8_t> out(c.C32.size() * 4);
  std::vector<int32_t> buf(c.C32.size() * 4);
  const float mult = 0.01f;
  const int32_t zp = 0;
  DoNothing<> done;
  ReQuantizeOutput<false> op(done, &mult, 0, 0, &zp, nullptr, nullptr, nullptr, 8);
  const auto expect_prefix = [&](const conv_param_t<2>& q, const std::string& names) {
    try {
      fbgemmConv(q, c.A.data(), w, out.data(), buf.data(), op, 0, 1);
      ADD_FAILURE() << "no exception for " << names;
    } catch (const std::logic_error& e) {
      const std::string what = e.what();
      EXPECT_EQ(0u, what.rfind("[FBGEMM_CONV_ERROR]", 0)) << what;
      EXPECT_NE(std::string::npos, what.find(names)) << what;
    }
  };
  conv_param_t<2> strided = p;
  strided.stride[0] = 2;  // OUT_DIM left as it was
  expect_prefix(strided, "OUT_DIM[0]");
  const conv_param_t<2> other(1, 8, 8, {5, 5}, 1, {3, 3}, {2, 2}, {1, 1, 1, 1});
  expect_prefix(other, "packed for other conv parameters");
  std::vector<int8_t> taps(8 * 9, 1);
  PackedDepthWiseConvMatrix dw(8, 9, taps.data());
  std::vector<uint8_t> act(8 * 25, 0), dw_out(8 * 25);
  try {
    depthwise_2d_same_pad<QuantizationGranularity::TENSOR>(
        1, 5, 5, 8, 16, 1, 1, 0, act.data(), &zp, dw, &mult, 0, dw_out.data(), nullptr,
        static_cast<const int32_t*>(nullptr));
    ADD_FAILURE() << "no exception for Bp.numChannels()";
  } catch (const std::logic_error& e) {
    EXPECT_EQ(0u, std::string(e.what()).rfind("[FBGEMM_CONV_ERROR]", 0)) << e.what();
  }
}

}  // namespace
}  // namespace quire::test
