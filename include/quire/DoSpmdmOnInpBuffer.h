// DoSpmdmOnInpBuffer: the output-pipeline op that adds a sparse part of B to the int32
// GEMM result before the rest of the pipeline sees it. With acc16 it adds back the
// weights the outlier split (OutlierSplit.h) took out of the dense B:
//   inp[i][j] += sum over the nonzeros (k, v) of B_csc column j of
//                A[i * lda + g * NumOfRows + k] * v,     g = j / (NumOfCols / groups)
// (absolute i and j; exact, modulo 2^32), then runs the next op on inp.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "quire/CompressedSparseColumn.h"
#include "quire/OutputProcessing.h"
#include "quire/Types.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

// Template defaults as FBGEMM's: outT = inT = int32_t, nextOPType = DoNothing<inT, inT>.
template <typename outT = int32_t, typename inT = int32_t,
          typename nextOPType = DoNothing<inT, inT>>
class DoSpmdmOnInpBuffer {
  static_assert(std::is_same_v<inT, int32_t>, "DoSpmdmOnInpBuffer adds to int32_t results");

 public:
  using outType = outT;
  using inpType = inT;

  // A is the GEMM's activation matrix (M x K, row-major, not packed): group g reads
  // columns [g * NumOfRows, (g + 1) * NumOfRows) of it. B_csc has K / groups rows and
  // groups * N columns, column g * N + j being group g's column j (the GEMM's output
  // column). Both are kept by reference: they must outlive the op and not change.
  DoSpmdmOnInpBuffer(nextOPType& nextop, const uint8_t* A, int lda,
                     const CompressedSparseColumn& B_csc, int groups = 1)
      : nextop_(nextop), A_(A), lda_(lda), B_csc_(B_csc), groups_(groups) {
    if (A == nullptr) detail::throw_bad_output_arg(kName, "A", "nullptr", "must not be null");
    if (groups < 1)
      detail::throw_bad_output_arg(kName, "groups", std::to_string(groups), "must be >= 1");
    if (B_csc.NumOfCols() % static_cast<size_t>(groups) != 0)
      detail::throw_bad_output_arg(
          kName, "groups", std::to_string(groups),
          ("does not divide B_csc.NumOfCols() = " + std::to_string(B_csc.NumOfCols())).c_str());
    if (int64_t{lda} < int64_t{groups} * static_cast<int64_t>(B_csc.NumOfRows()))
      detail::throw_bad_output_arg(
          kName, "lda", std::to_string(lda),
          ("is less than groups * B_csc.NumOfRows() = " +
           std::to_string(int64_t{groups} * static_cast<int64_t>(B_csc.NumOfRows())))
              .c_str());
    B_csc.validate("DoSpmdmOnInpBuffer: B_csc");
  }

  // inp holds the block's int32 results (element (i, j) at
  // inp[(i - row_start) * ld_in + (j - col_start)]); they are updated in place, then
  // nextop runs on them. The block must lie inside one group's columns. The sparse loops
  // are instSet's (or the best the CPU has below it), like the other ops' routines.
  template <inst_set_t instSet>
  int f(outT* out, inT* inp, const block_type_t& block, int ld_out, int ld_in) const {
    detail::check_output_block(kName, block, ld_out, ld_in);
    if (block.row_size > 0 && block.col_size > 0) {
      const int64_t ncols = static_cast<int64_t>(B_csc_.NumOfCols());
      if (int64_t{block.col_start} + block.col_size > ncols)
        detail::throw_bad_output_arg(
            kName, "block", detail::block_string(block),
            ("reaches past B_csc.NumOfCols() = " + std::to_string(ncols)).c_str());
      const int cols_per_group = static_cast<int>(ncols / groups_);
      const int g = block.col_start / cols_per_group;
      if ((block.col_start + block.col_size - 1) / cols_per_group != g)
        detail::throw_bad_output_arg(
            kName, "block", detail::block_string(block),
            ("spans groups of " + std::to_string(cols_per_group) + " columns").c_str());
      B_csc_.SpMDM(block, A_ + int64_t{g} * static_cast<int64_t>(B_csc_.NumOfRows()), lda_,
                   true, inp, ld_in, instSet);
    }
    return nextop_.template f<instSet>(out, inp, block, ld_out, ld_in);
  }

 private:
  static constexpr const char* kName = "DoSpmdmOnInpBuffer";
  nextOPType& nextop_;
  const uint8_t* A_;
  int lda_;
  const CompressedSparseColumn& B_csc_;
  int groups_;
};

}  // namespace quire
QUIRE_API_END
