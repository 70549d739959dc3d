// DoSConvOnInpBuffer: the output-pipeline op that adds the sparse part of a 2D
// convolution's weights to the int32 result of the dense part (im2col GEMM) before the
// rest of the pipeline sees it:
//   inp[i][j] += CompressedSparseColumn::SparseConv's sum for output pixel i and output
//                channel j                                   (absolute i and j; exact)
// then runs the next op on inp. B_csc's column j is output channel j (all groups, ICs
// including the group); its nonzeros carry KHs, KWs and ICs.
#pragma once

#include <cstdint>
#include <type_traits>

#include "quire/CompressedSparseColumn.h"
#include "quire/ConvUtils.h"
#include "quire/OutputProcessing.h"
#include "quire/Types.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

template <typename outT = std::int32_t, typename inT = std::int32_t,
          typename nextOPType = DoNothing<inT, inT>>
class DoSConvOnInpBuffer {
  static_assert(std::is_same_v<inT, int32_t>, "DoSConvOnInpBuffer adds to int32_t results");

 public:
  using outType = outT;
  using inpType = inT;

  // A is the convolution's NHWC uint8 input (not packed), A_zero_point its zero point
  // (the value of the padding). conv_p is copied; nextop and B_csc are kept by reference
  // and must outlive the op.
  DoSConvOnInpBuffer(nextOPType& nextop, const std::uint8_t* A, const conv_param_t<>& conv_p,
                     std::int32_t A_zero_point, const CompressedSparseColumn& B_csc)
      : nextop_(nextop), A_(A), conv_p_(conv_p), A_zero_point_(A_zero_point), B_csc_(B_csc) {
    if (A == nullptr) detail::throw_bad_output_arg(kName, "A", "nullptr", "must not be null");
  }

  // inp holds the block's int32 results (element (i, j) at
  // inp[(i - row_start) * ld_in + (j - col_start)]); SparseConv adds to them in place
  // (and checks B_csc's arrays for the block's columns), then nextop runs on them.
  template <inst_set_t instSet>
  int f(outT* out, inT* inp, const block_type_t& block, int ld_out, int ld_in) const {
    detail::check_output_block(kName, block, ld_out, ld_in);
    if (block.row_size > 0 && block.col_size > 0)
      B_csc_.SparseConv(conv_p_, block, A_, A_zero_point_, true, inp, ld_in);
    return nextop_.template f<instSet>(out, inp, block, ld_out, ld_in);
  }

 private:
  static constexpr const char* kName = "DoSConvOnInpBuffer";
  nextOPType& nextop_;
  const std::uint8_t* A_;
  const conv_param_t<> conv_p_;
  const std::int32_t A_zero_point_;
  const CompressedSparseColumn& B_csc_;
};

}  // namespace quire
QUIRE_API_END
