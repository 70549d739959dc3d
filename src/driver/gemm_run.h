// One thread's share of one fbgemmPacked call as its two drivers see it: the block loops
// (packed_gemm.cpp) and the row spans (row_spans.cpp). Private to src/driver.
#pragma once

#include "driver/driver.h"
#include "driver/tile_output.h"
#include "quire/detail/GemmCore.h"

namespace quire::detail {

struct GemmRun {
  const PackedGemmCall& c;
  GemmShape s;
  BlockingFactors bf;  // MCB x KCB: the packer's blocks
  const IsaRecord& isa;
  ThreadTile tile;
  KernelSet& kernels;
  TileRequantize& rq;  // filled per tile by requantize_tile
  // Narrow outputs in one K block on VNNI paths: the kernels form the row sums of A
  // blocks read in place, and the packer skips its pass over them.
  bool defer_sums;

  // Rows [ic, ic + mc) x this thread's columns, K block [k0, k0 + kc) of group g, over A
  // as packed. row_sums: where the kernels are to form the rows' A sums (else null).
  // span_sums: the rows' sums when they are not the packer's buffer (a row span); the op
  // then reads them there.
  void run_block(int32_t ic, int mc, int g, int k0, int kc, const PackedABlock& a,
                 int32_t* row_sums, const int32_t* span_sums) const;
};

// Row spans (docs/architecture.md, "Row spans"): whether they may run and pay for this
// call, and the driver that runs the thread's rows in them instead of block by block.
bool row_spans_pay_off(const GemmRun& run);
void run_row_spans(const GemmRun& run);

}  // namespace quire::detail
