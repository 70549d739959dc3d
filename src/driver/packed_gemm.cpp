// fbgemmPacked's loops (the order and why: docs/architecture.md, "One call").
#include <algorithm>
#include <optional>

#include "cpu/isa_record.h"
#include "driver/gemm_run.h"
#include "pack/pair_index.h"
#include "quire/detail/Check.h"

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

// The block loops: ic -> g -> pc, one packed A block at a time.
void run_blocks(const GemmRun& run) {
  const PackedGemmCall& c = run.c;
  const GemmShape& s = run.s;
  const BlockingFactors& bf = run.bf;
  for (int32_t ic = run.tile.m0; ic < run.tile.m1; ic += bf.MCB) {
    const int mc = std::min(bf.MCB, run.tile.m1 - ic);
    for (int g = 0; g < s.groups; ++g) {
      for (int32_t k0 = 0; k0 < s.K; k0 += bf.KCB) {
        const int kc = std::min(bf.KCB, s.K - k0);
        const block_type_t a_block{ic, mc, g * s.K + k0, kc};
        int32_t* row_sums = nullptr;  // set when the kernels are to form them
        const PackedABlock a = run.defer_sums
                                   ? c.pack_deferring_sums(c.packer, a_block, &row_sums)
                                   : c.pack(c.packer, a_block);
        check_not_null(a.data, "fbgemmPacked", "the packed A block (packA.getBuf())");
        run.run_block(ic, mc, g, k0, kc, a, row_sums, nullptr);
      }
    }
  }
}

}  // namespace

void GemmRun::run_block(int32_t ic, int mc, int g, int k0, int kc, const PackedABlock& a,
                        int32_t* row_sums, const int32_t* span_sums) const {
  // The limits choose between pair-safe and exact kernels, so only on paths that have
  // pair-safe ones: elsewhere (VNNI, saturating acc16) a_max is never taken, and a panel
  // whose limit is 255 read as certified sent its slices down the per-slice fallback, past
  // the column-slice runs and spanning tiles (avx2 acc16, B in -8..8, 1 x 2048 x 512).
  const uint8_t* pair_limits =
      kernels.has_pair_safe() ? c.b_pair_safe_limits + g * c.b->panels() : nullptr;
  BlockCall call{.a = a.data, .lda = a.ld, .mc = mc, .b = c.b,
                 .b_group = c.b_data + g * c.b->group_bytes(), .k0 = k0, .kc = kc, .n0 = 0,
                 .nc = 0, .c = nullptr, .ldc = c.ldc, .accumulate = k0 > 0,
                 .pair_limits = pair_limits, .row_sums = row_sums};
  const bool last_k_block = k0 + kc == s.K;
  // The certificate's A half: the block's largest value, taken where the path has
  // pair-safe kernels and some of this thread's panels certify less than any A.
  uint8_t limit = 0;  // the largest of this thread's limits under 255, if any
  if (pair_limits != nullptr) {
    const int width = c.b->panel_width;
    limit = largest_limit_below_255(pair_limits, tile.n0 / width, (tile.n1 + width - 1) / width);
    if (limit > 0) call.a_max = block_a_max(a.data, a.ld, mc, kc, limit);
  }
  // Panels the certificate leaves out may run corrected (B's unsafe-pair index, the
  // block made pair-major on first use), where some panel is not certified for any A and
  // the block has the rows and columns for the correction to pay (correction_pays).
  const PairCorrectionKernels* correction = kernels.pair_correction();
  const PairIndexView index = pair_index_view(*c.b, c.b_pair_safe_limits);
  std::optional<PairMajorBlock> pair_major;
  if (correction != nullptr && limit > 0 && block_may_correct(mc, tile.n1 - tile.n0)) {
    pair_major.emplace(*correction, a.data, a.ld, mc, kc);
    call.pair_index = &index;
    call.first_panel = g * c.b->panels();
    call.pair_major = &*pair_major;
  }
  // Where the path has wide exact kernels and the block spans several column slices, A
  // is widened on first use by one (none if every panel is pair-safe) and reused by the
  // rest. Under two slices the pass costs more than the per-step split it saves
  // (156800x16x36: 8% slower on avx512, 12% on avx2).
  WideABlock wide(kernels.widen_a(), a.data, a.ld, mc, kc);
  if (kernels.widen_a() != nullptr && tile.n1 - tile.n0 > bf.NR) call.wide = &wide;
  for (int32_t jc = tile.n0; jc < tile.n1; jc += bf.NCB) {
    const int nc = std::min(bf.NCB, tile.n1 - jc);
    const int32_t col = g * s.N + jc;
    int32_t* c_tile = c.C_buffer + ic * call.ldc + col;
    const block_type_t block{ic, mc, col, nc};
    call.n0 = jc;
    call.nc = nc;
    call.c = c_tile;
    if (last_k_block && c.requantize_tile != nullptr) {
      // ReQuantizeOutput / ReQuantizeForFloat runs in the kernels' output stage.
      if (!c.requantize_tile(c.op, c.C, c_tile, block, static_cast<int>(c.ldc), rq.args))
        continue;
      if (span_sums != nullptr) {
        ZeroPointCorrection& zp = rq.args.to_float ? rq.args.f32.zp : rq.args.u8.zp;
        if (zp.row_offsets != nullptr) zp.row_offsets = span_sums;
      }
      call.requantize = &rq;
      compute_block(kernels, call);
      continue;
    }
    call.requantize = nullptr;
    compute_block(kernels, call);
    if (last_k_block) c.output(c.op, c.C, c_tile, block, static_cast<int>(c.ldc), inst_set_of(isa));
  }
}

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
  TileRequantize rq{{}, epilogue};  // zeroed once per call
  const bool defer_sums = c.pack_deferring_sums != nullptr && kernels.narrow_row_sums() &&
                          s.K <= bf.KCB && tile.n0 == 0 && tile.n1 - tile.n0 <= bf.NCB &&
                          narrow_block(kernels, *c.b, 0, tile.n1);
  const GemmRun run{c, s, bf, isa, tile, kernels, rq, defer_sums};
  if (row_spans_pay_off(run)) run_row_spans(run);
  else run_blocks(run);
}

}  // namespace quire::detail
