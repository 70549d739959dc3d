// conv_param_t: the shape of a convolution, validated at construction.
//
// Layouts: activations are channels last (N x [T x] [H x] W x IC, "NHWC"), outputs
// likewise (N x OUT_DIM x OC), weights "KRSC" per group: G x (OC/G) x K[0] x .. x
// K[D-1] x (IC/G). SPATIAL_DIM is 1 (W), 2 (H, W) or 3 (T, H, W).
//
// Derived dimensions, for each spatial dimension d (begin pad p_b, end pad p_e):
//   forward:     IN_DIMP = IN_DIM + p_b + p_e
//                OUT_DIM = (IN_DIMP - dilation * (K - 1) - 1) / stride + 1
//   transposed:  IN_DIMP = IN_DIM + 2 * dilation * (K - 1) - p_b - p_e
//                OUT_DIM = (IN_DIM - 1) * stride - p_b - p_e + dilation * (K - 1)
//                          + output_pad + 1
// A transposed convolution is the gradient of the forward one with the same parameters:
// output position o receives input position i through kernel tap k when
// o + p_b - k * dilation = i * stride. output_pad only adds positions at the end; any
// output_pad >= 0 is accepted, as in FBGEMM (positions that no input reaches hold the
// bias alone), although frameworks ask for output_pad < max(stride, dilation).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

template <int N>
constexpr std::array<int, N> array_of_ones() {
  std::array<int, N> a{};
  a.fill(1);
  return a;
}

template <int N>
constexpr std::array<int, N> array_of_zeroes() {
  return std::array<int, N>{};
}

template <int SPATIAL_DIM = 2>
struct conv_param_t;

