// fbgemmPacked's loops (the order and why: docs/architecture.md, "One call").
#include <algorithm>

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
  const EpilogueTable* epilogue =
      c.requantize_tile != nullptr ? &epilogue_for(inst_set_of(isa)) : nullptr;
  const int64_t ld = c.ldc;
  // Narrow outputs in one K block on VNNI paths: the kernels form the row sums of A
  // blocks read in place, and the packer skips its pass over them.
  const bool defer_sums = c.pack_deferring_sums != nullptr && kernels.narrow_row_sums() &&
                          s.K <= bf.KCB && tile.n0 == 0 && tile.n1 - tile.n0 <= bf.NCB &&
                          narrow_block(kernels, *c.b, 0, tile.n1);

  for (int32_t ic = tile.m0; ic < tile.m1; ic += bf.MCB) {
    const int mc = std::min(bf.MCB, tile.m1 - ic);
    for (int g = 0; g < s.groups; ++g) {
      const int8_t* b_group = c.b_data + g * c.b->group_bytes();
      const uint8_t* pair_safe = c.b_pair_safe + g * c.b->panels();
      for (int32_t k0 = 0; k0 < s.K; k0 += bf.KCB) {
        const int kc = std::min(bf.KCB, s.K - k0);
        const block_type_t a_block{ic, mc, g * s.K + k0, kc};
        int32_t* row_sums = nullptr;  // set when the kernels are to form them
        const PackedABlock a = defer_sums ? c.pack_deferring_sums(c.packer, a_block, &row_sums)
                                          : c.pack(c.packer, a_block);
        check_not_null(a.data, "fbgemmPacked", "the packed A block (packA.getBuf())");
        const bool last_k_block = k0 + kc == s.K;
        // Where the path has wide exact kernels and the block spans several column
        // slices, A is widened on first use by one (none if every panel is pair-safe)
        // and reused by the rest. Under two slices the pass costs more than the per-step
        // split it saves (156800x16x36: 8% slower on avx512, 12% on avx2).
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
            TileRequantize rq{{}, epilogue};
            if (!c.requantize_tile(c.op, c.C, c_tile, block, static_cast<int>(c.ldc), rq.args))
              continue;
            compute_block(kernels, a.data, a.ld, mc, *c.b, b_group, k0, kc, jc, nc, c_tile, ld,
                          k0 > 0, pair_safe, &rq, wide_a, row_sums);
            continue;
          }
          compute_block(kernels, a.data, a.ld, mc, *c.b, b_group, k0, kc, jc, nc, c_tile, ld,
                        k0 > 0, pair_safe, nullptr, wide_a, row_sums);
          if (last_k_block) {
            c.output(c.op, c.C, c_tile, block, static_cast<int>(c.ldc), inst_set_of(isa));
          }
        }
      }
    }
  }
}

}  // namespace quire::detail
