// Which implementation a convolution shape takes (docs/convolution.md, "Paths").
//
//   depthwise  G == IC == OC, not transposed, dilation 1, and a 3x3 or 5x5 (2D) or
//              3x3x3 (3D) kernel; any stride and padding. Direct kernel, requantized
//              in registers (quire/Depthwise.h).
//   groupwise  G > 1, IC/G == OC/G in {4, 8, 16}, not transposed; any kernel, stride,
//              padding and dilation, 1D to 3D. Direct kernel with each vector spanning
//              several groups' output channels (quire/GroupwiseConv.h).
//   pointwise  every kernel size 1, stride 1, no padding, not transposed: A is already
//              the im2col matrix; straight to the GEMM.
//   im2col     everything else (transposed convolutions included): im2col fused into
//              the packing of A (PackAWithIm2Col), then the GEMM.
// The first that applies is taken. fastpath1d and directconv exist for FBGEMM source
// compatibility; quire never chooses them.
#pragma once

#include <cstdint>
#include <type_traits>

#include "quire/ConvUtils.h"

namespace quire {

enum class optimized_conv_t { depthwise, groupwise, pointwise, fastpath1d, im2col, directconv };

inline const char* optimizedConvName(optimized_conv_t path) {
  switch (path) {
    case optimized_conv_t::depthwise: return "depthwise";
    case optimized_conv_t::groupwise: return "groupwise";
    case optimized_conv_t::pointwise: return "pointwise";
    case optimized_conv_t::fastpath1d: return "fastpath1d";
    case optimized_conv_t::im2col: return "im2col";
    case optimized_conv_t::directconv: return "directconv";
  }
  return "unknown";
}

template <int SPATIAL_DIM = 2, typename ACC_T = int32_t>
bool takeDepthWiseFastPath(const conv_param_t<SPATIAL_DIM>& conv_p) {
  if (!std::is_same_v<ACC_T, int32_t> || conv_p.transposed) return false;
  if (conv_p.G != conv_p.IC || conv_p.G != conv_p.OC) return false;
  for (int d = 0; d < SPATIAL_DIM; ++d) {
    if (conv_p.dilation[d] != 1 || conv_p.K[d] != conv_p.K[0]) return false;
  }
  if constexpr (SPATIAL_DIM == 2) return conv_p.K[0] == 3 || conv_p.K[0] == 5;
  if constexpr (SPATIAL_DIM == 3) return conv_p.K[0] == 3;
  return false;
}

template <int SPATIAL_DIM>
bool fbgemmOptimizedGConv(const conv_param_t<SPATIAL_DIM>& conv_p) {
  const int icg = conv_p.IC / conv_p.G, ocg = conv_p.OC / conv_p.G;
  return !conv_p.transposed && conv_p.G > 1 && icg == ocg && (icg == 4 || icg == 8 || icg == 16);
}

template <int SPATIAL_DIM>
bool takePointWiseFastPath(const conv_param_t<SPATIAL_DIM>& conv_p) {
  if (conv_p.transposed) return false;
  for (int d = 0; d < SPATIAL_DIM; ++d) {
    if (conv_p.K[d] != 1 || conv_p.stride[d] != 1 || conv_p.pad[d] != 0 ||
        conv_p.pad[SPATIAL_DIM + d] != 0)
      return false;
  }
  return true;
}

template <int SPATIAL_DIM = 2, typename ACC_T = int32_t>
optimized_conv_t ConvFastPath(const conv_param_t<SPATIAL_DIM>& conv_p) {
  if (takeDepthWiseFastPath<SPATIAL_DIM, ACC_T>(conv_p)) return optimized_conv_t::depthwise;
  if (fbgemmOptimizedGConv<SPATIAL_DIM>(conv_p)) return optimized_conv_t::groupwise;
  if (takePointWiseFastPath<SPATIAL_DIM>(conv_p)) return optimized_conv_t::pointwise;
  return optimized_conv_t::im2col;
}

}  // namespace quire
