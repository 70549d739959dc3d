// Helpers of the sparse tests: random block-sparse weights and the plain forms of the
// sparse int8 product's requantization, written from SparseRequantize.h's formulas.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "quire/SparseRequantize.h"

namespace quire::test {

// An R x C int8 matrix, full range, in which each 1 x 4 block (FBGEMM's default BCSR
// block) is zero with probability `zero_fraction`.
inline std::vector<int8_t> block_sparse_s8(int R, int C, double zero_fraction, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> value(-128, 127);
  std::bernoulli_distribution zero(zero_fraction);
  std::vector<int8_t> w(static_cast<size_t>(R) * C, 0);
  for (int i = 0; i < R; ++i)
    for (int b = 0; b < C; b += 4) {
      if (zero(gen)) continue;
      for (int j = b; j < std::min(C, b + 4); ++j) w[static_cast<size_t>(i) * C + j] = static_cast<int8_t>(value(gen));
    }
  return w;
}

// x86's cvtps2dq: half to even, INT32_MIN outside int32 or NaN.
inline int32_t x86_cvt(float y) {
  if (!(y >= -2147483648.0f && y < 2147483648.0f)) return INT32_MIN;
  return static_cast<int32_t>(std::nearbyint(y));
}

// trRequantizeOpt's formula for one element (row i, block-relative column jr).
inline uint8_t opt_requant(int32_t v, int i, int jr, const trRequantizationParams_t& r,
                           bool relu, bool act_sym, bool w_sym, bool has_bias, bool per_ch) {
  const int q = per_ch ? i : 0;
  int64_t x = v;
  if (!act_sym) x -= int64_t{r.act_zero_point} * r.weight_row_offsets[i];
  if (!w_sym) x -= int64_t{r.act_col_offsets[jr]} * r.weight_zero_points[q];
  const int32_t x32 = static_cast<int32_t>(static_cast<uint32_t>(x));
  const float s = r.act_times_w_scale[q];
  float f = static_cast<float>(x32);
  if (has_bias) f = f + r.bias[i] / s;
  const float y = f * (s / r.C_scale);
  const int64_t out = int64_t{x86_cvt(y)} + r.C_zero_point;
  const int64_t lo = relu ? r.C_zero_point : 0;
  return static_cast<uint8_t>(out < lo ? lo : out > 255 ? 255 : out);
}

}  // namespace quire::test
