// Non-template core of PackBMatrix (src/pack/pack_b.cpp).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "quire/Types.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire::detail {

// Geometry of packed B: per group, ceil(N / panel_width) panels; each panel holds
// padded_k / 4 steps of panel_width x 4 bytes: lane j of step t is B[4t .. 4t+3][j].
// K is padded only to the 4-deep interleave, N only to a whole panel.
struct PackedBLayout {
  static constexpr int kVersion = 1;
  int32_t k_per_group, n, groups;
  int panel_width;   // NR at packing time
  int32_t padded_k;  // k_per_group rounded up to 4
  // In int64: n + panel_width - 1 passes INT32_MAX for n near it (a loaded header).
  int panels() const { return static_cast<int>((int64_t{n} + panel_width - 1) / panel_width); }
  int64_t panel_bytes() const { return int64_t{padded_k} * panel_width; }
  int64_t group_bytes() const { return panel_bytes() * panels(); }
  int64_t total_bytes() const { return group_bytes() * groups; }
  // Bytes to allocate: the kernels load whole vectors of a step, which may run past the
  // last step of a panel narrower than the vector (B packed under another path), so the
  // buffer ends with one vector of slack whose lanes are never used.
  static constexpr int64_t kReadSlack = 64;
  int64_t allocation_bytes() const { return total_bytes() + kReadSlack; }
};

// Largest K (per group) whose sum of u8 x s8 products always fits int32:
// 65793 * 255 * 128 = 2147483520 < 2^31.
inline constexpr int32_t kMaxExactK = 65793;

// Validates PackBMatrix's arguments and returns the layout; throws std::invalid_argument.
PackedBLayout make_b_layout(matrix_op_t trans, int32_t nRow, int32_t nCol, const void* smat,
                            int32_t ld, int groups, int panel_width);

// Packs B (source as described by trans / ld, groups stacked) into dst.
void pack_b(const PackedBLayout& layout, matrix_op_t trans, const int8_t* src, int32_t ld,
            int8_t* dst);

// Packs the rows [row_start, row_start + row_size) x columns [col_start, col_start +
// col_size) of every group from src into dst, which already holds a packing of this
// layout (padding stays as it is); throws std::invalid_argument naming `where` when the
// block leaves the group's K x N.
void pack_b_block(const PackedBLayout& layout, matrix_op_t trans, const int8_t* src, int32_t ld,
                  const block_type_t& block, int8_t* dst, const char* where);

// The saturation certificate's B half (docs/kernel-contract.md, "Pair-safe B panels"):
// per panel, group-major (index g * panels() + p), the largest A value a_max for which no
// K pair of the packed panel, the bytes (b0, b1) at an even offset, can leave int16 in
// vpmaddubsw. With P and N the largest positive and most negative pair parts of the panel
// (P = max over pairs of max(b0, 0) + max(b1, 0), N = min of min(b0, 0) + min(b1, 0)),
// every pair sum a0 * b0 + a1 * b1 with A in [0, a_max] lies in [a_max * N, a_max * P],
// so the limit is the largest a_max <= 255 with a_max * P <= 32767 and a_max * N >= -32768.
// P <= 254 and N >= -256 give a limit of at least 128: 7-bit activations are always safe.
// Computed from the packed bytes, when packing and when loading.
//
// The returned blob holds more than the limits: its first groups x panels bytes are the
// limits above (PackBMatrix::pairSafeLimits reads only them); after them, from the next
// multiple of 8, the library's private index of the panels' unsafe pairs (pairs whose own
// limit is under 255), read by fbgemmPacked through PackedGemmCall::b_pair_safe_limits to
// run such panels with the pair-safe kernels plus a sparse correction: one byte per
// (group, panel) saying whether the panel is indexed, then (8-aligned) one uint32 offset
// per (group, panel, column of the panel, side) and one more (the end), then (8-aligned)
// 8-byte entries {uint16 pair t (A bytes 2t, 2t + 1), uint16 column in the panel, int16
// b0, int16 b1}: the lists of one column and side (side 0: weights >= 0, the sum can only
// rise past 32767; side 1: it can only fall past -32768), each sorted by pair, so a K
// block is a contiguous range of each. Panels whose unsafe pairs exceed 1/20 of pairs x
// columns keep empty lists (they run the exact form); where a group's K has fewer than
// 128 pairs no K block can be corrected and there are no offsets. Size: 8 bytes per
// unsafe pair + 1 per panel + 8 per column (docs/packing.md gives it for trained weights).
// The blob is only ever made here, so whoever holds the limits holds the index after them.
std::vector<uint8_t> pair_safe_limits(const PackedBLayout& layout, const int8_t* packed);

// Writes B back in its source layout (same trans and ld, groups stacked).
void unpack_b(const PackedBLayout& layout, matrix_op_t trans, int32_t ld, const int8_t* packed,
              int8_t* dst);

// Serialized form (little-endian): the 8 bytes "QUIREPB\0", then int32 layout version,
// trans, K per group, N, groups, panel width, padded K; then total_bytes() packed bytes;
// then the 64-bit FNV-1a hash of everything before it.
void save_packed_b(std::ostream& out, const PackedBLayout& layout, matrix_op_t trans,
                   const int8_t* packed);
struct PackedBHeader {
  PackedBLayout layout;
  matrix_op_t trans;
  uint64_t hash;  // of the bytes read so far, continued by read_packed_b_payload
};
// Reads and checks the header; throws std::invalid_argument naming what is wrong.
PackedBHeader read_packed_b_header(std::istream& in);
// Reads the packed bytes into dst and checks the hash.
void read_packed_b_payload(std::istream& in, const PackedBHeader& header, int8_t* dst);

// The packed panels as FBGEMM's printPackedMatrix shows them, in K blocks of kcb rows.
// print_packed_b writes it to std::cout (PackBMatrix::printPackedMatrix).
std::string describe_packed_b(const PackedBLayout& layout, const int8_t* packed,
                              const std::string& name, int kcb);

void print_packed_b(const PackedBLayout& layout, const int8_t* packed, const std::string& name,
                    int kcb);

}  // namespace quire::detail
QUIRE_API_END
