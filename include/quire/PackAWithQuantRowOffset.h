// Dynamic quantization: float activations quantized to uint8 while they are packed,
// with the row offsets fused into the same pass, so float A x packed int8 B -> float C
// is one fbgemmPacked call (with ReQuantizeForFloat as the output op).
#pragma once

#include <cstdint>
#include <type_traits>

#include "quire/PackMatrix.h"
#include "quire/QuantUtils.h"
#include "quire/detail/PackA.h"

namespace quire {
namespace detail {

// Quantizes block (columns within one group) of the float source into dst (row-major,
// rows at most ld_dst bytes apart, zero-padded to a multiple of 4 columns) with the
// active path's Quantize kernel, and writes / adds the row sums of the quantized values
// as pack_a_block does. Returns where the kernel reads the block.
ABlockView pack_a_quantized_block(const float* src, int64_t ld, bool transposed, int k_per_group,
                                  const block_type_t& block, const QuantizeArgs& args,
                                  uint8_t* dst, int64_t ld_dst, int32_t* row_sums);

// Checks the float source like check_a_source does for uint8 sources.
void check_float_a_source(const float* smat, int64_t ld, bool transposed, int64_t rows,
                          int64_t cols, int groups, const char* where);

}  // namespace detail

// A = quantize(smat) with Quantize<uint8_t> (FBGEMM's formula, see QuantUtils.h):
//   q = clamp(zero_pt + nearbyint(x * (1 / scale)), 0, 255)
template <typename T = uint8_t, typename accT = int32_t>
class PackAWithQuantRowOffset final
    : public PackMatrix<PackAWithQuantRowOffset<T, accT>, T, accT> {
  static_assert(std::is_same_v<T, uint8_t>, "dynamic quantization produces uint8_t activations");

 public:
  using inpType = T;
  using accType = accT;
  static constexpr bool isA() { return true; }

  PackAWithQuantRowOffset(matrix_op_t trans, int32_t nRow, int32_t nCol, const float* smat,
                          int32_t ld, inpType* pmat = nullptr, float scale = 1.0f,
                          int32_t zero_pt = 0, int groups = 1, int32_t* row_offset = nullptr,
                          const BlockingFactors* params = nullptr)
      : PackMatrix<PackAWithQuantRowOffset, T, accT>(nRow, nCol, pmat, groups, params,
                                                     "PackAWithQuantRowOffset"),
        smat_(smat), ld_(ld), transposed_(trans == matrix_op_t::Transpose),
        args_(detail::quantize_args<uint8_t>("PackAWithQuantRowOffset", scale, zero_pt, 8,
                                             false, false)) {
    const char* where = "PackAWithQuantRowOffset";
    detail::check_arg(trans == matrix_op_t::NoTranspose || trans == matrix_op_t::Transpose,
                      where, "trans", static_cast<int>(trans), "is not a matrix_op_t");
    detail::check_arg(zero_pt >= 0 && zero_pt <= 255, where, "zero_pt", zero_pt,
                      "must be in [0, 255] for uint8 activations");
    detail::check_float_a_source(smat, ld, transposed_, nRow, nCol, groups, where);
    this->brow_ = this->params_.MCB;
    this->bcol_ = this->params_.KCB;
    row_offset_ = row_offset;
    if (row_offset_ == nullptr) {
      row_offset_ = static_cast<int32_t*>(fbgemmAlignedAlloc(64, sizeof(int32_t) * this->params_.MCB, true));
      owns_row_offset_ = true;
    }
  }
  ~PackAWithQuantRowOffset() {
    if (owns_row_offset_) fbgemmAlignedFree(row_offset_);
  }

  static int packedBufferSize(int = 0, int = 0, const BlockingFactors* params = nullptr) {
    return static_cast<int>(detail::packed_a_bytes(detail::resolve_blocking(params, "packedBufferSize", detail::accumulation_of<accT>())));
  }
  static int rowOffsetBufferSize(const BlockingFactors* params = nullptr) {
    return detail::resolve_blocking(params, "rowOffsetBufferSize", detail::accumulation_of<accT>()).MCB;
  }
  int32_t* getRowOffsetBuffer() { return row_offset_; }
  int64_t packedLd() const {
    return detail::packed_a_ld(this->params_, this->numCols() / this->numGroups());
  }

  detail::ABlockView pack(const block_type_t& block) {
    this->ensure_block_buffer(packedLd());
    return detail::pack_a_quantized_block(smat_, ld_, transposed_,
                                          this->numCols() / this->numGroups(), block, args_,
                                          this->buf_, packedLd(), row_offset_);
  }

 private:
  const float* smat_;
  int64_t ld_;
  bool transposed_;
  detail::QuantizeArgs args_;
  int32_t* row_offset_ = nullptr;
  bool owns_row_offset_ = false;
};

// quire's addition: the scale and zero point for dynamically quantized activations,
// chosen from the data (FindMinMax over the rows x cols matrix, widened to include 0,
// then ChooseQuantizationParams over [0, 255]). One read of A; packing is the second.
TensorQuantizationParams ChooseActivationQuantization(const float* smat, int32_t nRow,
                                                      int32_t nCol, int32_t ld,
                                                      matrix_op_t trans = matrix_op_t::NoTranspose,
                                                      bool preserve_sparsity = false);

}  // namespace quire
