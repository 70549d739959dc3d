// The packing base class. A packer turns a source matrix into the layout the micro-kernel
// streams (docs/kernel-contract.md). B (weights) is packed whole, once; A is packed one
// MCB x KCB block at a time by the driver, which calls the packer's pack(block).
//
// The block queries have FBGEMM's meaning: the matrix is tiled into blocks of
// blockRowSize() x blockColSize() (A: MCB x KCB; B: KCB x NR, one panel's K block);
// numPackedRows/Cols and packedRow/ColStart describe the block packed last (A: the
// current block, its width rounded up to the K interleave of 4; B: one whole group),
// blockRows()/blockCols() count the blocks of that packed block, lastBrow()/lastBcol()
// are the sizes of its last row / column of blocks.
#pragma once

#include <cstdint>
#include <string>

#include "quire/PackingTraits.h"
#include "quire/Types.h"
#include "quire/Utils.h"
#include "quire/detail/StreamedAlloc.h"
#include "quire/detail/Blocking.h"
#include "quire/detail/Check.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

// quire's addition: the blocking packers and fbgemmPacked use when given none, on the
// active path, for 32-bit accumulation (accT = int32_t) or acc16 (int16_t).
template <typename accT = int32_t>
BlockingFactors defaultBlocking() {
  return detail::resolve_blocking(nullptr, "defaultBlocking", detail::accumulation_of<accT>());
}

// CRTP base: PT is the concrete packer, inpType its element type, accType the
// accumulation type of the kernel it feeds (int32_t; int16_t selects acc16 layouts).
template <typename PT, typename inpType, typename accType = int32_t>
class PackMatrix {
 public:
  using inpType_ = inpType;

  PackMatrix() = delete;
  PackMatrix(const PackMatrix&) = delete;
  PackMatrix& operator=(const PackMatrix&) = delete;
  PackMatrix(PackMatrix&&) = delete;
  PackMatrix& operator=(PackMatrix&&) = delete;

  // Logical size of the whole matrix (all groups): rows x cols.
  int32_t numRows() const { return nrows_; }
  int32_t numCols() const { return ncols_; }
  int numGroups() const { return groups_; }
  int32_t blockRowSize() const { return brow_; }
  int32_t blockColSize() const { return bcol_; }
  int32_t blockRows() const { return nbrow_; }
  int32_t blockCols() const { return nbcol_; }
  int32_t numPackedRows() const { return packed_.row_size; }
  int32_t numPackedCols() const { return packed_.col_size; }
  int32_t packedRowStart() const { return packed_.row_start; }
  int32_t packedColStart() const { return packed_.col_start; }
  int32_t lastBrow() const { return last_brow_; }
  int32_t lastBcol() const { return last_bcol_; }
  bool isThereColRemainder() const { return last_bcol_ != bcol_; }

  // The packed buffer; with block numbers, where block (rowBlockNum, colBlockNum) starts
  // in it (the packer's addr() of the block's first element).
  inpType* getBuf(int32_t rowBlockNum = 0, int32_t colBlockNum = 0) {
    return buf_ + block_offset(rowBlockNum, colBlockNum);
  }
  const inpType* getBuf(int32_t rowBlockNum = 0, int32_t colBlockNum = 0) const {
    return buf_ + block_offset(rowBlockNum, colBlockNum);
  }

  // FBGEMM's meaning: constant matrices (B) are pre-packed, activations (A) are not.
  bool isPrePacked() const { return !PT::isA(); }
  static constexpr bool isA() { return PT::isA(); }
  int32_t* getRowOffsetBuffer() const { return static_cast<const PT*>(this)->getRowOffsetBuffer(); }
  bool isThisLastKBlock(int block_id) const {
    return static_cast<const PT*>(this)->isThisLastKBlock(block_id);
  }
  void printPackedMatrix(const std::string& name) { static_cast<PT*>(this)->printPackedMatrix(name); }

  const BlockingFactors& blockingFactors() const { return params_; }

  virtual ~PackMatrix() {
    if (bufAllocatedHere_) fbgemmAlignedFree(buf_);
  }

  // FBGEMM's constructor, for packers written against FBGEMM's PackMatrix (docs/packing.md):
  // such a packer sets brow_ / bcol_ (its MCB x KCB block) and, when pmat is null,
  // allocates buf_ and sets bufAllocatedHere_. brow_ / bcol_ start at the blocking of
  // params, or of the active path.
  PackMatrix(int32_t rows, int32_t cols, inpType* pmat, int groups = 1,
             const BlockingFactors* params = nullptr)
      : PackMatrix(rows, cols, pmat, groups, params, "PackMatrix") {
    detail::check_arg(rows >= 0, "PackMatrix", "rows", rows, "must be >= 0");
    detail::check_arg(cols >= 0, "PackMatrix", "cols", cols, "must be >= 0");
    brow_ = params_.MCB;
    bcol_ = params_.KCB;
  }

 protected:
  PackMatrix(int32_t rows, int32_t cols, inpType* pmat, int groups,
             const BlockingFactors* params, const char* where)
      : blocking_params(params), nrows_(rows), ncols_(cols), groups_(groups),
        params_(detail::resolve_blocking(params, where, detail::accumulation_of<accType>())) {
    detail::check_arg(groups >= 1, where, "groups", groups, "must be >= 1");
    buf_ = pmat;
  }

  // Records the block just packed and derives the block counts and last sizes from it.
  void packedBlock(const block_type_t& block) {
    packed_ = block;
    nbrow_ = (block.row_size + brow_ - 1) / brow_;
    nbcol_ = (block.col_size + bcol_ - 1) / bcol_;
    last_brow_ = block.row_size % brow_ == 0 ? brow_ : block.row_size % brow_;
    last_bcol_ = block.col_size % bcol_ == 0 ? bcol_ : block.col_size % bcol_;
  }

  // Allocates the packed buffer when the caller did not pass one.
  // streamed: weights every call reads end to end (detail/StreamedAlloc.h).
  void allocate_if_needed(int64_t bytes, bool streamed = false) {
    if (buf_ == nullptr) {
      const auto n = static_cast<size_t>(bytes);
      buf_ = static_cast<inpType*>(streamed ? detail::allocate_streamed(n)
                                            : fbgemmAlignedAlloc(64, n, true));
      bufAllocatedHere_ = true;
    }
  }

  // FBGEMM's protected members, under its names (a packer derived from PackMatrix may use
  // them), then quire's.
  inpType* buf_ = nullptr;
  int32_t brow_ = 1, bcol_ = 1;      // the block: rows x columns (A: MCB x KCB)
  int32_t nbrow_ = 0, nbcol_ = 0;    // blocks in the block packed last
  bool bufAllocatedHere_ = false;    // buf_ is freed by the destructor
  const BlockingFactors* blocking_params = nullptr;  // as given to the constructor
  int32_t nrows_, ncols_;
  int groups_;
  BlockingFactors params_;           // blocking_params resolved: validated, or the defaults

 private:
  int64_t block_offset(int32_t r, int32_t c) const {
    if (r == 0 && c == 0) return 0;
    if constexpr (requires(const PT& p) { p.addr(0, 0); })
      return static_cast<const PT*>(this)->addr(r * brow_, c * bcol_);
    else
      detail::fail_argument("PackMatrix::getBuf", "rowBlockNum", r,
                            "must be 0: this packer holds one block");
  }

  block_type_t packed_{0, 0, 0, 0};
  int32_t last_brow_ = 1, last_bcol_ = 1;
};

}  // namespace quire
QUIRE_API_END
