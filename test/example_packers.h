// Two A packers written only against quire's public packing contract (docs/packing.md),
// the way an engine writes one to fuse its own work into the pass over A. docs/packing.md
// shows them; user_packer_test.cpp checks them bit for bit against "convert, then
// PackAWithRowOffset".
#pragma once

#include <fbgemm/Fbgemm.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "quire/PackABase.h"

namespace examples {

// FBGEMM's default (MCB, KCB, ROW_INTERLEAVE) for the active instruction set, as FBGEMM
// client code reads them.
template <typename accT>
std::tuple<int, int, int> default_a_blocks() {
  using fbgemm::inst_set_t;
  using fbgemm::PackingTraits;
  switch (fbgemm::fbgemmInstructionSet()) {
    case inst_set_t::avx512_vnni: return PackingTraits<uint8_t, accT, inst_set_t::avx512_vnni>::getMatrixPackAParams();
    case inst_set_t::avx512_vnni_ymm: return PackingTraits<uint8_t, accT, inst_set_t::avx512_vnni_ymm>::getMatrixPackAParams();
    case inst_set_t::avx512: return PackingTraits<uint8_t, accT, inst_set_t::avx512>::getMatrixPackAParams();
    case inst_set_t::avx512_ymm: return PackingTraits<uint8_t, accT, inst_set_t::avx512_ymm>::getMatrixPackAParams();
    case inst_set_t::avx_vnni: return PackingTraits<uint8_t, accT, inst_set_t::avx_vnni>::getMatrixPackAParams();
    case inst_set_t::avx2: return PackingTraits<uint8_t, accT, inst_set_t::avx2>::getMatrixPackAParams();
    default: return PackingTraits<uint8_t, accT, inst_set_t::anyarch>::getMatrixPackAParams();
  }
}

// FBGEMM's CRTP form. The activations are NCHW (batch x channels x pixels); the GEMM's A
// is (batch * pixels) x channels, row n * pixels + p, column c = x[n][c][p]: a transpose
// fused into packing, so the engine never writes an NHWC copy.
template <typename accT = int32_t>
class PackAFromNchw final : public fbgemm::PackMatrix<PackAFromNchw<accT>, uint8_t, accT> {
  using Base = fbgemm::PackMatrix<PackAFromNchw<accT>, uint8_t, accT>;

 public:
  using inpType = uint8_t;
  using accType = accT;
  static bool isA() { return true; }  // not constexpr, as FBGEMM's base declares it

  PackAFromNchw(int batch, int channels, int pixels, const uint8_t* x, uint8_t* pmat = nullptr,
                int groups = 1, int32_t* row_offset = nullptr,
                const fbgemm::BlockingFactors* params = nullptr)
      : Base(batch * pixels, channels, pmat, groups, params), x_(x), channels_(channels),
        pixels_(pixels) {
    if (params != nullptr) {
      std::tie(Base::brow_, Base::bcol_, interleave_) =
          std::make_tuple(params->MCB, params->KCB, params->ROW_INTERLEAVE);
    } else {
      std::tie(Base::brow_, Base::bcol_, interleave_) = default_a_blocks<accT>();
    }
    // quire takes KCB from the packer, so with the default blocking a short K may ask for
    // narrower blocks: rows of the packed block then sit closer together (FBGEMM requires
    // the traits' KCB; given blocking_params, fbgemmPacked checks that they agree).
    if (params == nullptr) {
      const int k_padded = (channels / groups + 3) / 4 * 4;
      Base::bcol_ = std::max(4, std::min(Base::bcol_, k_padded));
    }
    if (pmat == nullptr) {
      Base::buf_ = static_cast<uint8_t*>(
          fbgemm::fbgemmAlignedAlloc(64, sizeof(uint8_t) * Base::brow_ * Base::bcol_));
      Base::bufAllocatedHere_ = true;
    }
    if (row_offset == nullptr) {
      owned_row_offset_.resize(static_cast<size_t>(Base::brow_));
      row_offset = owned_row_offset_.data();
    }
    row_offset_ = row_offset;
  }

