// CompressedSparseColumn: a sparse int8 matrix B (NumOfRows x NumOfCols) in compressed
// sparse column form, and SpMDM, the exact int32 product of a uint8 dense matrix with it.
// acc16 uses it for the weights the outlier split (OutlierSplit.h) moves out of the
// saturating int16 kernels; DoSpmdmOnInpBuffer adds its product in the output pipeline.
// For a 2D convolution, SparseConv (and DoSConvOnInpBuffer) read each nonzero's kernel
// position and input channel from KHs, KWs and ICs instead of RowIdx.
//
// Layout: the nonzeros of column c are p in [ColPtr()[c], ColPtr()[c + 1]), each at row
// RowIdx()[p] with value Values()[p]. ColPtr has NumOfCols + 1 entries, starts at 0 and
// never decreases; its last entry is the number of nonzeros (= RowIdx().size() =
// Values().size()). Row indices are int16, hence at most 32768 rows. fromDense sorts the
// rows of each column ascending; SpMDM does not require it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "quire/ConvUtils.h"
#include "quire/Types.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

class CompressedSparseColumn {
 public:
  // An all-zero num_of_rows x num_of_cols matrix (ColPtr = num_of_cols + 1 zeros). Throws
  // std::invalid_argument for a negative size or num_of_rows > 32768.
  CompressedSparseColumn(int num_of_rows, int num_of_cols);

  // The arrays, for filling in place (FBGEMM's way) or reading. After filling them by
  // hand, validate() says whether they are consistent.
  std::vector<int32_t>& ColPtr() { return colptr_; }
  std::vector<int16_t>& RowIdx() { return rowidx_; }
  std::vector<int8_t>& Values() { return values_; }
  const std::vector<int32_t>& ColPtr() const { return colptr_; }
  const std::vector<int16_t>& RowIdx() const { return rowidx_; }
  const std::vector<int8_t>& Values() const { return values_; }
  // For SparseConv, one entry per nonzero (as Values): its kernel row, kernel column and
  // input channel; ICs include the group (channel g * IC / G + c of group g).
  std::vector<int16_t>& KHs() { return kh_; }
  std::vector<int16_t>& KWs() { return kw_; }
  std::vector<int16_t>& ICs() { return ic_; }
  const std::vector<int16_t>& KHs() const { return kh_; }
  const std::vector<int16_t>& KWs() const { return kw_; }
  const std::vector<int16_t>& ICs() const { return ic_; }

  size_t NumOfRows() const { return static_cast<size_t>(num_rows_); }
  size_t NumOfCols() const { return static_cast<size_t>(num_cols_); }
  // ColPtr().back() (0 when ColPtr has been emptied by hand).
  int32_t NumOfNonZeros() const { return colptr_.empty() ? 0 : colptr_.back(); }
  // nnz / (rows * cols); 0 for a matrix with no elements.
  double Density() const;
  // A heuristic, not a property: fewer than 0.3 nonzeros per row (nnz < 0.3 * rows),
  // FBGEMM's test for a matrix too sparse to be worth transposing A for. quire's SpMDM
  // makes that choice per block instead, from the nonzeros the block's columns hold.
  bool IsHyperSparse() const;

  // For i in [0, block.row_size), j in [0, block.col_size):
  //   s = sum over the nonzeros (k, v) of column block.col_start + j of
  //       A[(block.row_start + i) * lda + k] * v                              (exact)
  //   C[i * ldc + j] = s, or C[i * ldc + j] += s (modulo 2^32) when accumulation.
  // A's rows are absolute (row_start applied), C is relative to the block, B's columns are
  // absolute. Throws std::invalid_argument for null A or C, lda < NumOfRows, ldc <
  // block.col_size, a block outside [0, NumOfCols) in columns or with a negative start or
  // size, and for inconsistent arrays (the parts this block reads are checked).
  void SpMDM(const block_type_t& block, const uint8_t* A, int lda, bool accumulation,
             int32_t* C, int ldc) const;
  // The same with the loops of a given path (quire's addition; the one above runs the
  // active path's): path's if the CPU has it, else the best below it. DoSpmdmOnInpBuffer
  // runs the path its f<instSet> was called for, like every output op.
  void SpMDM(const block_type_t& block, const uint8_t* A, int lda, bool accumulation,
             int32_t* C, int ldc, inst_set_t path) const;

  // The sparse part of a 2D convolution, as an im2col product. For i in
  // [0, block.row_size) (output pixel p = block.row_start + i of the NHWC output: batch n,
  // row oh, column ow) and j in [0, block.col_size) (output channel c = block.col_start
  // + j), over the nonzeros (kh, kw, ic, v) of column c:
  //   ih = oh * stride[0] - pad[0] + kh * dilation[0], iw likewise,
  //   s += v * (A[((n * IN_DIM[0] + ih) * IN_DIM[1] + iw) * IC + ic] if (ih, iw) is inside
  //             the input, else A_zero_point)                          (exact, modulo 2^32)
  //   C[i * ldc + j] = s, or += s when accumulation.
  // A is the convolution's NHWC uint8 input. Throws std::invalid_argument for null A or C,
  // ldc < block.col_size, a transposed convolution, a block outside the output's pixels
  // or NumOfCols, KHs / KWs / ICs not sized as Values or with entries outside the kernel
  // or the input channels, and inconsistent ColPtr / Values (the block's columns are
  // checked). RowIdx is not read.
  void SparseConv(const conv_param_t<>& conv_p, const block_type_t& block, const uint8_t* A,
                  int32_t A_zero_point, bool accumulation, int32_t* C, int ldc) const;

  // quire's additions.
  // The nonzeros of B (rows x cols, row-major, ldb >= cols), rows ascending per column.
  // B may be null only when the matrix has no elements (likewise for toDense).
  static CompressedSparseColumn fromDense(int rows, int cols, const int8_t* B, int ldb);
  // Writes the matrix to B (NumOfRows x NumOfCols, row-major, ldb >= NumOfCols), zeros
  // included. Throws like validate() for inconsistent arrays.
  void toDense(int8_t* B, int ldb) const;
  // Throws std::invalid_argument, prefixed with `where` and naming ColPtr, RowIdx or
  // Values, unless the arrays form a valid matrix as described at the top of this file.
  void validate(const char* where) const;

 private:
  // ColPtr's size and first entry, and its last entry against RowIdx's and Values' sizes.
  void check_sizes(const char* where) const;
  // Columns [c0, c1): their ColPtr entries lie in [0, nnz] and do not decrease, and
  // their row indices lie in [0, NumOfRows). Assumes check_sizes passed.
  void check_columns(const char* where, int c0, int c1) const;

  int num_rows_;
  int num_cols_;
  std::vector<int32_t> colptr_;
  std::vector<int16_t> rowidx_;
  std::vector<int8_t> values_;
  std::vector<int16_t> kh_, kw_, ic_;
};

}  // namespace quire
QUIRE_API_END
