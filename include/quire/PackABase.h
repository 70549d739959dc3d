// PackABase: what every A packer shares, written once: the MCB x KCB block geometry, the
// block buffer (the caller's pmat, or allocated on first use), the row-offset buffer (the
// caller's, or owned), and FBGEMM's size queries. quire's packers derive from it; a user
// packer may too (docs/packing.md), or derive from PackMatrix directly as in FBGEMM.
#pragma once

#include <cstdint>

#include "quire/PackMatrix.h"
#include "quire/Utils.h"
#include "quire/detail/Blocking.h"
#include "quire/detail/PackA.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

// quire's addition for A packers: the row sums of rows x cols bytes (row i at a + i * ld),
// written to row_sums (accumulate = false) or added to them, with the active path's
// vector code: the pass the built-in packers fuse, for a packer that has just written its
// block. Throws std::invalid_argument on negative sizes, ld < cols or null pointers.
void sumPackedRows(const uint8_t* a, int64_t ld, int rows, int cols, int32_t* row_sums,
                   bool accumulate);

// PT: the concrete packer; accT: int32_t, or int16_t for acc16. kSlack: bytes the packer
// may write past the last row of a block (a vector store's overhang), added to the buffer.
template <typename PT, typename accT, int64_t kSlack = 0>
class PackABase : public PackMatrix<PT, uint8_t, accT> {
  using Base = PackMatrix<PT, uint8_t, accT>;

 public:
  using inpType = uint8_t;
  using accType = accT;
  static constexpr bool isA() { return true; }

  // Bytes of the block buffer a caller may pass as pmat: MCB rows of KCB bytes (+ slack).
  static int packedBufferSize(int /*rows*/ = 0, int /*cols*/ = 0,
                              const BlockingFactors* params = nullptr) {
    const BlockingFactors p = resolve(params, "packedBufferSize");
    return static_cast<int>(int64_t{p.MCB} * p.KCB + kSlack);
  }
  // Row offsets (int32) a caller may pass as row_offset: one per row of an MCB block.
  static int rowOffsetBufferSize(const BlockingFactors* params = nullptr) {
    return resolve(params, "rowOffsetBufferSize").MCB;
  }

  // Where the row sums of the current block go (null for a packer without them).
  int32_t* getRowOffsetBuffer() const { return row_offset_; }

  // Bytes between rows of a packed block: K per group rounded up to 4, at most KCB, so a
  // small problem gets a small buffer.
  int64_t packedLd() const { return detail::packed_a_ld(this->params_, this->ncols_ / this->groups_); }

  // The path whose packing routines this packer runs: the one active when it was built,
  // like its blocking (all paths pack the same bytes; only the speed differs).
  inst_set_t packingPath() const { return path_; }

  ~PackABase() override {
    if (owns_row_offset_) fbgemmAlignedFree(row_offset_);
  }

 protected:
  // with_row_offsets: the packer computes row sums, into row_offset or an owned buffer.
  PackABase(int32_t rows, int32_t cols, uint8_t* pmat, int groups, bool with_row_offsets,
            int32_t* row_offset, const BlockingFactors* params, const char* where)
      : Base(rows, cols, pmat, groups, params, where) {
    this->brow_ = this->params_.MCB;
    this->bcol_ = this->params_.KCB;
    if (!with_row_offsets) return;
    row_offset_ = row_offset;
    if (row_offset_ == nullptr) {
      row_offset_ = static_cast<int32_t*>(
          fbgemmAlignedAlloc(64, sizeof(int32_t) * static_cast<size_t>(this->brow_), true));
      owns_row_offset_ = true;
    }
  }

  // The block buffer, allocated on first use for the blocks this packer makes:
  // min(MCB, rows) rows of packedLd() bytes, plus the slack.
  uint8_t* block_buffer() {
    const int64_t rows = this->nrows_ < this->brow_ ? this->nrows_ : this->brow_;
    this->allocate_if_needed(rows * packedLd() + kSlack);
    return this->buf_;
  }

 private:
  static BlockingFactors resolve(const BlockingFactors* params, const char* where) {
    return detail::resolve_blocking(params, where, detail::accumulation_of<accT>());
  }

  inst_set_t path_ = fbgemmInstructionSet();
  int32_t* row_offset_ = nullptr;
  bool owns_row_offset_ = false;
};

}  // namespace quire
QUIRE_API_END
