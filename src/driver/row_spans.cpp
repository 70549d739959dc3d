// The row-span driver (docs/architecture.md, "Row spans"): where quire's packer reads A
// in place, one K block's consecutive A blocks are rows that follow each other in memory,
// and run as one block.
#include <algorithm>
#include <cstring>

#include "common/thread_scratch.h"
#include "cpu/isa_record.h"
#include "driver/gemm_run.h"
#include "quire/detail/Check.h"

namespace quire::detail {
namespace {

// Whether row spans may run and pay: quire's packer (it says which blocks it reads in
// place and can skip its sums), an op the kernels apply or one that reads no row offsets
// (memCopy), one K block of one group, several blocks, at least two blocks per span, and
// one column slice (wider outputs reuse a block's A across slices, which a larger span
// would push out of L1).
bool spans_pay_off(const PackedGemmCall& c, const GemmShape& s, const BlockingFactors& bf,
                   const ThreadTile& tile) {
  const bool op_fits = c.requantize_tile != nullptr || c.op_reads_no_row_offsets;
  return op_fits && c.pack_deferring_sums != nullptr && c.a_row_offsets != nullptr &&
         s.groups == 1 && s.K <= bf.KCB / 2 && tile.m1 - tile.m0 > bf.MCB &&
         tile.n1 - tile.n0 <= bf.NR;
}

// Whether the op takes its row offsets from the packer's buffer (or has no row term), so
// that a span's sums can stand in for them; an op with an array of its own indexes it per
// block and keeps per-block runs.
bool op_reads_packer_sums(const PackedGemmCall& c, const ThreadTile& tile,
                          const BlockingFactors& bf, KernelOutputArgs& args) {
  if (c.requantize_tile == nullptr) return c.op_reads_no_row_offsets;
  const int mc = std::min(bf.MCB, tile.m1 - tile.m0), nc = std::min(bf.NCB, tile.n1 - tile.n0);
  const block_type_t block{tile.m0, mc, tile.n0, nc};
  int32_t* c_tile = c.C_buffer + int64_t{tile.m0} * c.ldc + tile.n0;
  if (!c.requantize_tile(c.op, c.C, c_tile, block, static_cast<int>(c.ldc), args)) return false;
  const ZeroPointCorrection& zp = args.to_float ? args.f32.zp : args.u8.zp;
  return zp.row_offsets == nullptr || zp.row_offsets == c.a_row_offsets;
}

}  // namespace

bool row_spans_pay_off(const GemmRun& run) {
  KernelOutputArgs args;  // the first tile's op, resolved only to read its row offsets
  return spans_pay_off(run.c, run.s, run.bf, run.tile) &&
         op_reads_packer_sums(run.c, run.tile, run.bf, args);
}

// Several in-place blocks of one K block run as one, up to one packed block's bytes
// (MCB x KCB) of A. Their sums go to a scratch the op is pointed at; the packer's buffer
// ends holding its last block's sums, as after per-block runs. Per-block work (packing
// thunk, op resolution, kernel calls) is then paid once per span: 156800 x {4, 8, 16} x
// 36 ran 1.11-1.18x faster with such spans.
void run_row_spans(const GemmRun& run) {
  const PackedGemmCall& c = run.c;
  const GemmShape& s = run.s;
  const BlockingFactors& bf = run.bf;
  const ThreadTile& tile = run.tile;
  const bool defer_sums = run.defer_sums;
  thread_local GrowingScratch sums_scratch;
  const int64_t row_bytes = (s.K + 3) / 4 * 4;
  const int span_blocks = static_cast<int>(std::max<int64_t>(1, int64_t{bf.KCB} / row_bytes));
  const int span_cap = bf.MCB * span_blocks;
  auto* sums = static_cast<int32_t*>(sums_scratch.get(sizeof(int32_t) * span_cap));
  const int32_t* last_block_sums = nullptr;
  int last_block_rows = 0;
  int32_t ic = tile.m0;
  while (ic < tile.m1) {
    // Gather a span of in-place blocks, contiguous in memory.
    const uint8_t* base = nullptr;
    int64_t lda = 0;
    int rows = 0;
    bool standalone = false;  // the block just packed was not read in place
    PackedABlock a{nullptr, 0};
    int mc = 0;
    while (ic + rows < tile.m1 && rows < span_cap) {
      mc = std::min(bf.MCB, tile.m1 - (ic + rows));
      int32_t* buffer = nullptr;
      a = c.pack_deferring_sums(c.packer, block_type_t{ic + rows, mc, 0, s.K}, &buffer);
      check_not_null(a.data, "fbgemmPacked", "the packed A block (packA.getBuf())");
      if (buffer == nullptr) {  // copied, its sums in the packer's buffer
        standalone = true;
        break;
      }
      if (rows > 0 && (a.data != base + rows * lda || a.ld != lda)) break;
      if (rows == 0) {
        base = a.data;
        lda = a.ld;
      }
      if (!defer_sums)  // the kernels will not form the sums: take them here
        run.isa.pack_a(a.data, a.ld, false, mc, s.K, nullptr, 0, sums + rows, false);
      last_block_sums = sums + rows;
      last_block_rows = mc;
      rows += mc;
      a = PackedABlock{nullptr, 0};
    }
    if (rows > 0) {
      run.run_block(ic, rows, 0, 0, s.K, PackedABlock{base, lda}, defer_sums ? sums : nullptr,
                    sums);
      ic += rows;
    }
    // A block in place but not following the span starts the next one, packed again
    // there (in place and deferred, packing is only a view). A copied block runs alone.
    if (standalone) {
      run.run_block(ic, mc, 0, 0, s.K, a, nullptr, nullptr);
      last_block_sums = nullptr;  // the packer's buffer holds this block's own sums
      ic += mc;
    }
  }
  if (last_block_sums != nullptr)
    std::memcpy(c.a_row_offsets, last_block_sums, sizeof(int32_t) * last_block_rows);
}

}  // namespace quire::detail
