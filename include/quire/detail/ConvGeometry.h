// A convolution's shape as the non-template cores in src/conv/ take it: every spatial
// dimension spelled out as 3D (T, H, W). A 1D convolution has T = H = 1 and a 2D one
// T = 1, with kernel 1, stride 1, dilation 1 and no pads in the added dimensions, which
// changes no index: the cores need one code path for all three.
#pragma once

#include <cstdint>

#include "quire/ConvUtils.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire::detail {

struct ConvGeometry {
  int batch, in_channels, out_channels, groups;
  int in[3], out[3], kernel[3], stride[3], dilation[3], pad_begin[3];
  bool transposed;

  int ic_per_group() const { return in_channels / groups; }
  int oc_per_group() const { return out_channels / groups; }
  int kernel_prod() const { return kernel[0] * kernel[1] * kernel[2]; }
  int64_t in_pixels() const { return int64_t{in[0]} * in[1] * in[2]; }    // per image
  int64_t out_pixels() const { return int64_t{out[0]} * out[1] * out[2]; }  // per image
  // The im2col matrix: one row per output pixel of the batch, kernel_prod * IC / G
  // columns per group (taps outer, channels inner), groups side by side.
  int32_t gemm_m() const { return static_cast<int32_t>(batch * out_pixels()); }
  int32_t gemm_k_per_group() const { return kernel_prod() * ic_per_group(); }
};

template <int D>
ConvGeometry conv_geometry(const conv_param_t<D>& p) {
  ConvGeometry g{};
  g.batch = p.MB;
  g.in_channels = p.IC;
  g.out_channels = p.OC;
  g.groups = p.G;
  g.transposed = p.transposed;
  for (int d = 0; d < 3; ++d) {
    g.in[d] = g.out[d] = g.kernel[d] = g.stride[d] = g.dilation[d] = 1;
    g.pad_begin[d] = 0;
  }
  for (int d = 0; d < D; ++d) {
    const int e = 3 - D + d;
    g.in[e] = p.IN_DIM[d];
    g.out[e] = p.OUT_DIM[d];
    g.kernel[e] = p.K[d];
    g.stride[e] = p.stride[d];
    g.dilation[e] = p.dilation[d];
    g.pad_begin[e] = p.pad[d];
  }
  return g;
}

// Where kernel tap k (along one dimension) of output position o reads its input, or -1
// when it reads padding (forward) or no input position maps there (transposed):
//   forward:     i = o * stride - pad_begin + k * dilation,     valid if 0 <= i < in
//   transposed:  o + pad_begin - k * dilation = i * stride,      valid if 0 <= i < in
inline int conv_input_index(const ConvGeometry& g, int d, int o, int k) {
  if (!g.transposed) {
    const int i = o * g.stride[d] - g.pad_begin[d] + k * g.dilation[d];
    return i >= 0 && i < g.in[d] ? i : -1;
  }
  const int t = o + g.pad_begin[d] - k * g.dilation[d];
  if (t < 0 || t % g.stride[d] != 0) return -1;
  const int i = t / g.stride[d];
  return i < g.in[d] ? i : -1;
}

}  // namespace quire::detail
QUIRE_API_END
