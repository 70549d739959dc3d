// The convolution routines of each instruction-set path, reached through one table
// chosen from the active GEMM dispatch record (conv_kernels_for), so that a convolution
// runs the same path as the GEMM it may fall back to.
#pragma once

#include <cstdint>

#include "quire/detail/ConvGeometry.h"
#include "cpu/isa_record.h"

namespace quire::conv {

// A piece of the im2col rows of a stretch of output pixels: row j of the stretch copies
// len bytes from src + j * step (the activations, moving by stride_w * IC per pixel, or
// a row of the activation zero point for padding, step 0).
struct Im2ColRun {
  const uint8_t* src;
  int64_t step;
  int32_t len;
};

// Writes rows [0, nrows) of a stretch to dst (rows ld_dst bytes apart): each row is the
// runs, one after another, then zeros up to the next multiple of 4. With row_sums
// non-null, row j's byte sum is written to row_sums[j] (added when accumulate). The
// routine may write up to detail::kIm2ColSlack bytes past a padded row (whole-vector
// stores: unmasked stores are much cheaper than byte-masked ones on some CPUs); rows
// are written in order, so the spill is overwritten by the next row or lands in the
// buffer's slack. It reads no byte outside the runs.
using Im2ColRowsFn = void (*)(const Im2ColRun* runs, int nruns, int nrows, uint8_t* dst,
                              int64_t ld_dst, int32_t* row_sums, bool accumulate);

// The requantization of a direct kernel resolved per output channel (src/conv/
// direct_params.cpp), arrays padded with zeros to a whole number of 64-channel blocks:
//   raw = acc + col_term[c] - b_zp[c] * row_sum
//   x   = ((float)raw [+ fbias[c]]) * mult[c],  clamped to [x_lo, x_hi]
//   out = nearbyint(x) + c_zero_point
// with col_term = bias_i32 - a_zp * col_offsets (modulo 2^32), fbias = bias_f32 /
// act_times_w_scale, x_lo = (relu ? c_zp : 0) - c_zp, x_hi = 255 - c_zp: the formula of
// ReQuantizeOutput, operation for operation.
struct ChannelRequant {
  const int32_t* col_term;
  const int32_t* b_zp;  // null when every B zero point is 0 (no row sums needed)
  const float* mult;
  const float* fbias;   // null without a float bias
  int32_t c_zero_point;
  float x_lo, x_hi;
};

// One thread's share of a direct convolution: output pixels [pixel_begin, pixel_end) of
// the batch (row-major over MB x OUT_DIM). Taps outside the input read zp_row, a row of
// the activation zero point as long as the channels rounded up to 64; zero_row, as long,
// holds zeros (what the depthwise kernel's taps past the kernel read, so that they add
// nothing to the row sums either).
struct DirectArgs {
  const detail::ConvGeometry* g;
  const uint8_t* A;
  const int8_t* W;  // packed weights of the kernel's layout
  uint8_t* C;
  const uint8_t* zp_row;
  const uint8_t* zero_row;
  ChannelRequant q;  // depthwise: arrays in the kernel's lane order (depthwise.cpp)
  // Depthwise only: b_zp[c] in each of the four bytes of channel c's lane, in the packed
  // weights' chunk layout (one 64-byte chunk per accumulator per 64 channels), so that
  // a dot product with the interleaved taps gives b_zp * row sum; null when every B
  // zero point is 0.
  const int8_t* row_w;
  int64_t pixel_begin, pixel_end;
};
using DirectFn = void (*)(const DirectArgs&);

// The int32 row arithmetic of the transposed convolution (transposed_conv.cpp), modulo
// 2^32 like the GEMM's own sums:
//   AddI32Fn:       dst[i] += src[i]        (the col2im scatter of one product row)
//   SubScaledI32Fn: dst[i] -= s * src[i]    (the a_zp * per-pixel col_offsets term)
// for i in [0, n).
using AddI32Fn = void (*)(int32_t* dst, const int32_t* src, int64_t n);
using SubScaledI32Fn = void (*)(int32_t* dst, const int32_t* src, int32_t s, int64_t n);

struct DepthwiseRowKernels;  // depthwise_rows.h

struct ConvKernels {
  const char* name;
  Im2ColRowsFn im2col_rows;
  DirectFn depthwise;
  const DepthwiseRowKernels* depthwise_rows;  // null: the pixel kernel takes every layer
  DirectFn groupwise;
  AddI32Fn add_i32;
  SubScaledI32Fn sub_scaled_i32;
};

// The routines for a GEMM path: portable for anyarch; AVX2 for avx2, avx_vnni and
// avx512_vnni_ymm (the ymm paths); AVX-512 for avx512; AVX-512 with vpdpbusd for
// avx512_vnni.
const ConvKernels& conv_kernels_for(const detail::IsaRecord& isa);

// The tables the dispatch records point at (IsaRecord::conv).
extern const ConvKernels kConvPortable, kConvAvx2, kConvAvx512, kConvAvx512Vnni;

void im2col_rows_portable(const Im2ColRun*, int, int, uint8_t*, int64_t, int32_t*, bool);
void im2col_rows_avx2(const Im2ColRun*, int, int, uint8_t*, int64_t, int32_t*, bool);
void im2col_rows_avx512(const Im2ColRun*, int, int, uint8_t*, int64_t, int32_t*, bool);

void depthwise_portable(const DirectArgs&);
void depthwise_avx2(const DirectArgs&);
void depthwise_avx512(const DirectArgs&);
void depthwise_avx512vnni(const DirectArgs&);

void groupwise_portable(const DirectArgs&);
void groupwise_avx2(const DirectArgs&);
void groupwise_avx512(const DirectArgs&);
void groupwise_avx512vnni(const DirectArgs&);

void add_i32_portable(int32_t*, const int32_t*, int64_t);
void add_i32_avx2(int32_t*, const int32_t*, int64_t);
void add_i32_avx512(int32_t*, const int32_t*, int64_t);
void sub_scaled_i32_portable(int32_t*, const int32_t*, int32_t, int64_t);
void sub_scaled_i32_avx2(int32_t*, const int32_t*, int32_t, int64_t);
void sub_scaled_i32_avx512(int32_t*, const int32_t*, int32_t, int64_t);

}  // namespace quire::conv
