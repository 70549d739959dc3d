// The non-template core of the direct transposed convolution (src/conv/
// transposed_conv.cpp), behind fbgemmDirectConv (quire/DirectConv.h).
//
// A transposed convolution scatters: input pixel i of image n adds W[oc][tap][:] . A[i][:]
// to the output pixel o(i, tap) = i * stride + tap * dilation - pad_begin (per dimension)
// when that lies inside the output. With the weights packed as one GEMM B of IC rows and
// kernel_prod * OC columns ordered (tap, oc), the products of an input row with one
// kernel row's taps are a GEMM (IN_W x IC) x (IC x KW * OC) on a contiguous column range
// of B, whose rows are then added (col2im) to the output pixels they land on. The output
// is walked row by row (image, T, H), each row gathering from the input rows and kernel
// rows that reach it, so a thread owns whole output rows and nothing is summed twice.
#pragma once

#include <cstdint>

#include "quire/detail/ConvGeometry.h"
#include "quire/detail/PackB.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire::detail {

// Called once per finished output row r (row-major over MB x OUT_T x OUT_H): acc holds
// its OUT_W x OC int32 sums minus a_zero_point * the pixel column offsets, row_sums its
// OUT_W row sums (sum of A over the inputs each pixel receives), or null when not asked
// for. The callback requantizes the row (or anything else); acc may be overwritten.
using TransposedRowFn = void (*)(void* ctx, int64_t row, int32_t* acc, const int32_t* row_sums);

struct TransposedConvArgs {
  const ConvGeometry* g;  // transposed, G = 1
  const uint8_t* A;       // MB x IN_DIM x IC
  const PackedBLayout* b_layout;
  const int8_t* b;      // packed B (IC x kernel_prod * OC, columns (tap, oc)), group 0
  int32_t* acc;         // MB * OUT_DIM x OC int32 scratch (the caller's C_buffer)
  int32_t a_zero_point;
  // OUT_DIM x OC offsets of one image (PackedDirectConvMatrix::col_offsets_with_zero_pt_
  // s8acc32_DirectConvT), the same for every image; null when a_zero_point is 0.
  const int32_t* pixel_col_offsets;
  bool row_sums;  // compute row sums (some B zero point is nonzero)
  TransposedRowFn finish;
  void* ctx;
  // The path the call runs (its GEMM kernels and row routines), read once by the entry
  // point, so that one call never mixes two paths.
  inst_set_t inst_set;
};

// This thread's share (fbgemmPartition1D of the output rows) of the convolution.
void transposed_conv(const TransposedConvArgs& args, int thread_id, int num_threads);

// One image's pixel column offsets:
//   col[p][oc] = sum over the taps t that reach output pixel p from some input pixel of
//                tap_sums[oc * kernel_prod + t]  -  b_zp[oc / ncols_per_quant_group] * n(p) * IC
// with n(p) the number of such taps (so n(p) * IC products reach p).
void transposed_pixel_col_offsets(const ConvGeometry& g, const int32_t* tap_sums,
                                  const int32_t* b_zero_point, int ncols_per_quant_group,
                                  int32_t* col_offsets);

}  // namespace quire::detail
QUIRE_API_END
