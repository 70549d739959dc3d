// Packers for uint8 activations (A): PackAMatrix (plain) and PackAWithRowOffset (row
// sums fused into the same pass, for the zero-point correction of ReQuantizeOutput).
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "quire/PackABase.h"
#include "quire/PackedABlock.h"
#include "quire/detail/PackA.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

// Shared body of the matrix-sourced A packers; WITH_ROW_OFFSETS selects the fused sums.
template <typename PT, typename T, typename accT, bool WITH_ROW_OFFSETS>
class PackAFromMatrix : public PackABase<PT, accT> {
  static_assert(std::is_same_v<T, uint8_t>, "A must be uint8_t (activations)");

 public:
  matrix_op_t trans() const { return source_.transposed ? matrix_op_t::Transpose : matrix_op_t::NoTranspose; }

  // Prepares one block (columns within one group) for the driver and says where the
  // kernel reads it; see detail::pack_a_block.
  PackedABlock pack(const block_type_t& block) {
    // The copy buffer is only needed for blocks the kernel cannot read in place.
    uint8_t* dst = detail::a_block_in_place(source_, block) ? this->buf_ : this->block_buffer();
    this->packedBlock(block_type_t{block.row_start, block.row_size, block.col_start,
                                   static_cast<int>(round_up(block.col_size, 4))});
    last_view_ = detail::pack_a_block(source_, block, dst, this->packedLd(),
                                      this->getRowOffsetBuffer());
    return last_view_;
  }

  // For fbgemmPacked's narrow VNNI kernels, which form the row sums themselves: pack(block)
  // without the row-sum pass where the block is read in place, *row_sums then being
  // getRowOffsetBuffer() for the caller to fill; else pack(block) and a null *row_sums.
  PackedABlock packDeferringRowOffsets(const block_type_t& block, int32_t** row_sums)
    requires WITH_ROW_OFFSETS
  {
    if (!detail::a_block_in_place(source_, block)) {
      *row_sums = nullptr;
      return pack(block);
    }
    this->packedBlock(block);  // in place: col_size is a multiple of 4
    last_view_ = detail::pack_a_block(source_, block, this->buf_, this->packedLd(), nullptr);
    *row_sums = this->getRowOffsetBuffer();
    return last_view_;
  }

  // Offset in getBuf() of element (i, j) of the packed block (relative to its first row
  // and column): rows are packedLd() bytes apart. A block the kernel read in place (not
  // transposed, width a multiple of 4) is not copied there; printPackedMatrix shows it.
  int32_t addr(int32_t i, int32_t j) const {
    return static_cast<int32_t>(i % this->brow_ * this->packedLd() + j % this->bcol_);
  }

  // "name:[rows, cols]", then the block packed last as the kernel reads it (its width
  // rounded up to 4, zero-padded), as FBGEMM prints it.
  void printPackedMatrix(const std::string& name) const {
    detail::print_a_block(name, last_view_, this->numPackedRows(), this->numPackedCols());
  }

 protected:
  PackAFromMatrix(matrix_op_t trans, int64_t nRow, int64_t nCol, const T* smat, int64_t ld,
                  T* pmat, int groups, int32_t* row_offset, const BlockingFactors* params,
                  const char* where)
      : PackABase<PT, accT>(checked_int(nRow, where, "nRow"), checked_int(nCol, where, "nCol"),
                            pmat, groups, WITH_ROW_OFFSETS, row_offset, params, where),
        source_{smat, ld, trans == matrix_op_t::Transpose, static_cast<int32_t>(nRow),
                static_cast<int32_t>(nCol), groups, this->packingPath()} {
    detail::check_arg(trans == matrix_op_t::NoTranspose || trans == matrix_op_t::Transpose, where,
                      "trans", static_cast<int>(trans), "is not a matrix_op_t");
    detail::check_a_source(source_, where);
  }

 private:
  static int32_t checked_int(int64_t v, const char* where, const char* name) {
    detail::check_arg(v >= 0 && v <= INT32_MAX, where, name, v, "must be in [0, INT32_MAX]");
    return static_cast<int32_t>(v);
  }

  detail::ASource source_;
  PackedABlock last_view_{nullptr, 0};
};

template <typename T, typename accT = int32_t>
class PackAMatrix final : public PackAFromMatrix<PackAMatrix<T, accT>, T, accT, false> {
 public:
  PackAMatrix(matrix_op_t trans, int32_t nRow, int32_t nCol, const T* smat, int32_t ld,
              T* pmat = nullptr, int groups = 1, const BlockingFactors* params = nullptr)
      : PackAFromMatrix<PackAMatrix, T, accT, false>(trans, nRow, nCol, smat, ld, pmat, groups,
                                                     nullptr, params, "PackAMatrix") {}
};

template <typename T, typename accT = int32_t>
class PackAWithRowOffset final
    : public PackAFromMatrix<PackAWithRowOffset<T, accT>, T, accT, true> {
 public:
  // row_offset: a buffer of rowOffsetBufferSize() int32 values, or null to allocate one.
  PackAWithRowOffset(matrix_op_t trans, uint32_t nRow, uint32_t nCol, const T* smat,
                     uint32_t ld, T* pmat = nullptr, int groups = 1,
                     int32_t* row_offset = nullptr, const BlockingFactors* params = nullptr)
      : PackAFromMatrix<PackAWithRowOffset, T, accT, true>(trans, nRow, nCol, smat, ld, pmat,
                                                           groups, row_offset, params,
                                                           "PackAWithRowOffset") {}
};

}  // namespace quire
QUIRE_API_END
