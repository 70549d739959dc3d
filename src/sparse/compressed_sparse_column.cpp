#include "quire/CompressedSparseColumn.h"

#include <algorithm>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "quire/OutputProcessing.h"
#include "quire/detail/Check.h"
#include "cpu/isa_record.h"
#include "sparse/spmdm_table.h"

namespace quire {
namespace {

constexpr int kMaxRows = 32768;  // row indices are int16: 0 .. 32767

[[noreturn]] void fail(const char* where, const std::string& what) {
  throw std::invalid_argument(std::string(where) + ": " + what);
}

std::string at(const char* array, int64_t index, int64_t value) {
  return std::string(array) + "[" + std::to_string(index) + "]=" + std::to_string(value);
}

}  // namespace

CompressedSparseColumn::CompressedSparseColumn(int num_of_rows, int num_of_cols)
    : num_rows_(num_of_rows), num_cols_(num_of_cols) {
  const char* where = "CompressedSparseColumn";
  detail::check_arg(num_of_rows >= 0, where, "num_of_rows", num_of_rows, "must be >= 0");
  detail::check_arg(num_of_rows <= kMaxRows, where, "num_of_rows", num_of_rows,
                    "must be <= 32768 (row indices are int16)");
  detail::check_arg(num_of_cols >= 0, where, "num_of_cols", num_of_cols, "must be >= 0");
  // Every column's nonzero count must fit ColPtr's int32 entries.
  detail::check_product(num_of_rows, num_of_cols, where, "num_of_rows x num_of_cols");
  colptr_.assign(static_cast<size_t>(num_of_cols) + 1, 0);
}

double CompressedSparseColumn::Density() const {
  const double elements = double(num_rows_) * double(num_cols_);
  return elements == 0 ? 0.0 : NumOfNonZeros() / elements;
}

bool CompressedSparseColumn::IsHyperSparse() const {
  return NumOfNonZeros() < 0.3 * num_rows_;
}

void CompressedSparseColumn::check_sizes(const char* where) const {
  if (colptr_.size() != static_cast<size_t>(num_cols_) + 1)
    fail(where, "ColPtr has " + std::to_string(colptr_.size()) + " entries, NumOfCols + 1 = " +
                    std::to_string(num_cols_ + 1) + " expected");
  if (colptr_[0] != 0) fail(where, at("ColPtr", 0, colptr_[0]) + " must be 0");
  const int32_t nnz = colptr_.back();
  if (nnz < 0 || static_cast<size_t>(nnz) != rowidx_.size())
    fail(where, at("ColPtr", num_cols_, nnz) + " (the nonzero count) differs from RowIdx's size " +
                    std::to_string(rowidx_.size()));
  if (static_cast<size_t>(nnz) != values_.size())
    fail(where, at("ColPtr", num_cols_, nnz) + " (the nonzero count) differs from Values' size " +
                    std::to_string(values_.size()));
}

void CompressedSparseColumn::check_columns(const char* where, int c0, int c1) const {
  const int32_t nnz = colptr_.back();
  for (const int c : {c0, c1})
    if (colptr_[c] < 0 || colptr_[c] > nnz)
      fail(where, at("ColPtr", c, colptr_[c]) + " is outside [0, " + std::to_string(nnz) + "]");
  for (int c = c0; c < c1; ++c) {
    if (colptr_[c + 1] < colptr_[c])
      fail(where, at("ColPtr", c + 1, colptr_[c + 1]) + " is less than " +
                      at("ColPtr", c, colptr_[c]));
  }
  // SpMDM runs this on every block, so the row indices are checked by a min/max
  // reduction the compiler vectorizes (an early-exit loop it would not); the index at
  // fault is looked for only once one is known to exist.
  // In int16, SSE2's pminsw / pmaxsw do it 8 at a time.
  const int16_t* rowidx = rowidx_.data();
  int16_t lo = 0, hi = 0;
  for (int32_t p = colptr_[c0]; p < colptr_[c1]; ++p) {
    lo = std::min(lo, rowidx[p]);
    hi = std::max(hi, rowidx[p]);
  }
  if (lo >= 0 && hi < num_rows_) return;
  for (int32_t p = colptr_[c0]; p < colptr_[c1]; ++p)
    if (rowidx[p] < 0 || rowidx[p] >= num_rows_)
      fail(where, at("RowIdx", p, rowidx[p]) + " is outside [0, NumOfRows = " +
                      std::to_string(num_rows_) + ")");
}

void CompressedSparseColumn::validate(const char* where) const {
  check_sizes(where);
  check_columns(where, 0, num_cols_);
}

void CompressedSparseColumn::SpMDM(const block_type_t& block, const uint8_t* A, int lda,
                                   bool accumulation, int32_t* C, int ldc) const {
  SpMDM(block, A, lda, accumulation, C, ldc, detail::active_isa().traits().inst_set);
}

void CompressedSparseColumn::SpMDM(const block_type_t& block, const uint8_t* A, int lda,
                                   bool accumulation, int32_t* C, int ldc,
                                   inst_set_t path) const {
  const char* where = "CompressedSparseColumn::SpMDM";
  detail::check_not_null(A, where, "A");
  detail::check_not_null(C, where, "C");
  if (block.row_start < 0 || block.row_size < 0 || block.col_start < 0 || block.col_size < 0 ||
      int64_t{block.col_start} + block.col_size > num_cols_)
    fail(where, "block = " + detail::block_string(block) +
                    " must have non-negative starts and sizes and columns inside [0, "
                    "NumOfCols = " + std::to_string(num_cols_) + ")");
  detail::check_arg(lda >= num_rows_, where, "lda", lda, "must be >= NumOfRows");
  detail::check_arg(ldc >= block.col_size, where, "ldc", ldc, "must be >= block.col_size");
  // Only what this block reads: O(columns + nonzeros of the block), against
  // O(rows x nonzeros) for the product.
  check_sizes(where);
  check_columns(where, block.col_start, block.col_start + block.col_size);

  if (block.row_size == 0 || block.col_size == 0) return;
  const detail::SpmdmArgs args{block, A, lda, num_rows_, accumulation, C, ldc,
                               colptr_.data(), rowidx_.data(), values_.data()};
  detail::record_at_or_below(path).spmdm->run(args);
}

CompressedSparseColumn CompressedSparseColumn::fromDense(int rows, int cols, const int8_t* B,
                                                         int ldb) {
  const char* where = "CompressedSparseColumn::fromDense";
  detail::check_arg(rows >= 0 && rows <= kMaxRows, where, "rows", rows,
                    "must be in [0, 32768] (row indices are int16)");
  detail::check_arg(cols >= 0, where, "cols", cols, "must be >= 0");
  if (int64_t{rows} * cols > 0) detail::check_not_null(B, where, "B");
  detail::check_arg(ldb >= cols, where, "ldb", ldb, "must be >= cols");
  CompressedSparseColumn csc(rows, cols);
  for (int j = 0; j < cols; ++j) {
    for (int k = 0; k < rows; ++k) {
      const int8_t v = B[int64_t{k} * ldb + j];
      if (v == 0) continue;
      csc.rowidx_.push_back(static_cast<int16_t>(k));
      csc.values_.push_back(v);
    }
    csc.colptr_[j + 1] = static_cast<int32_t>(csc.values_.size());
  }
  return csc;
}

void CompressedSparseColumn::toDense(int8_t* B, int ldb) const {
  const char* where = "CompressedSparseColumn::toDense";
  if (int64_t{num_rows_} * num_cols_ > 0) detail::check_not_null(B, where, "B");
  detail::check_arg(ldb >= num_cols_, where, "ldb", ldb, "must be >= NumOfCols");
  validate(where);
  for (int k = 0; k < num_rows_; ++k)
    std::fill_n(B + int64_t{k} * ldb, num_cols_, int8_t{0});
  for (int j = 0; j < num_cols_; ++j)
    for (int32_t p = colptr_[j]; p < colptr_[j + 1]; ++p)
      B[int64_t{rowidx_[p]} * ldb + j] = values_[p];
}

}  // namespace quire
