// trRequantizeOpt (every template combination, every ISA path) and trRequantizeRef against
// their formulas written out, over a block inside larger buffers, with full-range int32
// inputs (the out-of-range conversions included); bad arguments.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "quire/SparseRequantize.h"
#include "sparse_test_util.h"
#include "test_util.h"

namespace quire::test {
namespace {

using Gran = QuantizationGranularity;

constexpr int kRows = 7, kLdIn = 40, kLdOut = 45;
constexpr block_type_t kBlock{2, 5, 3, 37};

struct Data {
  std::vector<int32_t> inp, row_offsets, col_offsets, w_zp;
  std::vector<float> bias, scale;
  Data(uint32_t seed) {
    inp = random_vector<int32_t>((kBlock.row_size - 1) * kLdIn + kBlock.col_size, -6000, 6000, seed);
    // A few extremes: wrapping subtractions, conversions that overflow.
    inp[0] = INT32_MIN;
    inp[1] = INT32_MAX;
    inp[kLdIn + 5] = 2000000000;
    row_offsets = random_vector<int32_t>(kRows, -3000, 3000, seed + 1);
    row_offsets[3] = INT32_MAX / 2;
    col_offsets = random_vector<int32_t>(kBlock.col_size, 0, 20000, seed + 2);
    w_zp = random_vector<int32_t>(kRows, -6, 6, seed + 3);
    for (int v : random_vector<int>(kRows, -400, 400, seed + 4)) bias.push_back(v * 0.37f);
    for (int v : random_vector<int>(kRows, 1, 100, seed + 5))
      scale.push_back((v % 4 == 0 ? -1 : 1) * v * 0.0013f);
  }
  trRequantizationParams_t params(int32_t act_zp, bool has_bias, bool col) const {
    return {act_zp, w_zp.data(), 11, 0.7f, row_offsets.data(), col ? col_offsets.data() : nullptr,
            has_bias ? bias.data() : nullptr, scale.data()};
  }
};

template <int I>
void check_opt_combination(const Data& d) {
  constexpr bool relu = I & 1, act_sym = I & 2, w_sym = I & 4, has_bias = I & 8;
  constexpr Gran gran = (I & 16) ? Gran::OUT_CHANNEL : Gran::TENSOR;
  const trRequantizationParams_t r = d.params(act_sym ? 0 : 5, has_bias, !w_sym);
  std::vector<uint8_t> want((kRows - 1) * kLdOut + kLdIn, 0xCD);
  for (int i = kBlock.row_start; i < kBlock.row_start + kBlock.row_size; ++i)
    for (int jr = 0; jr < kBlock.col_size; ++jr)
      want[i * kLdOut + kBlock.col_start + jr] =
          opt_requant(d.inp[(i - kBlock.row_start) * kLdIn + jr], i, jr, r, relu, act_sym, w_sym,
                      has_bias, gran == Gran::OUT_CHANNEL);
  for (const IsaCase& isa : all_isas()) {
    if (skip_unsupported(isa)) continue;
    ScopedIsa scoped(isa.isa);
    std::vector<uint8_t> got(want.size(), 0xCD);
    trRequantizeOpt<relu, act_sym, w_sym, has_bias, gran>(got.data(), d.inp.data(), kBlock, kLdOut,
                                                          kLdIn, r);
    EXPECT_EQ(got, want) << "combination " << I << " on " << instSetName(isa.isa);
  }
}

TEST(SparseRequantize, OptEveryCombinationAndPath) {
  const Data d(3);
  [&]<int... I>(std::integer_sequence<int, I...>) {
    (check_opt_combination<I>(d), ...);
  }(std::make_integer_sequence<int, 32>{});
}

// FBGEMM's reference formula: (x + bias / s) * s / C_scale, rounded, C_zero_point added
// in float, converted as x86 does, clamped.
template <bool RELU, Gran G>
void check_ref(const Data& d, int32_t act_zp, bool has_bias, bool col) {
  const trRequantizationParams_t r = d.params(act_zp, has_bias, col);
  std::vector<uint8_t> want((kRows - 1) * kLdOut + kLdIn, 0xCD);
  for (int i = kBlock.row_start; i < kBlock.row_start + kBlock.row_size; ++i)
    for (int jr = 0; jr < kBlock.col_size; ++jr) {
      const int q = G == Gran::OUT_CHANNEL ? i : 0;
      int64_t raw = d.inp[(i - kBlock.row_start) * kLdIn + jr];
      if (act_zp) raw -= int64_t{act_zp} * r.weight_row_offsets[i];
      if (col) raw -= int64_t{r.act_col_offsets[jr]} * r.weight_zero_points[q];
      float f = static_cast<float>(static_cast<int32_t>(static_cast<uint32_t>(raw)));
      if (has_bias) f += r.bias[i] / r.act_times_w_scale[q];
      const float ab = f * r.act_times_w_scale[q] / r.C_scale;
      const int64_t rounded = x86_cvt(std::nearbyint(ab) + static_cast<float>(r.C_zero_point));
      const int64_t lo = RELU ? r.C_zero_point : 0;
      want[i * kLdOut + kBlock.col_start + jr] =
          static_cast<uint8_t>(rounded < lo ? lo : rounded > 255 ? 255 : rounded);
    }
  std::vector<uint8_t> got(want.size(), 0xCD);
  trRequantizeRef<RELU, G>(got.data(), d.inp.data(), kBlock, kLdOut, kLdIn, r);
  EXPECT_EQ(got, want) << "relu " << RELU << " per channel " << (G == Gran::OUT_CHANNEL)
                       << " act_zp " << act_zp << " bias " << has_bias << " col " << col;
}

TEST(SparseRequantize, RefFormula) {
  const Data d(8);
  for (int32_t act_zp : {0, 5})
    for (bool has_bias : {false, true})
      for (bool col : {false, true}) {
        check_ref<false, Gran::TENSOR>(d, act_zp, has_bias, col);
        check_ref<true, Gran::TENSOR>(d, act_zp, has_bias, col);
        check_ref<false, Gran::OUT_CHANNEL>(d, act_zp, has_bias, col);
        check_ref<true, Gran::OUT_CHANNEL>(d, act_zp, has_bias, col);
      }
}

#define W(...) ({__VA_ARGS__})
TEST(SparseRequantize, BadArguments) {
  const Data d(1);
  std::vector<uint8_t> out((kRows - 1) * kLdOut + kLdIn);
  const trRequantizationParams_t r = d.params(5, true, true);
  auto opt = [&](const block_type_t& b, int ld_out, int ld_in, const trRequantizationParams_t& p) {
    trRequantizeOpt<false, false, false, true, Gran::OUT_CHANNEL>(out.data(), d.inp.data(), b,
                                                                  ld_out, ld_in, p);
  };
  EXPECT_NO_THROW(opt(kBlock, kLdOut, kLdIn, r));
  EXPECT_INVALID(W("ld_in", "36"), opt(kBlock, kLdOut, 36, r));
  EXPECT_INVALID(W("ld_out", "39"), opt(kBlock, 39, kLdIn, r));
  EXPECT_INVALID(W("block"), opt({2, -1, 3, 37}, kLdOut, kLdIn, r));
  const trRequantizationParams_t no_bias = d.params(5, false, true);
  EXPECT_INVALID(W("bias"), opt(kBlock, kLdOut, kLdIn, no_bias));
  const trRequantizationParams_t no_col = d.params(5, true, false);
  EXPECT_INVALID(W("act_col_offsets"), opt(kBlock, kLdOut, kLdIn, no_col));
  const trRequantizationParams_t nan_scale{5, d.w_zp.data(), 11, std::nanf(""), d.row_offsets.data(),
                                           d.col_offsets.data(), d.bias.data(), d.scale.data()};
  EXPECT_INVALID(W("C_scale"), opt(kBlock, kLdOut, kLdIn, nan_scale));
  EXPECT_INVALID(W("out"), trRequantizeRef<false, Gran::TENSOR>(nullptr, d.inp.data(), kBlock,
                                                                kLdOut, kLdIn, r));
  EXPECT_NO_THROW(opt({2, 0, 3, 37}, kLdOut, kLdIn, r));  // an empty block
}
#undef W

}  // namespace
}  // namespace quire::test
