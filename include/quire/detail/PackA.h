// Non-template core of the A packers (src/pack/pack_a_block.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "quire/PackedABlock.h"
#include "quire/Types.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire::detail {

// Where A comes from: rows x cols (all groups), element (r, c) at data[r * ld + c] or,
// transposed, data[c * ld + r].
struct ASource {
  const uint8_t* data;
  int64_t ld;
  bool transposed;
  int32_t rows, cols;
  int groups;
  inst_set_t path;  // whose packing routine runs: the path active when the packer was built
};

// Checks the arguments shared by every A packer; throws std::invalid_argument.
void check_a_source(const ASource& a, const char* where);

// Prepares block (columns inside one group) for the kernel with the active path's
// packer. When A is not transposed and the block's width is a multiple of 4, the kernel
// reads the source in place and only the row sums are computed (one read-only pass);
// otherwise the block is copied row-major into dst (rows ld_dst bytes apart, zero-padded
// to a multiple of 4 columns). row_sums (nullable) gets the block's row sums: written
// when the block starts its group's K range, added otherwise, so after the last K block
// it holds sum_k A[i][k] over the group.
inline bool a_block_in_place(const ASource& a, const block_type_t& block) {
  return !a.transposed && block.col_size % 4 == 0;
}

// Prints rows x cols bytes of a block ("name:[rows, cols]", then each row), FBGEMM's
// printPackedMatrix format for A packers.
void print_a_block(const std::string& name, const PackedABlock& view, int rows, int cols);

PackedABlock pack_a_block(const ASource& a, const block_type_t& block, uint8_t* dst,
                          int64_t ld_dst, int32_t* row_sums);

// Row stride of the packed blocks of a packer whose groups are k_per_group deep: KCB,
// or less when K itself is shorter, so that a small problem gets a small buffer.
inline int64_t packed_a_ld(const BlockingFactors& p, int32_t k_per_group) {
  const int64_t k_padded = (int64_t{k_per_group} + 3) & ~int64_t{3};
  return k_padded < p.KCB ? k_padded : p.KCB;
}

}  // namespace quire::detail
QUIRE_API_END
