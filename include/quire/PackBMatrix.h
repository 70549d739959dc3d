// PackBMatrix: int8 weights packed once into the panel layout of the micro-kernels
// (docs/kernel-contract.md). Read-only after construction: share it between threads.
// accT = int16_t packs for acc16 (docs/acc16.md): the same layout, with the panel width of
// the path's acc16 blocking.
#pragma once

#include <cstdint>
#include <cstring>
#include <iosfwd>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "quire/PackMatrix.h"
#include "quire/detail/PackB.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

template <typename T, typename accT = int32_t>
class PackBMatrix final : public PackMatrix<PackBMatrix<T, accT>, T, accT> {
  static_assert(std::is_same_v<T, int8_t>, "B must be int8_t (weights)");

 public:
  using inpType = T;
  using accType = accT;
  static constexpr bool isA() { return false; }

  // trans: NoTranspose: B is nRow (K) x nCol (N) with groups stacked along K, row-major,
  // ld >= nCol. Transpose: each group's N x K/G matrix, one after another, ld >= K/G.
  PackBMatrix(matrix_op_t trans, int32_t nRow, int32_t nCol, const T* smat, int32_t ld,
              T* pmat = nullptr, int groups = 1, const BlockingFactors* params = nullptr)
      : PackMatrix<PackBMatrix, T, accT>(nRow, nCol, pmat, groups, params, "PackBMatrix"),
        trans_(trans), smat_(smat), ld_(ld),
        layout_(detail::make_b_layout(trans, nRow, nCol, smat, ld, groups, this->params_.NR)) {
    this->brow_ = this->params_.KCB;
    this->bcol_ = this->params_.NR;
    this->packedBlock(block_type_t{0, layout_.k_per_group, 0, layout_.n});
    this->allocate_if_needed(layout_.allocation_bytes(), true);
    detail::pack_b(layout_, trans, smat, ld, this->buf_);
    pair_safe_limits_ = detail::pair_safe_limits(layout_, this->buf_);
  }

  // quire's addition: serialization. save() writes the packed weights with their
  // geometry and a checksum (format in detail/PackB.h); load() rebuilds the object
  // without repacking, on any path (every kernel reads any panel width). load() throws
  // std::invalid_argument when the stream is not a packed B of this layout version, is
  // truncated or fails its checksum.
  void save(std::ostream& out) const { detail::save_packed_b(out, layout_, trans_, this->buf_); }
  static std::unique_ptr<PackBMatrix> load(std::istream& in) {
    const detail::PackedBHeader header = detail::read_packed_b_header(in);
    std::unique_ptr<PackBMatrix> b(new PackBMatrix(header.layout, header.trans));
    detail::read_packed_b_payload(in, header, b->buf_);
    b->pair_safe_limits_ = detail::pair_safe_limits(b->layout_, b->buf_);  // recomputed, not stored
    return b;
  }

  // Packs again, from the matrix given at construction (smat, which must still be alive),
  // the rows [row_start, row_start + row_size) and columns [col_start, col_start +
  // col_size) of every group's K x N: for weights changed in place after packing. The
  // sizes and block counts keep describing the whole matrix (FBGEMM's change them to the
  // block's). params is accepted for FBGEMM's signature; the packed layout says
  // everything. Throws std::invalid_argument for a block outside K / groups x N, or when
  // the object has no source (made by load()).
  void pack(const block_type_t& block, const BlockingFactors* /*params*/ = nullptr) {
    detail::pack_b_block(layout_, trans_, smat_, ld_, block, this->buf_, "PackBMatrix::pack");
    pair_safe_limits_ = detail::pair_safe_limits(layout_, this->buf_);
  }

  // Bytes for a caller-provided buffer holding one group of rows x cols (for G groups
  // pass rows = K / G, multiply by G and add detail::PackedBLayout::kReadSlack).
  static int packedBufferSize(int rows, int cols, const BlockingFactors* params = nullptr) {
    const int nr = detail::resolve_blocking(params, "packedBufferSize", detail::accumulation_of<accT>()).NR;
    return static_cast<int>(int64_t{(rows + 3) & ~3} * ((cols + nr - 1) / nr) * nr +
                            detail::PackedBLayout::kReadSlack);
  }
  int64_t packedBufferSizeBytes() const { return layout_.total_bytes(); }
  const detail::PackedBLayout& layout() const { return layout_; }
  matrix_op_t trans() const { return trans_; }

