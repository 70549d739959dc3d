// The packing base class. A packer turns a source matrix into the layout the micro-kernel
// streams (docs/kernel-contract.md). B (weights) is packed whole, once; A is packed one
// MCB x KCB block at a time by the driver, which calls the packer's pack(block).
#pragma once

#include <cstdint>

#include "quire/Types.h"
#include "quire/Utils.h"
#include "quire/detail/Blocking.h"
#include "quire/detail/Check.h"

namespace quire {

// CRTP base: PT is the concrete packer, inpType its element type, accType the
// accumulation type of the kernel it feeds (int32_t; int16_t selects acc16 layouts).
template <typename PT, typename inpType, typename accType = int32_t>
class PackMatrix {
 public:
  using inpType_ = inpType;

  PackMatrix(const PackMatrix&) = delete;
  PackMatrix& operator=(const PackMatrix&) = delete;

  // Logical size of the whole matrix (all groups): rows x cols.
  int32_t numRows() const { return nrows_; }
  int32_t numCols() const { return ncols_; }
  int numGroups() const { return groups_; }
  // The block the packer works in: A blocks are MCB x KCB, B panels KCB x NR.
  int blockRowSize() const { return brow_; }
  int blockColSize() const { return bcol_; }
  int blockRows() const { return (nrows_ + brow_ - 1) / brow_; }
  int blockCols() const { return (ncols_ + bcol_ - 1) / bcol_; }
  inpType* getBuf() { return buf_; }
  const inpType* getBuf() const { return buf_; }
  // True when the packed buffer was given by the caller (and is not freed by us).
  bool isPrePacked() const { return !owns_buf_; }
  static constexpr bool isA() { return PT::isA(); }
  const BlockingFactors& blockingFactors() const { return params_; }

  ~PackMatrix() {
    if (owns_buf_) fbgemmAlignedFree(buf_);
  }

 protected:
  PackMatrix(int32_t rows, int32_t cols, inpType* pmat, int groups,
             const BlockingFactors* params, const char* where)
      : nrows_(rows), ncols_(cols), groups_(groups),
        params_(detail::resolve_blocking(params, where, detail::accumulation_of<accType>())) {
    detail::check_arg(groups >= 1, where, "groups", groups, "must be >= 1");
    buf_ = pmat;
  }

  // The A block buffer, allocated on first use for the blocks this packer makes:
  // min(MCB, rows) rows of ld bytes (not the largest block the blocking allows).
  void ensure_block_buffer(int64_t ld) {
    allocate_if_needed(int64_t{nrows_ < params_.MCB ? nrows_ : params_.MCB} * ld);
  }

  // Allocates the packed buffer when the caller did not pass one.
  void allocate_if_needed(int64_t bytes) {
    if (buf_ == nullptr) {
      buf_ = static_cast<inpType*>(fbgemmAlignedAlloc(64, static_cast<size_t>(bytes)));
      owns_buf_ = true;
    }
  }

  int32_t nrows_, ncols_;
  int groups_;
  BlockingFactors params_;
  int brow_ = 1, bcol_ = 1;
  inpType* buf_ = nullptr;
  bool owns_buf_ = false;
};

}  // namespace quire
