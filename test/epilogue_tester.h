// EpilogueTester: one routine of one path's EpilogueTable (src/epilogue/epilogue_table.h)
// called directly, outside any op or GEMM, on a block built from the options, and
// compared bit for bit with quire::ref (ReferenceOutput.h). A builder in the manner of
// XNNPACK's micro-kernel testers (docs/kernel-tester.md):
//   EpilogueTester().rows(3).cols(17).col_start(5).granularity(OUT_CHANNEL)
//       .bias(BiasKind::float32).relu(true).TestRequantizeU8(table);
// The output matrix is filled with a sentinel first: every element outside the block (the
// row padding included) must keep it.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "../src/epilogue/epilogue_table.h"
#include "quire/ref/ReferenceOutput.h"

namespace quire::test {

class EpilogueTester {
 public:
  using BiasKind = detail::BiasKind;
  EpilogueTester& rows(int v) { rows_ = v; return *this; }
  EpilogueTester& cols(int v) { cols_ = v; return *this; }
  // The block's first column inside an output of col_start + cols + 2 columns.
  EpilogueTester& col_start(int v) { col_start_ = v; return *this; }
  EpilogueTester& ld_in_pad(int v) { ld_in_pad_ = v; return *this; }
  EpilogueTester& ld_out_pad(int v) { ld_out_pad_ = v; return *this; }
  EpilogueTester& granularity(QuantizationGranularity v) { gran_ = v; return *this; }
  EpilogueTester& groups(int v) { groups_ = v; return *this; }  // GROUP granularity
  EpilogueTester& a_zero_point(int32_t v) { a_zp_ = v; return *this; }
  EpilogueTester& b_zero_point(bool v) { b_zp_ = v; return *this; }  // nonzero per group
  EpilogueTester& bias(BiasKind v) { bias_ = v; return *this; }
  EpilogueTester& relu(bool v) { relu_ = v; return *this; }
  EpilogueTester& c_zero_point(int32_t v) { c_zp_ = v; return *this; }
  EpilogueTester& value(int32_t v) { value_ = v; return *this; }  // scale factor, relu floor
  EpilogueTester& seed(uint32_t v) { seed_ = v; return *this; }

  void TestRequantizeU8(const detail::EpilogueTable& t) const {
    Operands o = operands();
    const std::vector<float> act_scale = random_floats(o.n_q, 0.25f, 4.0f, seed_ + 7);
    std::vector<uint8_t> got(o.out_size, kSentinelU8), want(o.out_size, kSentinelU8);
    detail::RequantizeU8Args a{};
    a.in = o.in.data();
    a.ld_in = o.ld_in;
    a.out = got.data() + col_start_;
    a.ld_out = o.ld_out;
    a.rows = rows_;
    a.cols = cols_;
    a.zp = correction(o);
    a.multiplier = o.scale.data();
    a.bias_kind = bias_;
    a.bias_i32 = o.bias_i32.data() + col_start_;
    a.bias_f32 = o.bias_f32.data() + col_start_;
    a.act_times_w_scale = act_scale.data();
    a.c_zero_point = c_zp_;
    a.fuse_relu = relu_;
    t.requantize_u8(a);
    const ref::QuantParams p = params(o);
    if (bias_ == BiasKind::float32)
      ref::requantize_u8<float>(want.data(), o.in.data(), block(), o.ld_out, o.ld_in, p,
                                o.scale.data(), c_zp_, o.bias_f32.data(), act_scale.data(), relu_);
    else
      ref::requantize_u8<int32_t>(want.data(), o.in.data(), block(), o.ld_out, o.ld_in, p,
                                  o.scale.data(), c_zp_,
                                  bias_ == BiasKind::int32 ? o.bias_i32.data() : nullptr,
                                  nullptr, relu_);
    expect_same(got, want, o.ld_out);
  }

  void TestRequantizeF32(const detail::EpilogueTable& t) const {
    Operands o = operands();
    std::vector<float> got(o.out_size, kSentinelF32), want(o.out_size, kSentinelF32);
    const float a_scale = 0.037f;
    const float* bias = bias_ == BiasKind::none ? nullptr : o.bias_f32.data();
    detail::RequantizeF32Args a{};
    a.in = o.in.data();
    a.ld_in = o.ld_in;
    a.out = got.data() + col_start_;
    a.ld_out = o.ld_out;
    a.rows = rows_;
    a.cols = cols_;
    a.zp = correction(o);
    a.a_scale = a_scale;
    a.b_scale = o.scale.data();
    a.bias = bias != nullptr ? bias + col_start_ : nullptr;
    a.fuse_relu = relu_;
    t.requantize_f32(a);
    ref::requantize_f32(want.data(), o.in.data(), block(), o.ld_out, o.ld_in, params(o),
                        a_scale, o.scale.data(), bias, relu_);
    // Bits, not values: -0.0f and NaN must match too.
    std::vector<uint32_t> got_bits(got.size()), want_bits(want.size());
    std::memcpy(got_bits.data(), got.data(), got.size() * sizeof(float));
    std::memcpy(want_bits.data(), want.data(), want.size() * sizeof(float));
    expect_same(got_bits, want_bits, o.ld_out);
  }

