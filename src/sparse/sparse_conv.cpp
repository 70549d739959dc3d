// CompressedSparseColumn::SparseConv: the sparse part of a 2D convolution, applied to the
// NHWC input directly (no im2col). Output pixels whose every kernel tap lies inside the
// input (most of them) read A through one precomputed offset per nonzero; the others
// check each tap and use A_zero_point outside, as im2col's padding does.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "quire/CompressedSparseColumn.h"
#include "quire/OutputProcessing.h"
#include "quire/detail/Check.h"

namespace quire {
namespace {

[[noreturn]] void fail(const char* where, const std::string& what) {
  throw std::invalid_argument(std::string(where) + ": " + what);
}

void check_taps(const char* where, const char* name, const std::vector<int16_t>& v, size_t nnz,
                int32_t p0, int32_t p1, int limit, const char* bound) {
  if (v.size() != nnz)
    fail(where, std::string(name) + " has " + std::to_string(v.size()) +
                    " entries, one per nonzero (" + std::to_string(nnz) + ") expected");
  for (int32_t p = p0; p < p1; ++p)
    if (v[p] < 0 || v[p] >= limit)
      fail(where, std::string(name) + "[" + std::to_string(p) + "]=" + std::to_string(v[p]) +
                      " is outside [0, " + bound + " = " + std::to_string(limit) + ")");
}

}  // namespace

void CompressedSparseColumn::SparseConv(const conv_param_t<>& conv_p, const block_type_t& block,
                                        const uint8_t* A, int32_t A_zero_point,
                                        bool accumulation, int32_t* C, int ldc) const {
  const char* where = "CompressedSparseColumn::SparseConv";
  if (conv_p.transposed) fail(where, "conv_p.transposed=1: a transposed convolution is not supported");
  const int OH = conv_p.OUT_DIM[0], OW = conv_p.OUT_DIM[1];
  const int64_t pixels = int64_t{conv_p.MB} * OH * OW;
  if (block.row_start < 0 || block.row_size < 0 || block.col_start < 0 || block.col_size < 0 ||
      int64_t{block.row_start} + block.row_size > pixels ||
      int64_t{block.col_start} + block.col_size > num_cols_)
    fail(where, "block = " + detail::block_string(block) +
                    " must have non-negative starts and sizes, rows inside the " +
                    std::to_string(pixels) + " output pixels and columns inside NumOfCols = " +
                    std::to_string(num_cols_));
  detail::check_not_null(A, where, "A");
  detail::check_not_null(C, where, "C");
  detail::check_arg(ldc >= block.col_size, where, "ldc", ldc, "must be >= block.col_size");
  // ColPtr and Values as SpMDM checks them; RowIdx is not read (FBGEMM's callers may leave
  // it empty), KHs, KWs and ICs take its place.
  if (colptr_.size() != static_cast<size_t>(num_cols_) + 1 || colptr_[0] != 0 ||
      colptr_.back() < 0 || static_cast<size_t>(colptr_.back()) != values_.size())
    fail(where, "ColPtr (" + std::to_string(colptr_.size()) + " entries, first " +
                    (colptr_.empty() ? std::string("none") : std::to_string(colptr_[0])) +
                    ") must have NumOfCols + 1 = " + std::to_string(num_cols_ + 1) +
                    " entries from 0 to the size of Values, " + std::to_string(values_.size()));
  for (int c = block.col_start; c < block.col_start + block.col_size; ++c)
    if (colptr_[c + 1] < colptr_[c] || colptr_[c] < 0 || colptr_[c + 1] > colptr_.back())
      fail(where, "ColPtr[" + std::to_string(c + 1) + "]=" + std::to_string(colptr_[c + 1]) +
                      " is outside [ColPtr[" + std::to_string(c) + "], nonzeros]");
  const int32_t p0 = colptr_[block.col_start], p1 = colptr_[block.col_start + block.col_size];
  check_taps(where, "KHs", kh_, values_.size(), p0, p1, conv_p.K[0], "K[0]");
  check_taps(where, "KWs", kw_, values_.size(), p0, p1, conv_p.K[1], "K[1]");
  check_taps(where, "ICs", ic_, values_.size(), p0, p1, conv_p.IC, "IC");
  if (block.row_size == 0 || block.col_size == 0) return;

  const int IH = conv_p.IN_DIM[0], IW = conv_p.IN_DIM[1], IC = conv_p.IC;
  const int dh = conv_p.dilation[0], dw = conv_p.dilation[1];
  // Offset of each nonzero's tap from the tap (0, 0) of a pixel, in A's elements.
  std::vector<int64_t> offset(static_cast<size_t>(p1 - p0));
  for (int32_t p = p0; p < p1; ++p)
    offset[p - p0] = (int64_t{kh_[p]} * dh * IW + int64_t{kw_[p]} * dw) * IC + ic_[p];
  const int span_h = (conv_p.K[0] - 1) * dh, span_w = (conv_p.K[1] - 1) * dw;

  for (int i = 0; i < block.row_size; ++i) {
    const int64_t pixel = int64_t{block.row_start} + i;
    const int ow = static_cast<int>(pixel % OW), oh = static_cast<int>(pixel / OW % OH);
    const int64_t n = pixel / OW / OH;
    const int ih0 = oh * conv_p.stride[0] - conv_p.pad[0];
    const int iw0 = ow * conv_p.stride[1] - conv_p.pad[1];
    const bool inside = ih0 >= 0 && ih0 + span_h < IH && iw0 >= 0 && iw0 + span_w < IW;
    const uint8_t* a = inside ? A + ((n * IH + ih0) * IW + iw0) * IC : nullptr;
    int32_t* c = C + int64_t{i} * ldc;
    for (int j = 0; j < block.col_size; ++j) {
      const int col = block.col_start + j;
      uint32_t s = accumulation ? static_cast<uint32_t>(c[j]) : 0u;
      if (inside) {
        for (int32_t p = colptr_[col]; p < colptr_[col + 1]; ++p)
          s += static_cast<uint32_t>(int32_t{values_[p]} * a[offset[p - p0]]);
      } else {
        for (int32_t p = colptr_[col]; p < colptr_[col + 1]; ++p) {
          const int ih = ih0 + kh_[p] * dh, iw = iw0 + kw_[p] * dw;
          const bool in = ih >= 0 && ih < IH && iw >= 0 && iw < IW;
          const int32_t x =
              in ? int32_t{A[((n * IH + ih) * IW + iw) * IC + ic_[p]]} : A_zero_point;
          s += static_cast<uint32_t>(x) * static_cast<uint32_t>(int32_t{values_[p]});
        }
      }
      c[j] = static_cast<int32_t>(s);
    }
  }
}

}  // namespace quire
