// Which implementation a convolution shape takes (docs/convolution.md, "Paths").
//
//   depthwise  G == IC, OC == G or 2 G (channel multiplier 1 or 2), not transposed,
//              2D or 3D, dilation 1, every kernel size 3, 5 or 7 with the two spatial
//              ones equal (3x3, 5x5, 7x7; 3D: 3, 5 or 7 in time by 3x3, 5x5 or 7x7):
//              FBGEMM's kernels, which quire also takes with any stride, padding and
//              channel count (FBGEMM: strides 1 or 2, pads (K - 1) / 2, G % 8 == 0).
//              Direct kernel, requantized in registers (quire/Depthwise.h).
//   groupwise  IC/G == OC/G in {2, 4, 8, 16}, not transposed, G > 1 (or G = 1 with 8 or
//              16 channels and a kernel of 3s); any kernel, stride, padding and
//              dilation, 1D to 3D (FBGEMM: 2D / 3D, kernel 3, pads 1, stride 1 or 2, G at
//              least numOfGroupsTogether). Direct kernel with each vector spanning
//              several groups' output channels (quire/GroupwiseConv.h).
//   pointwise  every kernel size 1, stride 1, no padding, not transposed: A is already
//              the im2col matrix; straight to the GEMM.
//   directconv transposed 2D, G = 1, IC and OC multiples of 8, a 2 x (1..6) kernel,
//              strides 1 or 2, dilation 1, begin pads 0 (end pads and output_pad free):
//              FBGEMM's rule. Direct scatter of GEMM products (quire/DirectConv.h).
//   im2col     everything else (the other transposed convolutions included): im2col
//              fused into the packing of A (PackAWithIm2Col), then the GEMM.
// The first that applies is taken, in FBGEMM's order. Every shape FBGEMM sends to a
// direct path is sent to the same path here; quire's direct kernels also take shapes
// FBGEMM runs as im2col (or, for grouped 1x1, as pointwise): same results, faster.
// fastpath1d exists for FBGEMM source compatibility; quire, like FBGEMM, never
// chooses it.
#pragma once

#include <cstdint>
#include <type_traits>

#include "quire/ConvUtils.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
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
  if (!std::is_same_v<ACC_T, int32_t> || conv_p.transposed || SPATIAL_DIM < 2) return false;
  if (conv_p.G != conv_p.IC || (conv_p.OC != conv_p.G && conv_p.OC != 2 * conv_p.G)) return false;
  if (conv_p.K[SPATIAL_DIM - 2] != conv_p.K[SPATIAL_DIM - 1]) return false;
  for (int d = 0; d < SPATIAL_DIM; ++d) {
    const int k = conv_p.K[d];
    if (conv_p.dilation[d] != 1 || (k != 3 && k != 5 && k != 7)) return false;
  }
  return true;
}

// The groupwise direct kernel's shapes (see the top of this file). One group (a dense
// convolution) of 8 or 16 channels with a 3x3 (3x3x3) kernel is FBGEMM's too: its rule
// wants G >= numOfGroupsTogether, which is 1 there.
template <int SPATIAL_DIM>
bool fbgemmOptimizedGConv(const conv_param_t<SPATIAL_DIM>& conv_p) {
  const int icg = conv_p.IC / conv_p.G, ocg = conv_p.OC / conv_p.G;
  if (conv_p.transposed || icg != ocg || (icg != 2 && icg != 4 && icg != 8 && icg != 16))
    return false;
  if (conv_p.G > 1) return true;
  for (int d = 0; d < SPATIAL_DIM; ++d)
    if (conv_p.K[d] != 3) return false;
  return icg >= 8;
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
bool takeDirectConvPath(const conv_param_t<SPATIAL_DIM>& conv_p) {
  if (!std::is_same_v<ACC_T, int32_t> || SPATIAL_DIM != 2 || !conv_p.transposed) return false;
  if (conv_p.G != 1 || conv_p.IC % 8 != 0 || conv_p.OC % 8 != 0) return false;
  if (conv_p.K[0] != 2 || conv_p.K[SPATIAL_DIM - 1] > 6) return false;
  for (int d = 0; d < SPATIAL_DIM; ++d) {
    if (conv_p.stride[d] != 1 && conv_p.stride[d] != 2) return false;
    if (conv_p.dilation[d] != 1 || conv_p.pad[d] != 0) return false;
  }
  return true;
}

template <int SPATIAL_DIM = 2, typename ACC_T = int32_t>
optimized_conv_t ConvFastPath(const conv_param_t<SPATIAL_DIM>& conv_p) {
  if (takeDepthWiseFastPath<SPATIAL_DIM, ACC_T>(conv_p)) return optimized_conv_t::depthwise;
  if (fbgemmOptimizedGConv<SPATIAL_DIM>(conv_p)) return optimized_conv_t::groupwise;
  if (takePointWiseFastPath<SPATIAL_DIM>(conv_p)) return optimized_conv_t::pointwise;
  if (takeDirectConvPath<SPATIAL_DIM, ACC_T>(conv_p)) return optimized_conv_t::directconv;
  return optimized_conv_t::im2col;
}

}  // namespace quire
QUIRE_API_END
