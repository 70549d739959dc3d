// Dynamic quantization of A blocks (PackAWithQuantRowOffset).
#include <algorithm>
#include <cmath>
#include <vector>

#include "quire/PackAWithQuantRowOffset.h"
#include "quire/detail/Check.h"
#include "cpu/isa_record.h"
#include "quant/quant_kernels.h"

namespace quire::detail {

void check_float_a_source(const float* smat, int64_t ld, bool transposed, int64_t rows,
                          int64_t cols, int groups, const char* where) {
  check_arg(rows >= 0, where, "nRow", rows, "must be >= 0");  // empty: valid, nothing read
  check_arg(cols >= 0, where, "nCol", cols, "must be >= 0");
  check_arg(groups >= 1 && cols % groups == 0, where, "groups", groups,
            "must be >= 1 and divide nCol (K)");
  if (rows > 0 && cols > 0) check_not_null(smat, where, "smat");
  check_arg(ld >= (transposed ? rows : cols), where, "ld", ld,
            transposed ? "must be >= nRow for a transposed A" : "must be >= nCol");
  check_product(rows, cols, where, "nRow x nCol");
}

PackedABlock pack_a_quantized_block(const float* src, int64_t ld, bool transposed, int k_per_group,
                                    const block_type_t& block, const QuantizeArgs& args,
                                    uint8_t* dst, int64_t ld_dst, int32_t* row_sums,
                                    inst_set_t path) {
  const IsaRecord& isa = record_at_or_below(path);
  const int rows = block.row_size, cols = block.col_size, padded = (cols + 3) & ~3;
  const bool first_k_block = block.col_start % k_per_group == 0;
  if (!transposed && ld == cols && cols % 4 == 0) {
    // Contiguous rows (short rows of convolutions): one kernel call for the whole block,
    // packed with the same contiguous layout.
    isa.quant->quantize_u8(src + block.row_start * ld + block.col_start, dst,
                           int64_t{rows} * cols, args);
    isa.pack_a(dst, cols, false, rows, cols, nullptr, cols, row_sums, !first_k_block);
    return PackedABlock{dst, cols};
  }
  std::vector<float> column;  // a transposed source's row, gathered contiguously
  if (transposed) column.resize(static_cast<size_t>(cols));
  for (int r = 0; r < rows; ++r) {
    const int64_t i = block.row_start + r;
    const float* row = src + i * ld + block.col_start;
    if (transposed) {
      for (int c = 0; c < cols; ++c) column[c] = src[(block.col_start + c) * ld + i];
      row = column.data();
    }
    uint8_t* d = dst + r * ld_dst;
    isa.quant->quantize_u8(row, d, cols, args);
    std::fill(d + cols, d + padded, uint8_t{0});
  }
  // The row sums of the quantized block, read back while it is in L1/L2.
  isa.pack_a(dst, ld_dst, false, rows, cols, nullptr, ld_dst, row_sums, !first_k_block);
  return PackedABlock{dst, ld_dst};
}

}  // namespace quire::detail

namespace quire {

TensorQuantizationParams ChooseActivationQuantization(const float* smat, int32_t nRow,
                                                      int32_t nCol, int32_t ld, matrix_op_t trans,
                                                      bool preserve_sparsity) {
  const char* where = "ChooseActivationQuantization";
  const bool transposed = trans == matrix_op_t::Transpose;
  detail::check_float_a_source(smat, ld, transposed, nRow, nCol, 1, where);
  // Rows of the source as stored: nRow rows of nCol floats, or nCol rows of nRow.
  int64_t lines = transposed ? nCol : nRow, length = transposed ? nRow : nCol;
  if (ld == length) {  // contiguous: one pass over the whole matrix
    length *= lines;
    lines = 1;
  }
  float lo = 0.0f, hi = 0.0f;  // the range always contains 0 (exactly representable)
  for (int64_t l = 0; l < lines; ++l) {
    float mn, mx;
    detail::active_isa().quant->find_min_max(smat + l * ld, length, &mn, &mx);
    if (!std::isnan(mn)) lo = std::min(lo, mn);
    if (!std::isnan(mx)) hi = std::max(hi, mx);
  }
  return ChooseQuantizationParams(lo, hi, 0, 255, preserve_sparsity);
}

}  // namespace quire
