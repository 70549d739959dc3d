// The row kernels of the common depthwise layers (docs/convolution.md, "Depthwise"): 3x3,
// stride 1 or 2 (both spatial dimensions), begin pad 1, dilation 1, 2D, channel
// multiplier 1, IC a multiple of 16, B zero points in a range per kernel. AVX512-VNNI
// (vpdpbusd) walks output rows; the ymm paths run a row kernel for 7-bit activations at
// stride 1 and the tap-pair kernel otherwise (depthwise_rows_avx2.cpp); the other shapes
// and paths run the pixel kernel (depthwise_kernel.h).
#pragma once

#include <cstdint>

#include "conv/conv_kernels.h"
#include "quire/detail/ConvDirect.h"

namespace quire::conv {

// One thread's share: output rows [row_begin, row_end) of the batch (row-major over
// MB x OH). W is PackedDepthWiseConvMatrix's layout, with its column weights.
struct DepthwiseRowsArgs {
  const detail::ConvGeometry* g;
  const uint8_t* A;
  const int8_t* W;
  uint8_t* C;
  const detail::DirectRequant* r;
  int64_t row_begin, row_end;
};

// Whether the AVX512-VNNI row kernels take this layer (B zero points in [-127, 127]).
bool depthwise_rows_fit(const detail::ConvGeometry& g, const detail::DirectRequant& r);
// Whether the AVX2 row kernels take it (B zero points whose w - z fit int16).
bool depthwise_rows_fit_avx2(const detail::ConvGeometry& g, const detail::DirectRequant& r);

// Stride 1 (output size = input size) and stride 2 (any output size).
void depthwise_rows_avx512vnni(const DepthwiseRowsArgs& a);
void depthwise_rows_s2_avx512vnni(const DepthwiseRowsArgs& a);
void depthwise_rows_avx2(const DepthwiseRowsArgs& a);
void depthwise_rows_s2_avx2(const DepthwiseRowsArgs& a);

// A path's row kernels (ConvKernels::depthwise_rows).
struct DepthwiseRowKernels {
  bool (*fit)(const detail::ConvGeometry&, const detail::DirectRequant&);
  void (*stride1)(const DepthwiseRowsArgs&);
  void (*stride2)(const DepthwiseRowsArgs&);
};
extern const DepthwiseRowKernels kDepthwiseRowsAvx512Vnni, kDepthwiseRowsAvx2;

}  // namespace quire::conv