  enum class MapOp { copy, scale, relu };
  void TestMapI32(const detail::EpilogueTable& t, MapOp op) const {
    Operands o = operands();
    std::vector<int32_t> got(o.out_size, kSentinelI32), want(o.out_size, kSentinelI32);
    const detail::Int32MapArgs a{o.in.data(), o.ld_in, got.data() + col_start_, o.ld_out,
                                 rows_, cols_, value_};
    switch (op) {
      case MapOp::copy:
        t.copy_i32(a);
        ref::scale_i32(want.data(), o.in.data(), block(), o.ld_out, o.ld_in, 1);
        break;
      case MapOp::scale:
        t.scale_i32(a);
        ref::scale_i32(want.data(), o.in.data(), block(), o.ld_out, o.ld_in, value_);
        break;
      case MapOp::relu:
        t.relu_i32(a);
        ref::relu_i32(want.data(), o.in.data(), block(), o.ld_out, o.ld_in, value_);
        break;
    }
    expect_same(got, want, o.ld_out);
  }

 private:
  static constexpr uint8_t kSentinelU8 = 0xA5;
  static constexpr int32_t kSentinelI32 = 0x5A5A5A5A;
  static constexpr float kSentinelF32 = -12345.5f;

  struct Operands {
    int64_t ld_in, ld_out, out_size;
    int n_cols;  // of the whole output
    int n_q;     // quantization groups
    std::vector<int32_t> in, col_offsets, row_offsets, b_zp, bias_i32;
    std::vector<float> scale, bias_f32;
  };

  block_type_t block() const { return {0, rows_, col_start_, cols_}; }

  int cols_per_group(int n_cols) const {
    switch (gran_) {
      case QuantizationGranularity::TENSOR: return detail::kTensorColsPerGroup;
      case QuantizationGranularity::GROUP: return n_cols / groups_;
      case QuantizationGranularity::OUT_CHANNEL: break;
    }
    return 1;
  }

  static std::vector<float> random_floats(int n, float lo, float hi, uint32_t seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(n);
    for (float& x : v) x = dist(gen);
    return v;
  }
  static std::vector<int32_t> random_ints(int64_t n, int32_t lo, int32_t hi, uint32_t seed) {
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int32_t> dist(lo, hi);
    std::vector<int32_t> v(n);
    for (int32_t& x : v) x = dist(gen);
    return v;
  }

  Operands operands() const {
    Operands o;
    // GROUP granularity needs groups to divide the output's columns: round them up.
    o.n_cols = col_start_ + cols_ + 2;
    if (gran_ == QuantizationGranularity::GROUP) o.n_cols = (o.n_cols + groups_ - 1) / groups_ * groups_;
    o.n_q = gran_ == QuantizationGranularity::TENSOR ? 1
            : gran_ == QuantizationGranularity::GROUP ? groups_
                                                      : o.n_cols;
    o.ld_in = cols_ + ld_in_pad_;
    o.ld_out = o.n_cols + ld_out_pad_;
    o.out_size = rows_ * o.ld_out;
    // Sums as a GEMM's are: anywhere in int32, the extremes included.
    o.in = random_ints(rows_ * o.ld_in, INT32_MIN, INT32_MAX, seed_);
    for (int64_t i = 0; i < static_cast<int64_t>(o.in.size()); i += 7)
      o.in[i] = random_ints(1, -300000, 300000, seed_ + uint32_t(i))[0];
    o.col_offsets = random_ints(o.n_cols, -40000, 40000, seed_ + 1);
    o.row_offsets = random_ints(rows_, 0, 255 * 600, seed_ + 2);
    o.b_zp = b_zp_ ? random_ints(o.n_q, -128, 127, seed_ + 3) : std::vector<int32_t>(o.n_q, 0);
    o.bias_i32 = random_ints(o.n_cols, -100000, 100000, seed_ + 4);
    o.scale = random_floats(o.n_q, 1e-5f, 3e-3f, seed_ + 5);
    o.bias_f32 = random_floats(o.n_cols, -50.0f, 50.0f, seed_ + 6);
    return o;
  }

  detail::ZeroPointCorrection correction(const Operands& o) const {
    return {a_zp_, a_zp_ != 0 ? o.col_offsets.data() + col_start_ : nullptr, o.b_zp.data(),
            b_zp_ ? o.row_offsets.data() : nullptr, col_start_, cols_per_group(o.n_cols)};
  }

  ref::QuantParams params(const Operands& o) const {
    ref::QuantParams p;
    p.granularity = gran_;
    p.groups = groups_;
    p.nCol = static_cast<uint32_t>(o.n_cols);
    p.Aq_zero_point = a_zp_;
    p.Bq_zero_point = o.b_zp.data();
    p.row_offsets = b_zp_ ? o.row_offsets.data() : nullptr;
    p.col_offsets = o.col_offsets.data();
    return p;
  }

  template <class T>
  void expect_same(const std::vector<T>& got, const std::vector<T>& want, int64_t ld_out) const {
    int mismatches = 0;
    for (size_t i = 0; i < got.size() && mismatches < 5; ++i) {
      if (got[i] == want[i]) continue;
      ++mismatches;
      ADD_FAILURE() << "row " << int64_t(i) / ld_out << " column " << int64_t(i) % ld_out
                    << ": got " << +got[i] << ", want " << +want[i] << " (rows " << rows_
                    << ", cols " << cols_ << ", col_start " << col_start_ << ")";
    }
  }

  int rows_ = 1, cols_ = 1, col_start_ = 0, ld_in_pad_ = 0, ld_out_pad_ = 0;
  QuantizationGranularity gran_ = QuantizationGranularity::TENSOR;
  int groups_ = 1;
  int32_t a_zp_ = 0;
  bool b_zp_ = false;
  BiasKind bias_ = BiasKind::none;
  bool relu_ = false;
  int32_t c_zp_ = 0;
  int32_t value_ = 3;
  uint32_t seed_ = 1;
};

}  // namespace quire::test