namespace detail {

[[noreturn]] inline void fail_conv_param(const char* where, const std::string& param,
                                         int64_t value, const std::string& requirement) {
  throw std::invalid_argument(std::string(where) + ": " + param + "=" + std::to_string(value) +
                              " " + requirement);
}

inline std::string indexed(const char* name, int d) {
  return std::string(name) + "[" + std::to_string(d) + "]";
}

// The derived sizes of one spatial dimension, computed in int64 so that the checks see
// the true value even where int32 would overflow.
struct DerivedDim {
  int64_t in_dimp, out_dim;
};

inline DerivedDim derive_dim(bool transposed, int in, int k, int stride, int pad_b, int pad_e,
                             int dilation, int output_pad) {
  const int64_t extent = int64_t{dilation} * (k - 1);  // kernel span minus one
  if (transposed) {
    return {int64_t{in} + 2 * extent - pad_b - pad_e,
            (int64_t{in} - 1) * stride - pad_b - pad_e + extent + output_pad + 1};
  }
  const int64_t in_dimp = int64_t{in} + pad_b + pad_e;
  // Floor division: a kernel larger than the padded input gives OUT_DIM <= 0.
  const int64_t span = in_dimp - extent - 1;
  return {in_dimp, span < 0 ? 0 : span / stride + 1};
}

// Checks every field of p (including that the derived ones match the formulas);
// throws std::invalid_argument naming the parameter and its value.
template <int D>
void check_conv_param(const conv_param_t<D>& p, const char* where) {
  static_assert(D >= 1 && D <= 3, "SPATIAL_DIM must be 1, 2 or 3");
  // The parameter's name (indexed by d >= 0) is built only for the message: a call's
  // checks build no string.
  const auto positive = [&](const char* name, int d, int v) {
    if (v < 1) fail_conv_param(where, d < 0 ? std::string(name) : indexed(name, d), v, "must be >= 1");
  };
  if (p.MB < 0) fail_conv_param(where, "MB", p.MB, "must be >= 0");  // 0: an empty batch
  positive("IC", -1, p.IC);
  positive("OC", -1, p.OC);
  positive("G", -1, p.G);
  if (p.IC % p.G != 0) fail_conv_param(where, "G", p.G, "must divide IC = " + std::to_string(p.IC));
  if (p.OC % p.G != 0) fail_conv_param(where, "G", p.G, "must divide OC = " + std::to_string(p.OC));
  int64_t in_pixels = 1, out_pixels = 1, kernel_prod = 1;
  for (int d = 0; d < D; ++d) {
    positive("IN_DIM", d, p.IN_DIM[d]);
    positive("K", d, p.K[d]);
    positive("stride", d, p.stride[d]);
    positive("dilation", d, p.dilation[d]);
    for (int e : {d, D + d})
      if (p.pad[e] < 0) fail_conv_param(where, indexed("pad", e), p.pad[e], "must be >= 0");
    if (p.output_pad[d] < 0)
      fail_conv_param(where, indexed("output_pad", d), p.output_pad[d], "must be >= 0");
    if (!p.transposed && p.output_pad[d] != 0)
      fail_conv_param(where, indexed("output_pad", d), p.output_pad[d],
                      "must be 0 for a convolution that is not transposed");
    const DerivedDim dd = derive_dim(p.transposed, p.IN_DIM[d], p.K[d], p.stride[d], p.pad[d],
                                     p.pad[D + d], p.dilation[d], p.output_pad[d]);
    if (dd.out_dim < 1) {
      fail_conv_param(where, indexed("K", d), p.K[d],
                      p.transposed
                          ? "with these pads leaves no output (OUT_DIM = " +
                                std::to_string(dd.out_dim) + ")"
                          : "spans " + std::to_string(int64_t{p.dilation[d]} * (p.K[d] - 1) + 1) +
                                " positions (with dilation), more than the padded input IN_DIM + "
                                "pads = " + std::to_string(dd.in_dimp));
    }
    if (dd.out_dim > INT32_MAX || dd.in_dimp > INT32_MAX)
      fail_conv_param(where, indexed("IN_DIM", d), p.IN_DIM[d], "gives sizes beyond int32");
    if (p.OUT_DIM[d] != dd.out_dim)
      fail_conv_param(where, indexed("OUT_DIM", d), p.OUT_DIM[d],
                      "does not match the other parameters (expected " +
                          std::to_string(dd.out_dim) + ")");
    if (p.IN_DIMP[d] != dd.in_dimp)
      fail_conv_param(where, indexed("IN_DIMP", d), p.IN_DIMP[d],
                      "does not match the other parameters (expected " +
                          std::to_string(dd.in_dimp) + ")");
    in_pixels *= p.IN_DIM[d];
    out_pixels *= dd.out_dim;
    kernel_prod *= p.K[d];
  }
  // Every index the convolution computes must fit int32 (the API's index type).
  const auto fits = [&](const char* what, int64_t a, int64_t b) {
    if (a > INT32_MAX || b > INT32_MAX || a * b > INT32_MAX)
      throw std::invalid_argument(std::string(where) + ": " + what + " = " + std::to_string(a) +
                                  " x " + std::to_string(b) + " overflows int32");
  };
  fits("MB * input pixels x IC", p.MB * in_pixels, p.IC);
  fits("MB * output pixels x OC", p.MB * out_pixels, p.OC);
  fits("MB * output pixels x kernel * IC (im2col matrix)", p.MB * out_pixels, kernel_prod * p.IC);
  fits("OC x kernel * IC / G (weights)", p.OC, kernel_prod * (p.IC / p.G));
}

}  // namespace detail

template <int SPATIAL_DIM>
struct conv_param_t {
  static_assert(SPATIAL_DIM >= 1 && SPATIAL_DIM <= 3, "SPATIAL_DIM must be 1, 2 or 3");

  int MB;  // batch
  int IC;  // input channels
  int OC;  // output channels
  std::array<int, SPATIAL_DIM> IN_DIM;
  int G;  // groups
  std::array<int, SPATIAL_DIM> K;
  std::array<int, SPATIAL_DIM> stride;
  std::array<int, SPATIAL_DIM * 2> pad;  // begin pads, then end pads
  std::array<int, SPATIAL_DIM> dilation;
  // Derived (see the formulas at the top of this file).
  std::array<int, SPATIAL_DIM> OUT_DIM;
  std::array<int, SPATIAL_DIM> IN_DIMP;
  // Transposed convolution only: extra output positions at the end of each dimension.
  std::array<int, SPATIAL_DIM> output_pad;
  bool transposed;

