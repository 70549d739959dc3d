// Non-template core of PackAWithIm2Col (src/conv/im2col_pack.cpp): im2col fused into
// the packing of one A block.
#pragma once

#include <cstdint>

#include "quire/Types.h"
#include "quire/detail/ConvGeometry.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire::detail {

// Checks PackAWithIm2Col's arguments; throws std::invalid_argument naming the parameter.
void check_im2col_source(const ConvGeometry& g, const void* sdata, int32_t a_zero_point,
                         const char* where);

// Packs one block of the im2col matrix (rows: output pixels of the batch; columns inside
// one group: taps outer, channels inner, see ref::im2col) row-major into dst, rows
// ld_dst bytes apart, each row zero-padded to a multiple of 4 bytes. Positions outside
// the input read zp_row (block.col_size bytes of the activation zero point). The block
// is built from runs of contiguous input bytes (one run spans a whole kernel row when
// G = 1 and the width dilation is 1), so the copy is as wide as the layout allows.
// dst needs kIm2ColSlack bytes past its last row: rows are written with whole-vector
// stores. row_sums (nullable) gets the sum of each row's bytes: written when the block
// starts its group's K range, added otherwise. path: whose row routines run.
inline constexpr int kIm2ColSlack = 64;
void pack_im2col_block(const ConvGeometry& g, const uint8_t* A, const uint8_t* zp_row,
                       const block_type_t& block, uint8_t* dst, int64_t ld_dst,
                       int32_t* row_sums, inst_set_t path);

// True when the im2col matrix is A itself (1x1 kernel, stride 1, no pads, not
// transposed): the packer then reads A as a plain matrix, in place when it can.
inline bool im2col_is_identity(const ConvGeometry& g) {
  for (int d = 0; d < 3; ++d)
    if (g.kernel[d] != 1 || g.stride[d] != 1 || g.pad_begin[d] != 0 || g.in[d] != g.out[d])
      return false;
  return !g.transposed;
}

}  // namespace quire::detail
QUIRE_API_END
