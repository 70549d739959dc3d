// Dynamic quantization: float activations quantized to uint8 while they are packed,
// with the row offsets fused into the same pass, so float A x packed int8 B -> float C
// is one fbgemmPacked call (with ReQuantizeForFloat as the output op).
#pragma once

#include <cstdint>
#include <type_traits>

#include "quire/PackABase.h"
#include "quire/PackedABlock.h"
#include "quire/QuantUtils.h"
#include "quire/detail/PackA.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {
namespace detail {

// Quantizes block (columns within one group) of the float source into dst (row-major,
// rows at most ld_dst bytes apart, zero-padded to a multiple of 4 columns) with the
// active path's Quantize kernel, and writes / adds the row sums of the quantized values
// as pack_a_block does. Returns where the kernel reads the block.
PackedABlock pack_a_quantized_block(const float* src, int64_t ld, bool transposed, int k_per_group,
                                    const block_type_t& block, const QuantizeArgs& args,
                                    uint8_t* dst, int64_t ld_dst, int32_t* row_sums,
                                    inst_set_t path);

// Checks the float source like check_a_source does for uint8 sources.
void check_float_a_source(const float* smat, int64_t ld, bool transposed, int64_t rows,
                          int64_t cols, int groups, const char* where);

}  // namespace detail

// A = quantize(smat) with Quantize<uint8_t> (FBGEMM's formula, see QuantUtils.h):
//   q = clamp(zero_pt + nearbyint(x * (1 / scale)), 0, 255)
template <typename T = uint8_t, typename accT = int32_t>
class PackAWithQuantRowOffset final : public PackABase<PackAWithQuantRowOffset<T, accT>, accT> {
  static_assert(std::is_same_v<T, uint8_t>, "dynamic quantization produces uint8_t activations");

 public:
  PackAWithQuantRowOffset(matrix_op_t trans, int32_t nRow, int32_t nCol, const float* smat,
                          int32_t ld, uint8_t* pmat = nullptr, float scale = 1.0f,
                          int32_t zero_pt = 0, int groups = 1, int32_t* row_offset = nullptr,
                          const BlockingFactors* params = nullptr)
      : PackABase<PackAWithQuantRowOffset, accT>(nRow, nCol, pmat, groups, true, row_offset,
                                                 params, "PackAWithQuantRowOffset"),
        smat_(smat), ld_(ld), transposed_(trans == matrix_op_t::Transpose),
        args_(detail::quantize_args<uint8_t>("PackAWithQuantRowOffset", scale, zero_pt, 8,
                                             false, false)) {
    const char* where = "PackAWithQuantRowOffset";
    detail::check_arg(trans == matrix_op_t::NoTranspose || trans == matrix_op_t::Transpose,
                      where, "trans", static_cast<int>(trans), "is not a matrix_op_t");
    detail::check_arg(zero_pt >= 0 && zero_pt <= 255, where, "zero_pt", zero_pt,
                      "must be in [0, 255] for uint8 activations");
    detail::check_float_a_source(smat, ld, transposed_, nRow, nCol, groups, where);
  }

  PackedABlock pack(const block_type_t& block) {
    return detail::pack_a_quantized_block(smat_, ld_, transposed_,
                                          this->numCols() / this->numGroups(), block, args_,
                                          this->block_buffer(), this->packedLd(),
                                          this->getRowOffsetBuffer(), this->packingPath());
  }

 private:
  const float* smat_;
  int64_t ld_;
  bool transposed_;
  detail::QuantizeArgs args_;
};

// quire's addition: the scale and zero point for dynamically quantized activations,
// chosen from the data (FindMinMax over the rows x cols matrix, widened to include 0,
// then ChooseQuantizationParams over [0, 255]). One read of A; packing is the second.
TensorQuantizationParams ChooseActivationQuantization(const float* smat, int32_t nRow,
                                                      int32_t nCol, int32_t ld,
                                                      matrix_op_t trans = matrix_op_t::NoTranspose,
                                                      bool preserve_sparsity = false);

}  // namespace quire
QUIRE_API_END
