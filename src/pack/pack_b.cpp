#include <algorithm>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <string>

#include "quire/detail/Check.h"
#include "pack/pair_index.h"
#include "quire/detail/PackB.h"

namespace quire::detail {
namespace {

// Source element (k, j) of group g: groups are stacked along K (NoTranspose, ld >= N) or
// each group's N x K/G transpose is stored one after another (Transpose, ld >= K/G).
int64_t source_index(const PackedBLayout& l, matrix_op_t trans, int32_t ld, int g, int k, int j) {
  if (trans == matrix_op_t::NoTranspose) return (int64_t{g} * l.k_per_group + k) * ld + j;
  return int64_t{g} * l.n * ld + int64_t{j} * ld + k;
}

// Byte offset of (k, j) of group g inside the packed buffer.
int64_t packed_index(const PackedBLayout& l, int g, int k, int j) {
  const int p = j / l.panel_width, jj = j % l.panel_width;
  return g * l.group_bytes() + p * l.panel_bytes() + int64_t{k / 4} * l.panel_width * 4 +
         jj * 4 + k % 4;
}

}  // namespace

PackedBLayout make_b_layout(matrix_op_t trans, int32_t nRow, int32_t nCol, const void* smat,
                            int32_t ld, int groups, int panel_width) {
  const char* where = "PackBMatrix";
  check_arg(trans == matrix_op_t::NoTranspose || trans == matrix_op_t::Transpose, where, "trans",
            static_cast<int>(trans), "is not a matrix_op_t");
  // An empty B (K = 0 or N = 0) is valid, as in FBGEMM; nothing of smat is read then.
  check_arg(nRow >= 0, where, "nRow", nRow, "must be >= 0");
  check_arg(nCol >= 0, where, "nCol", nCol, "must be >= 0");
  check_arg(groups >= 1, where, "groups", groups, "must be >= 1");
  check_arg(nRow % groups == 0, where, "groups", groups, "must divide nRow (K)");
  if (nRow > 0 && nCol > 0) check_not_null(smat, where, "smat");
  const int32_t k_per_group = nRow / groups;
  const int64_t row_len = trans == matrix_op_t::NoTranspose ? nCol : k_per_group;
  check_arg(ld >= row_len, where, "ld", ld,
            trans == matrix_op_t::NoTranspose ? "must be >= nCol" : "must be >= nRow / groups");
  check_product(nRow, nCol, where, "nRow x nCol");
  // Exactness: K products of at most 255 * 128 must sum within int32.
  check_arg(k_per_group <= kMaxExactK, where, "nRow / groups", k_per_group,
            "must be <= 65793 so that int32 accumulation cannot overflow");
  PackedBLayout l{k_per_group, nCol, groups, panel_width, (k_per_group + 3) & ~3};
  check_product(l.total_bytes() / panel_width, panel_width, where, "packed bytes");
  return l;
}

void pack_b(const PackedBLayout& l, matrix_op_t trans, const int8_t* src, int32_t ld, int8_t* dst) {
  // Walks the packed buffer in order (sequential writes); padding lanes get zeros.
  const int width = l.panel_width;
  int8_t* out = dst;
  for (int g = 0; g < l.groups; ++g) {
    for (int p = 0; p < l.panels(); ++p) {
      const int j0 = p * width, cols = std::min(width, l.n - j0);
      for (int k = 0; k < l.padded_k; k += 4, out += 4 * width) {
        const int depth = std::min(4, l.k_per_group - k);
        std::memset(out, 0, static_cast<size_t>(4 * width));
        if (trans == matrix_op_t::NoTranspose) {
          for (int q = 0; q < depth; ++q) {
            const int8_t* row = src + source_index(l, trans, ld, g, k + q, j0);
            for (int j = 0; j < cols; ++j) out[4 * j + q] = row[j];
          }
        } else {
          for (int j = 0; j < cols; ++j) {
            const int8_t* col = src + source_index(l, trans, ld, g, k, j0 + j);
            for (int q = 0; q < depth; ++q) out[4 * j + q] = col[q];
          }
        }
      }
    }
  }
}

void pack_b_block(const PackedBLayout& l, matrix_op_t trans, const int8_t* src, int32_t ld,
                  const block_type_t& block, int8_t* dst, const char* where) {
  check_arg(block.row_start >= 0, where, "block.row_start", block.row_start, "must be >= 0");
  check_arg(block.col_start >= 0, where, "block.col_start", block.col_start, "must be >= 0");
  if (block.row_size < 0 || int64_t{block.row_start} + block.row_size > l.k_per_group)
    fail_argument(where, "block.row_size", block.row_size,
                  ("must keep the block inside the group's K = " +
                   std::to_string(l.k_per_group) + " rows").c_str());
  if (block.col_size < 0 || int64_t{block.col_start} + block.col_size > l.n)
    fail_argument(where, "block.col_size", block.col_size,
                  ("must keep the block inside N = " + std::to_string(l.n) + " columns").c_str());
  if (block.row_size == 0 || block.col_size == 0) return;
  check_not_null(src, where, "the source matrix (smat at construction)");
  for (int g = 0; g < l.groups; ++g)
    for (int k = block.row_start; k < block.row_start + block.row_size; ++k)
      for (int j = block.col_start; j < block.col_start + block.col_size; ++j)
        dst[packed_index(l, g, k, j)] = src[source_index(l, trans, ld, g, k, j)];
}

std::vector<uint8_t> pair_safe_limits(const PackedBLayout& l, const int8_t* packed) {
  std::vector<uint8_t> limits(static_cast<size_t>(l.groups) * l.panels());  // then the index
  for (size_t i = 0; i < limits.size(); ++i) {
    const int8_t* panel = packed + static_cast<int64_t>(i) * l.panel_bytes();  // groups are consecutive panels
    // Branch-free over the whole panel (panel_bytes is a multiple of 4): the compiler
    // vectorizes it. Zero padding adds pairs with P = N = 0.
    int positive = 0, negative = 0;
    for (int64_t j = 0; j < l.panel_bytes(); j += 2) {
      const int b0 = panel[j], b1 = panel[j + 1];
      positive = std::max(positive, std::max(b0, 0) + std::max(b1, 0));
      negative = std::min(negative, std::min(b0, 0) + std::min(b1, 0));
    }
    // a_max * P <= 32767 and a_max * N >= -32768, as integer quotients.
    int limit = 255;
    if (positive > 0) limit = std::min(limit, 32767 / positive);
    if (negative < 0) limit = std::min(limit, 32768 / -negative);
    limits[i] = static_cast<uint8_t>(limit);
  }
  append_pair_index(l, packed, limits);
  return limits;
}

void unpack_b(const PackedBLayout& l, matrix_op_t trans, int32_t ld, const int8_t* packed,
              int8_t* dst) {
  for (int g = 0; g < l.groups; ++g)
    for (int k = 0; k < l.k_per_group; ++k)
      for (int j = 0; j < l.n; ++j) dst[source_index(l, trans, ld, g, k, j)] = packed[packed_index(l, g, k, j)];
}

std::string describe_packed_b(const PackedBLayout& l, const int8_t* packed, const std::string& name,
                              int kcb) {
  std::ostringstream out;
  out << name << ":[" << l.k_per_group << ", " << l.n << "]\n";
  out << "block size:[" << kcb << ", " << l.panel_width << "]\n";
  const int k_blocks = (l.k_per_group + kcb - 1) / kcb;
  for (int g = 0; g < l.groups; ++g) {
    out << "group: " << g << '\n';
    for (int kb = 0; kb < k_blocks; ++kb) {
      const int rows = std::min(kcb, l.k_per_group - kb * kcb);
      for (int p = 0; p < l.panels(); ++p) {
        out << "block:" << kb << ", " << p << '\n';
        const int cols = std::min(l.panel_width, l.n - p * l.panel_width);
        const int8_t* step = packed + g * l.group_bytes() + p * l.panel_bytes() +
                             int64_t{kb} * kcb * l.panel_width;  // kcb / 4 steps of width x 4
        for (int r = 0; r < (rows + 3) / 4; ++r, step += 4 * l.panel_width) {
          for (int c = 0; c < 4 * cols; ++c)
            out << std::setw(5) << static_cast<int64_t>(step[c]) << " ";
          out << '\n';
        }
        out << '\n';
      }
    }
  }
  return out.str();
}

}  // namespace quire::detail
