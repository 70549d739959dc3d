#include <iomanip>
#include <iostream>
#include <string>

#include "quire/detail/Check.h"
#include "cpu/isa_record.h"
#include "quire/PackABase.h"
#include "quire/detail/PackA.h"

namespace quire::detail {

void check_a_source(const ASource& a, const char* where) {
  // An empty A (nRow = 0: an empty batch; or nCol = 0) is valid, as in FBGEMM: nothing
  // of it is ever read, so smat may be null.
  check_arg(a.rows >= 0, where, "nRow", a.rows, "must be >= 0");
  check_arg(a.cols >= 0, where, "nCol", a.cols, "must be >= 0");
  check_arg(a.groups >= 1, where, "groups", a.groups, "must be >= 1");
  check_arg(a.cols % a.groups == 0, where, "groups", a.groups, "must divide nCol (K)");
  if (a.rows > 0 && a.cols > 0) check_not_null(a.data, where, "smat");
  const int64_t row_len = a.transposed ? a.rows : a.cols;
  check_arg(a.ld >= row_len && a.ld <= INT32_MAX, where, "ld", a.ld,
            a.transposed ? "must be >= nRow for a transposed A and fit int32"
                         : "must be >= nCol and fit int32");
  check_product(a.rows, a.cols, where, "nRow x nCol");
}

void print_a_block(const std::string& name, const PackedABlock& view, int rows, int cols) {
  std::cout << name << ":[" << rows << ", " << cols << "]\n";
  for (int r = 0; r < rows && view.data != nullptr; ++r) {
    for (int c = 0; c < cols; ++c)
      std::cout << std::setw(5) << static_cast<int64_t>(view.data[r * view.ld + c]) << " ";
    std::cout << '\n';
  }
  std::cout << '\n';
}

PackedABlock pack_a_block(const ASource& a, const block_type_t& block, uint8_t* dst,
                        int64_t ld_dst, int32_t* row_sums) {
  const int64_t offset = a.transposed
                             ? int64_t{block.col_start} * a.ld + block.row_start
                             : int64_t{block.row_start} * a.ld + block.col_start;
  const int k_per_group = a.cols / a.groups;
  const bool first_k_block = block.col_start % k_per_group == 0;
  const bool in_place = a_block_in_place(a, block);
  if (in_place && row_sums == nullptr) return PackedABlock{a.data + offset, a.ld};
  record_at_or_below(a.path).pack_a(a.data + offset, a.ld, a.transposed, block.row_size,
                                    block.col_size, in_place ? nullptr : dst, ld_dst, row_sums,
                                    !first_k_block);
  return in_place ? PackedABlock{a.data + offset, a.ld} : PackedABlock{dst, ld_dst};
}

}  // namespace quire::detail

namespace quire {

void sumPackedRows(const uint8_t* a, int64_t ld, int rows, int cols, int32_t* row_sums,
                   bool accumulate) {
  const char* where = "sumPackedRows";
  detail::check_arg(rows >= 0, where, "rows", rows, "must be >= 0");
  detail::check_arg(cols >= 0, where, "cols", cols, "must be >= 0");
  detail::check_arg(ld >= cols, where, "ld", ld, "must be >= cols");
  if (rows == 0) return;
  detail::check_not_null(row_sums, where, "row_sums");
  if (cols > 0) detail::check_not_null(a, where, "a");
  detail::active_isa().pack_a(a, ld, false, rows, cols, nullptr, ld, row_sums, accumulate);
}

}  // namespace quire
