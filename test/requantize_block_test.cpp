// requantizeOutputProcessingAvx2 and requantizeForFloatAvx2 (FBGEMM's block routines,
// quire/QuantUtilsAvx2.h) against their formulas written out here: every granularity,
// int32 and float bias, ReLU, symmetric and asymmetric A and B, DIRECT col_offsets, odd
// blocks inside a larger output, on every ISA path. uint8 output bit for bit; float output
// bit for bit (the same float operations in the same order).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "quant_test_util.h"
#include "quire/compat/fbgemm/QuantUtilsAvx2.h"

namespace quire::test {
namespace {

using QG = QuantizationGranularity;

struct Case {
  int M, N, groups;
  block_type_t block;
};

// Group index of absolute column j as FBGEMM's routines take it.
int quant_index(QG g, const Case& c, int j) {
  if (g == QG::OUT_CHANNEL) return j;
  if (g == QG::GROUP) return c.block.col_start / (c.N / c.groups);
  return 0;
}

struct Data {
  std::vector<int32_t> inp, row_off, col_off, b_zp, bias_i;
  std::vector<float> mult, bias_f, act, b_scale;
};

Data make_data(const Case& c, uint32_t seed) {
  Data d;
  const auto& b = c.block;
  d.inp = random_vector<int32_t>(size_t(b.row_size) * b.col_size, -200000, 200000, seed);
  d.row_off = random_vector<int32_t>(size_t(b.row_size), -3000, 3000, seed + 1);
  d.col_off = random_vector<int32_t>(size_t(c.M) * c.N, -3000, 3000, seed + 2);  // DIRECT size
  d.b_zp = random_vector<int32_t>(size_t(c.N), -5, 5, seed + 3);
  d.bias_i = random_vector<int32_t>(size_t(c.N), -50000, 50000, seed + 4);
  for (int j = 0; j < c.N; ++j) {
    d.mult.push_back(0.0007f + 0.00013f * j);
    d.bias_f.push_back(0.37f * j - 3.1f);
    d.act.push_back(0.013f + 0.0031f * j);
    d.b_scale.push_back(0.02f + 0.001f * j);
  }
  return d;
}

template <bool ASYM, bool BSYM, QG G, bool BIAS, bool RELU, class BiasT, bool DIRECT>
void check_u8(const Case& c, uint32_t seed) {
  const Data d = make_data(c, seed);
  const auto& b = c.block;
  const int32_t a_zp = ASYM ? 0 : 3, c_zp = 17;
  const BiasT* bias = nullptr;
  if constexpr (std::is_same_v<BiasT, float>) bias = d.bias_f.data();
  else bias = d.bias_i.data();
  const requantizationParams_t<BiasT> r{a_zp, BSYM ? nullptr : d.b_zp.data(), c_zp,
                                        d.mult.data(), BSYM ? nullptr : d.row_off.data(),
                                        d.col_off.data(), BIAS ? bias : nullptr, uint32_t(c.N),
                                        c.groups, d.act.data()};
  const int ld_out = c.N;
  std::vector<uint8_t> want(size_t(c.M) * c.N, 0xCD), got(want);
  for (int i = b.row_start; i < b.row_start + b.row_size; ++i)
    for (int j = b.col_start; j < b.col_start + b.col_size; ++j) {
      const int ri = i - b.row_start, q = quant_index(G, c, j);
      int32_t raw = d.inp[size_t(ri) * b.col_size + (j - b.col_start)];
      const int32_t co = DIRECT ? d.col_off[size_t(i) * b.col_size + j] : d.col_off[j];
      if (!ASYM) raw -= a_zp * co;
      if (!BSYM) raw -= d.b_zp[q] * d.row_off[ri];
      float x;
      if (BIAS && std::is_same_v<BiasT, float>) {
        const float bq = G == QG::OUT_CHANNEL ? d.bias_f[j] / d.act[j]
                                              : d.bias_f[j] * float(1.0 / d.act[q]);
        x = (float(raw) + bq) * d.mult[q];
      } else {
        x = float(BIAS ? raw + d.bias_i[j] : raw) * d.mult[q];
      }
      const double v = std::nearbyint(x) + c_zp;
      want[size_t(i) * ld_out + j] = uint8_t(v < (RELU ? c_zp : 0) ? (RELU ? c_zp : 0) : v > 255 ? 255 : v);
    }
  requantizeOutputProcessingAvx2<ASYM, BSYM, G, BIAS, RELU, BiasT, DIRECT>(
      got.data(), d.inp.data(), b, ld_out, b.col_size, r);
  ASSERT_TRUE(same_bits(want, got)) << "G " << int(G) << " bias " << BIAS << " relu " << RELU
                                    << " asym " << ASYM << " bsym " << BSYM << " direct " << DIRECT;
}

template <bool ASYM, bool BSYM, QG G, bool BIAS, bool RELU>
void check_f32(const Case& c, uint32_t seed) {
  const Data d = make_data(c, seed);
  const auto& b = c.block;
  const int32_t a_zp = ASYM ? 0 : 3;
  const float a_scale = 0.05f;
  const requantizationForFloatParams_t r{a_zp, BSYM ? nullptr : d.b_zp.data(), a_scale,
                                         d.b_scale.data(), BSYM ? nullptr : d.row_off.data(),
                                         d.col_off.data(), BIAS ? d.bias_f.data() : nullptr,
                                         uint32_t(c.N), c.groups};
  std::vector<float> want(size_t(c.M) * c.N, -7.0f), got(want);
  for (int i = b.row_start; i < b.row_start + b.row_size; ++i)
    for (int j = b.col_start; j < b.col_start + b.col_size; ++j) {
      const int ri = i - b.row_start, q = quant_index(G, c, j);
      int32_t raw = d.inp[size_t(ri) * b.col_size + (j - b.col_start)];
      if (!ASYM) raw -= a_zp * d.col_off[j];
      if (!BSYM) raw -= d.b_zp[q] * d.row_off[ri];
      float x = float(raw) * (a_scale * d.b_scale[q]);
      if (BIAS) x += d.bias_f[j];
      if (RELU) x = x > 0 ? x : 0.0f;
      want[size_t(i) * c.N + j] = x;
    }
  requantizeForFloatAvx2<ASYM, BSYM, G, BIAS, RELU>(got.data(), d.inp.data(), b, c.N, b.col_size, r);
  ASSERT_TRUE(same_bits(want, got)) << "G " << int(G) << " bias " << BIAS << " relu " << RELU;
}

template <QG G>
void check_granularity(const Case& c, uint32_t seed) {
  check_u8<false, false, G, true, false, int32_t, false>(c, seed);
  check_u8<false, false, G, true, true, float, false>(c, seed);
  check_u8<true, false, G, false, false, int32_t, false>(c, seed);
  check_u8<false, true, G, true, true, int32_t, false>(c, seed);
  check_u8<true, true, G, true, false, float, false>(c, seed);
  check_u8<false, false, G, true, false, float, true>(c, seed);
  check_f32<false, false, G, true, true>(c, seed);
  check_f32<true, false, G, false, false>(c, seed);
  check_f32<false, true, G, true, false>(c, seed);
}

TEST(RequantizeBlock, MatchesFormulasOnEveryPath) {
  // Blocks inside one group (as FBGEMM's callers make them) and, for TENSOR and
  // OUT_CHANNEL, anywhere.
  const Case cases[] = {{1, 1, 1, {0, 1, 0, 1}},        {3, 17, 1, {1, 2, 3, 13}},
                        {5, 63, 3, {0, 5, 21, 21}},     {4, 65, 5, {2, 2, 26, 13}},
                        {2, 130, 2, {0, 2, 65, 65}},    {6, 96, 3, {1, 5, 32, 31}},
                        {3, 40, 1, {0, 3, 5, 33}},      {4, 70, 2, {0, 4, 35, 35}}};
  for_each_isa([&] {
    uint32_t seed = 1;
    for (const Case& c : cases) {
      SCOPED_TRACE(std::to_string(c.M) + "x" + std::to_string(c.N) + " groups " +
                   std::to_string(c.groups));
      check_granularity<QG::TENSOR>(c, seed);
      check_granularity<QG::GROUP>(c, seed);
      check_granularity<QG::OUT_CHANNEL>(c, seed);
      seed += 10;
    }
  });
}

TEST(RequantizeBlock, BadArgumentsThrow) {
  int32_t inp[4] = {};
  uint8_t out[4];
  const float m = 0.1f;
  requantizationParams_t<> r{0, nullptr, 0, &m, nullptr, nullptr, nullptr, 4, 1, nullptr};
  EXPECT_INVALID(({"row_offsets"}),
                 requantizeOutputProcessingAvx2<true, false, QG::TENSOR, false, false>(
                     out, inp, {0, 1, 0, 4}, 4, 4, r));
  EXPECT_INVALID(({"ld_in"}), requantizeOutputProcessingAvx2<true, true, QG::TENSOR, false, false>(
                                  out, inp, {0, 1, 0, 4}, 4, 3, r));
  EXPECT_INVALID(({"bias"}), requantizeOutputProcessingAvx2<true, true, QG::TENSOR, true, false>(
                                 out, inp, {0, 1, 0, 4}, 4, 4, r));
}

}  // namespace
}  // namespace quire::test
