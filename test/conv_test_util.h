// Shared pieces of the convolution tests: random full-range problems, the reference
// results (quire::ref, direct loops), requantization parameters for each granularity,
// and a compact way to name a shape in failure messages.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "quire/quire.h"
#include "quire/ref/ReferenceConv.h"
#include "test_util.h"

namespace quire::test {

template <int D>
int64_t out_pixels(const conv_param_t<D>& p) {
  int64_t n = p.MB;
  for (int d = 0; d < D; ++d) n *= p.OUT_DIM[d];
  return n;
}

template <int D>
int64_t in_elements(const conv_param_t<D>& p) {
  int64_t n = int64_t{p.MB} * p.IC;
  for (int d = 0; d < D; ++d) n *= p.IN_DIM[d];
  return n;
}

template <int D>
int kernel_prod(const conv_param_t<D>& p) {
  int k = 1;
  for (int d = 0; d < D; ++d) k *= p.K[d];
  return k;
}

// Activations, KRSC weights and the reference int32 result and row sums. Activations
// are drawn from [0, a_max] (127: 7-bit, PyTorch's reduce_range), weights from
// [w_lo, w_hi]; full range by default.
template <int D>
struct ConvProblem {
  conv_param_t<D> p;
  int32_t a_zp;
  std::vector<uint8_t> A;
  std::vector<int8_t> W;
  std::vector<int32_t> C32;          // MB * OUT_DIM x OC
  std::vector<int32_t> row_offsets;  // MB * OUT_DIM x G

  ConvProblem(const conv_param_t<D>& param, int32_t a_zero_point, uint32_t seed, int a_max = 255,
              int w_lo = -128, int w_hi = 127)
      : p(param), a_zp(a_zero_point) {
    A = random_vector<uint8_t>(static_cast<size_t>(in_elements(p)), 0, a_max, seed);
    W = random_vector<int8_t>(static_cast<size_t>(p.OC) * kernel_prod(p) * (p.IC / p.G), w_lo,
                              w_hi, seed + 1);
    reference();
  }

  // The reference results again, after a test edits A or W.
  void reference() {
    C32.resize(static_cast<size_t>(out_pixels(p)) * p.OC);
    row_offsets.resize(static_cast<size_t>(out_pixels(p)) * p.G);
    ref::conv_u8s8s32(p, A.data(), a_zp, W.data(), C32.data());
    ref::conv_row_offsets(p, A.data(), a_zp, row_offsets.data());
  }
};

enum class BiasKind { none, i32, f32 };

// ReQuantizeOutput's parameters for one problem and granularity, and the expected
// uint8 output (ref::conv_requantize_u8).
template <int D>
struct Requant {
  QuantizationGranularity gran;
  bool relu;
  BiasKind bias_kind;
  int32_t c_zp = 0;
  std::vector<int32_t> b_zp;
  std::vector<float> multiplier, act_w_scale;
  std::vector<int32_t> col_offsets, bias_i32;
  std::vector<float> bias_f32;
  std::vector<uint8_t> want;

  // B zero points are drawn from [zp_lo, zp_hi]: int8 by default; the API takes int32.
  Requant(const ConvProblem<D>& c, QuantizationGranularity g, bool fuse_relu, BiasKind bk,
          bool b_symmetric, uint32_t seed, int zp_lo = -128, int zp_hi = 127)
      : gran(g), relu(fuse_relu), bias_kind(bk) {
    const conv_param_t<D>& p = c.p;
    std::mt19937 rng(seed);
    auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    auto unf = [&](float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); };
    const int nq = g == QuantizationGranularity::TENSOR ? 1
                   : g == QuantizationGranularity::GROUP ? p.G
                                                         : p.OC;
    const int per_q = p.OC / nq;
    c_zp = uni(0, 255);
    // Outputs spread over 0..255: |raw| is about 128 * 74 * sqrt(Kg) for full-range data.
    const int kg = kernel_prod(p) * (p.IC / p.G);
    const float scale = 60.0f / (128.0f * 74.0f * std::sqrt(static_cast<float>(kg)));
    for (int q = 0; q < nq; ++q) {
      b_zp.push_back(b_symmetric ? 0 : uni(zp_lo, zp_hi));
      multiplier.push_back(scale * unf(0.5f, 1.5f));
      act_w_scale.push_back(unf(0.0005f, 0.05f));
    }
    col_offsets.resize(p.OC);
    ref::conv_col_offsets(p, c.W.data(), b_zp.data(), per_q, col_offsets.data());
    for (int j = 0; j < p.OC; ++j) {
      bias_i32.push_back(uni(-20000, 20000));
      bias_f32.push_back(unf(-50.0f, 50.0f));
    }
    ref::ConvRequant r;
    r.granularity = g;
    r.A_zero_point = c.a_zp;
    r.B_zero_point = b_zp.data();
    r.col_offsets = col_offsets.data();
    r.C_multiplier = multiplier.data();
    r.C_zero_point = c_zp;
    r.fuse_relu = relu;
    r.act_times_w_scale = act_w_scale.data();
    want.resize(c.C32.size());
    if (bk == BiasKind::f32)
      ref::conv_requantize_u8<D, float>(p, c.C32.data(), c.row_offsets.data(), r, bias_f32.data(),
                                        want.data());
    else
      ref::conv_requantize_u8<D, int32_t>(p, c.C32.data(), c.row_offsets.data(), r,
                                          bk == BiasKind::i32 ? bias_i32.data() : nullptr,
                                          want.data());
  }
};

// Runs body(thread_id, num_threads) for each thread of a partition, one after another
// (the contract makes this equivalent to concurrent calls).
template <class F>
void for_each_thread(int num_threads, F body) {
  for (int t = 0; t < num_threads; ++t) body(t, num_threads);
}

inline const char* gran_name(QuantizationGranularity g) {
  return g == QuantizationGranularity::TENSOR  ? "TENSOR"
         : g == QuantizationGranularity::GROUP ? "GROUP"
                                               : "OUT_CHANNEL";
}

// Element-by-element comparison; reports the first mismatch and the count.
template <class T>
::testing::AssertionResult same_bits(const std::vector<T>& want, const std::vector<T>& got) {
  if (want.size() != got.size()) return ::testing::AssertionFailure() << "sizes differ";
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] != got[i]) {
      if (bad++ == 0) first = i;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << want.size()
                                       << " elements differ; first at " << first << ": want "
                                       << +want[first] << ", got " << +got[first];
}

}  // namespace quire::test
