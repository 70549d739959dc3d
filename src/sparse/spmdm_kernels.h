// The two loops behind CompressedSparseColumn::SpMDM, on arrays already checked.
// Both compute, for i < block.row_size and j < block.col_size,
//   s = sum over p in [colptr[c], colptr[c + 1]), c = block.col_start + j, of
//       A[(block.row_start + i) * lda + rowidx[p]] * values[p]
//   C[i * ldc + j] = s, or += s (modulo 2^32) when accumulation,
// exactly; they differ only in speed.
#pragma once

#include <cstdint>

#include "quire/Types.h"

namespace quire::detail {

struct SpmdmArgs {
  block_type_t block;
  const uint8_t* A;
  int64_t lda;
  int K;  // rows of the sparse matrix: the columns of A that may be read
  bool accumulation;
  int32_t* C;
  int64_t ldc;
  const int32_t* colptr;
  const int16_t* rowidx;
  const int8_t* values;
};

// Rows outer, one gathered byte per nonzero and row: no set-up.
void spmdm_by_rows(const SpmdmArgs& a);

// A transposed 32 rows at a time, nonzeros applied to 32 rows at once with SSE2.
void spmdm_transposed(const SpmdmArgs& a);

// Whether spmdm_transposed is the faster for a block of `rows` rows whose columns hold
// `nonzeros` nonzeros, with K rows in the sparse matrix (measured, see the .cpp).
bool spmdm_prefers_transposed(int rows, int64_t nonzeros, int K);

}  // namespace quire::detail