  // Rows [row_start, + row_size) and columns [col_start, + col_size) of A, into the
  // buffer, rows blockColSize() bytes apart, zero-filled to the interleave; the row sums
  // start over at the first K block of a group and accumulate over the others. Within one
  // image the block is a transposed piece of x (channel c's pixels are contiguous), so it
  // is moved with FBGEMM's byte transpose; the row sums come from quire's sumPackedRows
  // while the block is in cache.
  void pack(const fbgemm::block_type_t& block) {
    const int padded = (block.col_size + interleave_ - 1) / interleave_ * interleave_;
    Base::packedBlock({block.row_start, block.row_size, block.col_start, padded});
    const bool first_k_block = block.col_start % (this->numCols() / this->numGroups()) == 0;
    uint8_t* out = Base::getBuf();
    const int ld_out = Base::blockColSize();
    for (int i = 0; i < block.row_size;) {  // one run of rows per image
      const int row = block.row_start + i, n = row / pixels_, p = row % pixels_;
      const int run = std::min(block.row_size - i, pixels_ - p);
      const uint8_t* src = x_ + (int64_t{n} * channels_ + block.col_start) * pixels_ + p;
      fbgemm::transpose_simd<uint8_t>(block.col_size, run, src, pixels_, out + i * ld_out, ld_out);
      i += run;
    }
    for (int i = 0; i < block.row_size; ++i)
      std::fill(out + i * ld_out + block.col_size, out + i * ld_out + padded, uint8_t{0});
    quire::sumPackedRows(out, ld_out, block.row_size, block.col_size, row_offset_, !first_k_block);
  }

  int32_t* getRowOffsetBuffer() const { return row_offset_; }
  bool isThisLastKBlock(int block_id) const {
    return (block_id + 1) * Base::blockColSize() >= this->numCols() / this->numGroups();
  }
  void printPackedMatrix(const std::string& name) { (void)name; }
  static int rowOffsetBufferSize(const fbgemm::BlockingFactors* params = nullptr) {
    return params != nullptr ? params->MCB : std::get<0>(default_a_blocks<accT>());
  }

 private:
  const uint8_t* x_;
  int channels_, pixels_;
  int interleave_ = 4;
  int32_t* row_offset_ = nullptr;
  std::vector<int32_t> owned_row_offset_;
};

// quire's form: int16 activations narrowed to uint8 while packing, a = clamp(x >> shift,
// 0, 255) (an engine whose previous layer produced int16). pack returns where the kernel
// reads the block (here always the packer's buffer); PackABase supplies the buffer, the
// row-offset buffer and the size queries.
template <typename accT = int32_t>
class PackAFromInt16 final : public quire::PackABase<PackAFromInt16<accT>, accT> {
  using Base = quire::PackABase<PackAFromInt16<accT>, accT>;

 public:
  PackAFromInt16(int rows, int cols, const int16_t* x, int ld, int shift,
                 uint8_t* pmat = nullptr, int groups = 1, int32_t* row_offset = nullptr,
                 const quire::BlockingFactors* params = nullptr)
      : Base(rows, cols, pmat, groups, /*with_row_offsets=*/true, row_offset, params,
             "PackAFromInt16"),
        x_(x), ld_(ld), shift_(shift) {
    if (shift < 0 || shift > 15) throw std::invalid_argument("PackAFromInt16: shift out of [0, 15]");
  }

  static uint8_t narrow(int16_t v, int shift) {
    return static_cast<uint8_t>(std::clamp(v >> shift, 0, 255));
  }

  quire::PackedABlock pack(const quire::block_type_t& block) {
    uint8_t* out = this->block_buffer();
    const int64_t ld_out = this->packedLd();
    const int padded = (block.col_size + 3) & ~3;
    const bool first_k_block = block.col_start % (this->numCols() / this->numGroups()) == 0;
    int32_t* sums = this->getRowOffsetBuffer();
    for (int i = 0; i < block.row_size; ++i) {
      const int16_t* src = x_ + int64_t{block.row_start + i} * ld_ + block.col_start;
      uint8_t* dst = out + i * ld_out;
      int32_t sum = first_k_block ? 0 : sums[i];
      for (int j = 0; j < block.col_size; ++j) {
        dst[j] = narrow(src[j], shift_);
        sum += dst[j];
      }
      std::fill(dst + block.col_size, dst + padded, uint8_t{0});
      sums[i] = sum;
    }
    return quire::PackedABlock{out, ld_out};
  }

 private:
  const int16_t* x_;
  int64_t ld_;
  int shift_;
};

}  // namespace examples
