#include <string>

#include "quire/detail/Check.h"
#include "quire/detail/IsaRecord.h"
#include "quire/detail/PackA.h"

namespace quire::detail {

void check_a_source(const ASource& a, const char* where) {
  check_arg(a.rows >= 1, where, "nRow", a.rows, "must be >= 1");
  check_arg(a.cols >= 1, where, "nCol", a.cols, "must be >= 1");
  check_arg(a.groups >= 1, where, "groups", a.groups, "must be >= 1");
  check_arg(a.cols % a.groups == 0, where, "groups", a.groups, "must divide nCol (K)");
  check_not_null(a.data, where, "smat");
  const int64_t row_len = a.transposed ? a.rows : a.cols;
  check_arg(a.ld >= row_len && a.ld <= INT32_MAX, where, "ld", a.ld,
            a.transposed ? "must be >= nRow for a transposed A and fit int32"
                         : "must be >= nCol and fit int32");
  check_product(a.rows, a.cols, where, "nRow x nCol");
}

ABlockView pack_a_block(const ASource& a, const block_type_t& block, uint8_t* dst,
                        int64_t ld_dst, int32_t* row_sums) {
  const int64_t offset = a.transposed
                             ? int64_t{block.col_start} * a.ld + block.row_start
                             : int64_t{block.row_start} * a.ld + block.col_start;
  const int k_per_group = a.cols / a.groups;
  const bool first_k_block = block.col_start % k_per_group == 0;
  const bool in_place = a_block_in_place(a, block);
  if (in_place && row_sums == nullptr) return ABlockView{a.data + offset, a.ld};
  active_isa().pack_a(a.data + offset, a.ld, a.transposed, block.row_size, block.col_size,
                      in_place ? nullptr : dst, ld_dst, row_sums, !first_k_block);
  return in_place ? ABlockView{a.data + offset, a.ld} : ABlockView{dst, ld_dst};
}

}  // namespace quire::detail
