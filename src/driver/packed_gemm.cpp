// fbgemmPacked's loops (the order and why: docs/architecture.md, "One call").
#include <algorithm>
#include <cstring>

#include "common/thread_scratch.h"
#include "cpu/isa_record.h"
#include "driver/driver.h"
#include "driver/tile_output.h"
#include "quire/detail/Check.h"
#include "quire/detail/GemmCore.h"

namespace quire::detail {
namespace {

// The blocking the loops use: MCB x KCB from the packer's blocks (a packer written to
// FBGEMM's contract sizes its buffer for them), the rest from the packer's blocking or
// the caller's override.
BlockingFactors call_blocking(const PackedGemmCall& c) {
  const char* where = "fbgemmPacked";
  check_arg(c.a_block_rows >= 1, where, "packA.blockRowSize()", c.a_block_rows, "must be >= 1");
  check_arg(c.a_block_cols >= 4 && c.a_block_cols % 4 == 0, where, "packA.blockColSize()",
            c.a_block_cols, "must be a positive multiple of 4 (the K interleave)");
  BlockingFactors bf = c.a_blocking;
  bf.MCB = c.a_block_rows;
  bf.KCB = c.a_block_cols;
  return bf;
}

// Whether row spans (run_packed_gemm) may run and pay: quire's packer (it says which
// blocks it reads in place and can skip its sums), an op the kernels apply or one that
// reads no row offsets (memCopy), one K block of one group, several blocks, at least two
// blocks per span, and one column slice (wider outputs reuse a block's A across slices,
// which a larger span would push out of L1).
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

void run_packed_gemm(const PackedGemmCall& c) {
  const BlockingFactors a_blocking = call_blocking(c);
  const GemmShape s = check_gemm(c.a_rows, c.a_cols, c.a_groups, *c.b, c.C, c.C_buffer, c.ldc,
                                 c.thread_id, c.num_threads, a_blocking, c.blocking_params);
  if (s.M == 0 || s.N == 0 || s.K == 0) return;  // nothing to compute or write
  BlockingFactors bf = a_blocking;
  if (c.blocking_params != nullptr) {
    bf = resolve_blocking(c.blocking_params, "fbgemmPacked", c.acc);
    bf.MCB = a_blocking.MCB;  // equal unless the packer's blocks differ from its blocking
    bf.KCB = a_blocking.KCB;
  }
  const IsaRecord& isa = active_isa();
  const ThreadTile tile =
      partition_tiles(s.M, s.N, bf.MR, c.b->panel_width, c.thread_id, c.num_threads);
  KernelSet kernels(isa, bf.MR, bf.NR, c.acc);
  struct Publish {  // the call's kernel form counts, on every way out
    const KernelSet& k;
    ~Publish() { publish_form_counts(k); }
  } publish{kernels};
  const EpilogueTable* epilogue =
      c.requantize_tile != nullptr ? &epilogue_for(inst_set_of(isa)) : nullptr;
  const int64_t ld = c.ldc;
  // Narrow outputs in one K block on VNNI paths: the kernels form the row sums of A
  // blocks read in place, and the packer skips its pass over them.
  const bool defer_sums = c.pack_deferring_sums != nullptr && kernels.narrow_row_sums() &&
                          s.K <= bf.KCB && tile.n0 == 0 && tile.n1 - tile.n0 <= bf.NCB &&
                          narrow_block(kernels, *c.b, 0, tile.n1);

  TileRequantize rq{{}, epilogue};  // filled per tile by requantize_tile; zeroed once per call
  // Rows [ic, ic + mc) x this thread's columns, K block [k0, k0 + kc) of group g, over A as
  // packed. row_sums: where the kernels are to form the rows' A sums (else null).
  // span_sums: the rows' sums when they are not the packer's buffer (a row span, below);
  // the op then reads them there.
  const auto run_block = [&](int32_t ic, int mc, int g, int k0, int kc, const PackedABlock& a,
                             int32_t* row_sums, const int32_t* span_sums) {
    const int8_t* b_group = c.b_data + g * c.b->group_bytes();
    const uint8_t* pair_limits = c.b_pair_safe_limits + g * c.b->panels();
    const bool last_k_block = k0 + kc == s.K;
    // The certificate's A half: the block's largest value, taken where the path has
    // pair-safe kernels and some of this thread's panels certify less than any A.
    uint8_t a_max = 255;
    if (kernels.has_pair_safe()) {
      const int width = c.b->panel_width;
      const uint8_t limit = largest_limit_below_255(pair_limits, tile.n0 / width,
                                                    (tile.n1 + width - 1) / width);
      if (limit > 0) a_max = block_a_max(a.data, a.ld, mc, kc, limit);
    }
    // Where the path has wide exact kernels and the block spans several column slices, A
    // is widened on first use by one (none if every panel is pair-safe) and reused by the
    // rest. Under two slices the pass costs more than the per-step split it saves
    // (156800x16x36: 8% slower on avx512, 12% on avx2).
    WideABlock wide(kernels.widen_a(), a.data, a.ld, mc, kc);
    WideABlock* wide_a =
        kernels.widen_a() != nullptr && tile.n1 - tile.n0 > bf.NR ? &wide : nullptr;
    for (int32_t jc = tile.n0; jc < tile.n1; jc += bf.NCB) {
      const int nc = std::min(bf.NCB, tile.n1 - jc);
      const int32_t col = g * s.N + jc;
      int32_t* c_tile = c.C_buffer + ic * ld + col;
      const block_type_t block{ic, mc, col, nc};
      if (last_k_block && c.requantize_tile != nullptr) {
        // ReQuantizeOutput / ReQuantizeForFloat runs in the kernels' output stage.
        if (!c.requantize_tile(c.op, c.C, c_tile, block, static_cast<int>(c.ldc), rq.args))
          continue;
        if (span_sums != nullptr) {
          ZeroPointCorrection& zp = rq.args.to_float ? rq.args.f32.zp : rq.args.u8.zp;
          if (zp.row_offsets != nullptr) zp.row_offsets = span_sums;
        }
        compute_block(kernels, a.data, a.ld, mc, *c.b, b_group, k0, kc, jc, nc, c_tile, ld,
                      k0 > 0, pair_limits, a_max, &rq, wide_a, row_sums);
        continue;
      }
      compute_block(kernels, a.data, a.ld, mc, *c.b, b_group, k0, kc, jc, nc, c_tile, ld,
                    k0 > 0, pair_limits, a_max, nullptr, wide_a, row_sums);
      if (last_k_block) {
        c.output(c.op, c.C, c_tile, block, static_cast<int>(c.ldc), inst_set_of(isa));
      }
    }
  };

  int32_t ic = tile.m0;
  if (spans_pay_off(c, s, bf, tile) && op_reads_packer_sums(c, tile, bf, rq.args)) {
    // Row spans: where quire's packer reads A in place, consecutive blocks of one K block
    // are rows that follow each other in memory, so several run as one block, up to one
    // packed block's bytes (MCB x KCB) of A. Their sums go to a scratch the op is pointed
    // at; the packer's buffer ends holding its last block's sums, as after per-block runs.
    // Per-block work (packing thunk, op resolution, kernel calls) is then paid once per
    // span: 156800 x {4, 8, 16} x 36 ran 1.11-1.18x faster with such spans.
    thread_local GrowingScratch sums_scratch;
    const int64_t row_bytes = (s.K + 3) / 4 * 4;
    const int span_blocks = static_cast<int>(std::max<int64_t>(1, int64_t{bf.KCB} / row_bytes));
    const int span_cap = bf.MCB * span_blocks;
    auto* sums = static_cast<int32_t*>(sums_scratch.get(sizeof(int32_t) * span_cap));
    const int32_t* last_block_sums = nullptr;
    int last_block_rows = 0;
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
          isa.pack_a(a.data, a.ld, false, mc, s.K, nullptr, 0, sums + rows, false);
        last_block_sums = sums + rows;
        last_block_rows = mc;
        rows += mc;
        a = PackedABlock{nullptr, 0};
      }
      if (rows > 0) {
        run_block(ic, rows, 0, 0, s.K, PackedABlock{base, lda}, defer_sums ? sums : nullptr,
                  sums);
        ic += rows;
      }
      // A block in place but not following the span starts the next one, packed again
      // there (in place and deferred, packing is only a view). A copied block runs alone.
      if (standalone) {
        run_block(ic, mc, 0, 0, s.K, a, nullptr, nullptr);
        last_block_sums = nullptr;  // the packer's buffer holds this block's own sums
        ic += mc;
      }
    }
    if (last_block_sums != nullptr)
      std::memcpy(c.a_row_offsets, last_block_sums, sizeof(int32_t) * last_block_rows);
    return;
  }

  for (; ic < tile.m1; ic += bf.MCB) {
    const int mc = std::min(bf.MCB, tile.m1 - ic);
    for (int g = 0; g < s.groups; ++g) {
      for (int32_t k0 = 0; k0 < s.K; k0 += bf.KCB) {
        const int kc = std::min(bf.KCB, s.K - k0);
        const block_type_t a_block{ic, mc, g * s.K + k0, kc};
        int32_t* row_sums = nullptr;  // set when the kernels are to form them
        const PackedABlock a = defer_sums ? c.pack_deferring_sums(c.packer, a_block, &row_sums)
                                          : c.pack(c.packer, a_block);
        check_not_null(a.data, "fbgemmPacked", "the packed A block (packA.getBuf())");
        run_block(ic, mc, g, k0, kc, a, row_sums, nullptr);
      }
    }
  }
}

}  // namespace quire::detail
