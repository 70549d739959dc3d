// Fuzzer for CompressedSparseColumn filled by hand from raw bytes (FBGEMM's way: the
// caller writes ColPtr, RowIdx and Values directly). The input chooses the ISA path, the
// matrix size, ColPtr's length and entries (raw, or made non-decreasing), RowIdx and
// Values (raw), a block, lda, ldc and the accumulate flag. SpMDM must either throw
// std::invalid_argument or, when the columns of the block are consistent, give the
// exact product (duplicate row indices add up); validate() must agree with a direct
// check of the documented invariants, and a valid matrix must survive toDense.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "fuzz_util.h"
#include "quire/CompressedSparseColumn.h"

namespace quire::fuzz {
namespace {

// The documented invariants of columns [c0, c1) (ColPtr's size and ends checked first).
bool columns_valid(const CompressedSparseColumn& m, int c0, int c1) {
  const auto& cp = m.ColPtr();
  const int64_t nnz = cp.empty() ? -1 : cp.back();
  if (cp.size() != m.NumOfCols() + 1 || cp[0] != 0 || nnz != int64_t(m.RowIdx().size()) ||
      nnz != int64_t(m.Values().size()))
    return false;
  for (int c = c0; c < c1; ++c) {
    if (cp[c] < 0 || cp[c] > cp[c + 1] || cp[c + 1] > nnz) return false;
    for (int32_t p = cp[c]; p < cp[c + 1]; ++p)
      if (m.RowIdx()[p] < 0 || size_t(m.RowIdx()[p]) >= m.NumOfRows()) return false;
  }
  return true;
}

}  // namespace
}  // namespace quire::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace quire;
  using namespace quire::fuzz;
  FuzzedDataProvider in(data, size);
  ScopedIsa isa(pick_isa(in));
  const int rows = in.ConsumeIntegralInRange(0, 70), cols = in.ConsumeIntegralInRange(0, 70);
  CompressedSparseColumn m(rows, cols);
  auto& cp = m.ColPtr();
  if (in.ConsumeIntegralInRange(0, 7) == 0) cp.resize(in.ConsumeIntegralInRange<size_t>(0, 80));
  const bool monotone = in.ConsumeBool();
  int32_t run = 0;
  for (size_t c = 0; c < cp.size(); ++c) {
    if (monotone) {
      run += in.ConsumeIntegralInRange(0, 6);
      cp[c] = c == 0 ? 0 : run;
    } else {
      cp[c] = in.ConsumeIntegral<int32_t>() % 512;
    }
  }
  const size_t nnz = cp.empty() ? 0 : size_t(std::max(0, cp.back()));
  const size_t len = in.ConsumeIntegralInRange(0, 3) == 0 ? in.ConsumeIntegralInRange<size_t>(0, 600)
                                                          : nnz;
  for (size_t p = 0; p < len; ++p) {
    const bool small = in.ConsumeIntegralInRange(0, 15) != 0;
    m.RowIdx().push_back(small ? int16_t(in.ConsumeIntegralInRange(0, std::max(0, rows - 1)))
                               : in.ConsumeIntegral<int16_t>());
    m.Values().push_back(in.ConsumeIntegral<int8_t>());
  }
  const bool valid = columns_valid(m, 0, cols);
  bool validate_ok = true;
  try {
    m.validate("fuzz");
  } catch (const std::invalid_argument&) {
    validate_ok = false;
  }
  FUZZ_CHECK(validate_ok == valid);
  if (valid) {
    std::vector<int8_t> dense(size_t(rows) * cols + 1);
    m.toDense(dense.data(), cols);
  }

  block_type_t block;
  block.row_start = in.ConsumeIntegralInRange(0, 3);
  block.row_size = in.ConsumeIntegralInRange(0, 20);
  block.col_start = in.ConsumeIntegralInRange(0, cols);
  block.col_size = in.ConsumeIntegralInRange(0, cols - block.col_start);
  if (in.ConsumeIntegralInRange(0, 15) == 0) block.col_size += 1;  // one past the end
  const int lda = rows + in.ConsumeIntegralInRange(0, 3);
  const int ldc = block.col_size + in.ConsumeIntegralInRange(0, 3);
  const bool accumulate = in.ConsumeBool();
  const uint32_t seed = in.ConsumeIntegral<uint32_t>();
  const std::vector<uint8_t> A =
      bytes<uint8_t>(size_t(block.row_start + block.row_size) * std::max(lda, 1), Fill::random, seed);
  std::vector<int32_t> C(size_t(block.row_size) * std::max(ldc, 1), 7);
  const std::vector<int32_t> C0 = C;
  try {
    m.SpMDM(block, A.data(), lda, accumulate, C.data(), ldc);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  // Accepted: the block's columns must be consistent and the product exact.
  FUZZ_CHECK(block.col_start + block.col_size <= cols);
  FUZZ_CHECK(columns_valid(m, block.col_start, block.col_start + block.col_size));
  for (int i = 0; i < block.row_size; ++i)
    for (int j = 0; j < block.col_size; ++j) {
      const int c = block.col_start + j;
      uint32_t s = accumulate ? uint32_t(C0[size_t(i) * ldc + j]) : 0;
      for (int32_t p = cp[c]; p < cp[c + 1]; ++p)
        s += uint32_t(A[size_t(block.row_start + i) * lda + m.RowIdx()[p]] * int32_t(m.Values()[p]));
      FUZZ_CHECK(int32_t(s) == C[size_t(i) * ldc + j]);
    }
  return 0;
}