  // Panel p of group g, at its first K step.
  const int8_t* panel(int g, int p) const {
    return this->buf_ + g * layout_.group_bytes() + p * layout_.panel_bytes();
  }

  // Writes the weights back as they were given at construction: the same trans and
  // leading dimension ld (a matrix made by load() uses the compact ld: N, or K / groups
  // when transposed). Elements between rows (the ld padding) are not written. params is
  // accepted for FBGEMM's signature; the packed layout says everything.
  void unpack(T* origin_buf, const BlockingFactors* /*params*/ = nullptr) const {
    if (layout_.k_per_group == 0 || layout_.n == 0) return;
    detail::check_not_null(origin_buf, "PackBMatrix::unpack", "origin_buf");
    detail::unpack_b(layout_, trans_, ld_, this->buf_, origin_buf);
  }

  // Offset in getBuf() of element (i, j) of group 0 (K index i, column j): panel j / NR,
  // K step i / 4, lane j % NR, byte i % 4 (docs/kernel-contract.md).
  int32_t addr(int32_t i, int32_t j) const {
    return static_cast<int32_t>(j / layout_.panel_width * layout_.panel_bytes() +
                                int64_t{i / 4} * layout_.panel_width * 4 +
                                j % layout_.panel_width * 4 + i % 4);
  }
  // quire's addition: per panel of group g, the largest A value (128..255) for which no K
  // pair of the panel can saturate vpmaddubsw (detail::pair_safe_limits). fbgemmPacked
  // runs a panel with the faster exact kernels of the avx2 and avx512 paths for every A
  // block whose largest value is at most the panel's limit (255: any A).
  const uint8_t* pairSafeLimits(int g) const { return pair_safe_limits_.data() + g * layout_.panels(); }

  // Whether K block block_id (of KCB rows) is the group's last.
  bool isThisLastKBlock(int block_id) const { return this->blockRows() - 1 == block_id; }

  // FBGEMM's list: sizes, block sizes and counts, trans and groups; and quire's packed
  // layout (panel width, padded K).
  bool metaEquals(const PackBMatrix& other) const {
    const auto& a = layout_;
    const auto& b = other.layout_;
    return this->numRows() == other.numRows() && this->numCols() == other.numCols() &&
           this->blockRowSize() == other.blockRowSize() &&
           this->blockColSize() == other.blockColSize() &&
           this->blockRows() == other.blockRows() && this->blockCols() == other.blockCols() &&
           this->numPackedRows() == other.numPackedRows() &&
           this->numPackedCols() == other.numPackedCols() && trans_ == other.trans_ &&
           a.k_per_group == b.k_per_group && a.n == b.n && a.groups == b.groups &&
           a.panel_width == b.panel_width && a.padded_k == b.padded_k;
  }
  // Same geometry and the same packed bytes.
  bool equals(const PackBMatrix& other) const {
    return metaEquals(other) &&
           std::memcmp(this->buf_, other.buf_, static_cast<size_t>(layout_.total_bytes())) == 0;
  }
  // FBGEMM's format: "name:[K/G, N]", "block size:[KCB, NR]", then per group and block
  // (K block x panel) the packed steps, one line of 4 x columns values per 4 K rows.
  // params is accepted for FBGEMM's signature.
  void printPackedMatrix(const std::string& name, const BlockingFactors* /*params*/ = nullptr) const {
    detail::print_packed_b(layout_, this->buf_, name, this->blockRowSize());
  }

 private:
  // For load(): the geometry of a saved matrix, its bytes still to be read.
  PackBMatrix(const detail::PackedBLayout& layout, matrix_op_t trans)
      : PackMatrix<PackBMatrix, T, accT>(layout.k_per_group * layout.groups, layout.n, nullptr,
                                         layout.groups, nullptr, "PackBMatrix::load"),
        trans_(trans),
        ld_(trans == matrix_op_t::NoTranspose ? layout.n : layout.k_per_group),
        layout_(layout) {
    this->brow_ = this->params_.KCB;
    this->bcol_ = layout.panel_width;
    this->packedBlock(block_type_t{0, layout_.k_per_group, 0, layout_.n});
    this->allocate_if_needed(layout_.allocation_bytes(), true);
  }

  matrix_op_t trans_;
  const T* smat_ = nullptr;  // the source given at construction, for pack(block)
  int32_t ld_;  // of the source, for unpack and pack(block)
  detail::PackedBLayout layout_;
  std::vector<uint8_t> pair_safe_limits_;  // per panel, group-major
};

}  // namespace quire
QUIRE_API_END
