// The loops behind CompressedSparseColumn::SpMDM, one table per ISA (IsaRecord::spmdm),
// with the path's table of sparse x dense products (BCSR int8, CSR fp32; see
// src/sparse/sparse_dense_kernels.h). Private to the library.
//
// SpMDM validates its arguments, resolves them into SpmdmArgs and calls run of the
// active record's table. Every routine computes, for i < block.row_size and
// j < block.col_size,
//   s = sum over p in [colptr[c], colptr[c + 1]), c = block.col_start + j, of
//       A[(block.row_start + i) * lda + rowidx[p]] * values[p]
//   C[i * ldc + j] = s, or += s (modulo 2^32) when accumulation,
// exactly; they differ only in speed. The arrays are consistent (colptr does not
// decrease over the block's columns, 0 <= rowidx < K), row_size and col_size are
// positive, and rows of a column may come in any order. The sources are in src/sparse/.
#pragma once

#include <cstdint>

#include "quire/Types.h"

namespace quire::detail {

struct SpmdmArgs {
  block_type_t block;
  const uint8_t* A;
  int64_t lda;
  int K;  // rows of the sparse matrix (<= 32768): the columns of A that may be read
  bool accumulation;
  int32_t* C;
  int64_t ldc;
  const int32_t* colptr;
  const int16_t* rowidx;
  const int8_t* values;
};
using SpmdmFn = void (*)(const SpmdmArgs&);

struct SparseDenseKernels;  // src/sparse/sparse_dense_kernels.h

struct SpmdmKernels {
  const char* name;
  // The loop of the two below that the path's measured rule expects to be the faster
  // for the block (see src/sparse/spmdm_kernels.h).
  SpmdmFn run;
  // Rows outer, one gathered byte per nonzero and row: no set-up (the same on all paths).
  SpmdmFn by_rows;
  // A transposed, nonzeros applied to many rows at once: SSE2 on the portable path
  // (spmdm_kernels.cpp), AVX2 / AVX-512 (spmdm_simd.h) on the others.
  SpmdmFn transposed;
  // fbgemmSparseDenseInt8MM, SparseDenseMM and trRequantizeOpt's loops on this path.
  const SparseDenseKernels* dense;
};

extern const SpmdmKernels kSpmdmPortable;
extern const SpmdmKernels kSpmdmAvx2;
extern const SpmdmKernels kSpmdmAvx512;
extern const SpmdmKernels kSpmdmAvx512Vnni;  // kSpmdmAvx512's loops, VNNI sparse x dense

}  // namespace quire::detail
