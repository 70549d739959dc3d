// PackAWithIm2Col: the A packer of a convolution run as a GEMM. The im2col matrix
// (one row per output pixel of the batch; per group, kernel taps outer and input
// channels inner, see quire/ref/ReferenceConv.h) is never formed: each MCB x KCB block
// is gathered straight from the NHWC activations into the packed block, padding
// filled with the activation zero point, row sums fused into the same pass.
//
//   C (MB * OUT_DIM x OC) = im2col(A) (MB * OUT_DIM x G * K * IC/G) * W, group by group
//
// with W packed by PackBMatrix(Transpose, K * IC, OC / G, weights, K * IC / G, ..., G)
// (PackWeightsForConv does this).
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "quire/ConvUtils.h"
#include "quire/PackABase.h"
#include "quire/PackedABlock.h"
#include "quire/detail/ConvGeometry.h"
#include "quire/detail/Im2Col.h"
#include "quire/detail/PackA.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

template <typename T, typename accT = int32_t, int SPATIAL_DIM = 2>
class PackAWithIm2Col final
    : public PackABase<PackAWithIm2Col<T, accT, SPATIAL_DIM>, accT, detail::kIm2ColSlack> {
  static_assert(std::is_same_v<T, uint8_t>, "A must be uint8_t (activations)");
  using Base = PackABase<PackAWithIm2Col<T, accT, SPATIAL_DIM>, accT, detail::kIm2ColSlack>;

 public:
  // sdata: the activations (MB x IN_DIM x IC, NHWC). a_zero_pt: the value of padding.
  // row_offset: rowOffsetBufferSize() values, or null to allocate them. b_symmetric:
  // all B zero points are 0, so the row sums are not needed and not computed.
  PackAWithIm2Col(const conv_param_t<SPATIAL_DIM>& conv_param, const T* sdata,
                  T* pmat = nullptr, int32_t a_zero_pt = 0, int32_t* row_offset = nullptr,
                  bool b_symmetric = false, const BlockingFactors* params = nullptr)
      : Base(checked_geometry(conv_param).gemm_m(),
             checked_geometry(conv_param).gemm_k_per_group() * conv_param.G, pmat, conv_param.G,
             true, row_offset, params, kName),
        geometry_(detail::conv_geometry(conv_param)),
        sdata_(sdata),
        b_symmetric_(b_symmetric) {
    detail::check_im2col_source(geometry_, sdata, a_zero_pt, kName);
    zp_row_.assign(static_cast<size_t>(this->params_.KCB), static_cast<uint8_t>(a_zero_pt));
  }

  // Prepares one block (columns within one group) and says where the kernel reads it.
  // A 1x1 convolution with stride 1 and no pads is its own im2col matrix: it is read
  // like PackAWithRowOffset reads a matrix, in place when the block allows.
  PackedABlock pack(const block_type_t& block) {
    int32_t* sums = b_symmetric_ ? nullptr : this->getRowOffsetBuffer();
    if (detail::im2col_is_identity(geometry_)) {
      const detail::ASource source{sdata_, geometry_.in_channels, false, this->nrows_,
                                   this->ncols_, this->groups_, this->packingPath()};
      uint8_t* dst = detail::a_block_in_place(source, block) ? this->buf_ : this->block_buffer();
      return detail::pack_a_block(source, block, dst, this->packedLd(), sums);
    }
    uint8_t* dst = this->block_buffer();
    detail::pack_im2col_block(geometry_, sdata_, zp_row_.data(), block, dst, this->packedLd(),
                              sums, this->packingPath());
    return PackedABlock{dst, this->packedLd()};
  }

 private:
  static constexpr const char* kName = "PackAWithIm2Col";

  static detail::ConvGeometry checked_geometry(const conv_param_t<SPATIAL_DIM>& p) {
    detail::check_conv_param(p, kName);
    return detail::conv_geometry(p);
  }

  detail::ConvGeometry geometry_;
  const T* sdata_;
  std::vector<uint8_t> zp_row_;  // KCB bytes of the zero point: what padding reads
  bool b_symmetric_;
};

}  // namespace quire
QUIRE_API_END
