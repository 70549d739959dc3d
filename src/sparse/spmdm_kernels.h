// The loops of the SpMDM tables (spmdm_table.h states what each computes)
// and the rules that pick one per block.
#pragma once

#include <cstdint>

#include "sparse/spmdm_table.h"

namespace quire::detail {

// Rows outer, one gathered byte per nonzero and row: no set-up.
void spmdm_by_rows(const SpmdmArgs& a);

// Portable: A transposed 32 rows at a time (scalar), nonzeros applied to 32 rows at once
// with SSE2.
void spmdm_transposed(const SpmdmArgs& a);

// C (+)= 0 over the block: the product when the block's columns hold no nonzero.
void spmdm_no_nonzeros(const SpmdmArgs& a);

// The nonzeros the block's columns hold.
inline int64_t spmdm_nonzeros(const SpmdmArgs& a) {
  return a.colptr[a.block.col_start + a.block.col_size] - a.colptr[a.block.col_start];
}

// Portable rule: whether spmdm_transposed is the faster for a block of `rows` rows whose
// columns hold `nonzeros` nonzeros, with K rows in the sparse matrix (measured, see the
// .cpp).
bool spmdm_prefers_transposed(int rows, int64_t nonzeros, int K);

// Rule of the vector paths: each loop's time for one block estimated from per-path
// constants (ns, measured on Zen 4, see spmdm_avx2.cpp and spmdm_avx512.cpp):
//   by rows     rows * (cols * by_rows_out + nonzeros * by_rows_mac)
//   transposed  fixed + chunk_rows * (used_k * transpose + nonzeros * mac + cols * column)
//               + rows * cols * out
// chunk_rows: the rows the vector loop computes (rows rounded up to whole vectors);
// used_k: the rows of B (16 at a time) that hold a nonzero of the block's columns, the
// only ones the transposed loop transposes. by_rows_out is mostly the loop over every
// (row, column), which the transposed loop replaces by a transpose of its sums.
struct SpmdmCosts {
  double by_rows_out, by_rows_mac;
  double fixed, transpose, mac, column, out;
};
bool spmdm_prefers_vector(const SpmdmCosts& c, int rows, int chunk_rows, int cols,
                          int64_t nonzeros, int used_k);

}  // namespace quire::detail