  // Throws std::invalid_argument naming the parameter for an impossible shape: sizes,
  // strides or dilations below 1, negative pads, G not dividing IC or OC, a kernel wider
  // than the padded input, no output, or sizes whose products overflow int32.
  conv_param_t(int mb, int ic, int oc, std::array<int, SPATIAL_DIM> in_dim, int g,
               std::array<int, SPATIAL_DIM> k, std::array<int, SPATIAL_DIM> strd,
               std::array<int, SPATIAL_DIM * 2> pd,
               std::array<int, SPATIAL_DIM> dilations = array_of_ones<SPATIAL_DIM>(),
               std::array<int, SPATIAL_DIM> otpt_pd = array_of_zeroes<SPATIAL_DIM>(),
               bool transposed_ = false)
      : MB(mb), IC(ic), OC(oc), IN_DIM(in_dim), G(g), K(k), stride(strd), pad(pd),
        dilation(dilations), OUT_DIM{}, IN_DIMP{}, output_pad(otpt_pd), transposed(transposed_) {
    for (int d = 0; d < SPATIAL_DIM; ++d) {
      const detail::DerivedDim dd =
          detail::derive_dim(transposed, IN_DIM[d], K[d], stride[d], pad[d],
                             pad[SPATIAL_DIM + d], dilation[d], output_pad[d]);
      // Stored clamped; check_conv_param reports the true value when out of range.
      OUT_DIM[d] = static_cast<int>(std::clamp<int64_t>(dd.out_dim, INT32_MIN, INT32_MAX));
      IN_DIMP[d] = static_cast<int>(std::clamp<int64_t>(dd.in_dimp, INT32_MIN, INT32_MAX));
    }
    detail::check_conv_param(*this, "conv_param_t");
  }

  // "MB:1, IC:64, OC:64, IH:56, IW:56, G:1, KH:3, KW:3, stride_h:1, stride_w:1,
  //  pad_h:1, pad_w:1, pad_h:1, pad_w:1, dilation_h:1, dilation_w:1"
  // (T, H, W name the dimensions of 3D, the last two of 2D, the last of 1D), plus the
  // output pads of a transposed convolution.
  std::string toString() const {
    static const char* const kNames[3] = {"T", "H", "W"};
    // Appends "<prefix><dimension name>:<value>, " (operator+ chains of std::string
    // trigger a false -Wrestrict in GCC 12).
    std::string out;
    const auto field = [&out](const char* prefix, const char* name, int value) {
      out += prefix;
      out += name;
      out += ':';
      out += std::to_string(value);
      out += ", ";
    };
    const auto dim = [](int d) { return kNames[3 - SPATIAL_DIM + d]; };
    field("MB", "", MB);
    field("IC", "", IC);
    field("OC", "", OC);
    for (int d = 0; d < SPATIAL_DIM; ++d) field("I", dim(d), IN_DIM[d]);
    field("G", "", G);
    for (int d = 0; d < SPATIAL_DIM; ++d) field("K", dim(d), K[d]);
    for (int d = 0; d < SPATIAL_DIM; ++d) field("stride_", dim(d), stride[d]);
    for (int e = 0; e < 2 * SPATIAL_DIM; ++e) field("pad_", dim(e % SPATIAL_DIM), pad[e]);
    for (int d = 0; d < SPATIAL_DIM; ++d) field("dilation_", dim(d), dilation[d]);
    if (transposed) {
      out += "transposed, ";
      for (int d = 0; d < SPATIAL_DIM; ++d) field("output_padding_", dim(d), output_pad[d]);
    }
    out.resize(out.size() - 2);  // the last ", "
    return out;
  }
};

}  // namespace quire
QUIRE_API_END
