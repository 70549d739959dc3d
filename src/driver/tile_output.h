// A tile's output op on its last K block (ReQuantizeOutput or ReQuantizeForFloat, with
// nothing after it): as a kernel output stage per column slice, or through the path's
// epilogue routines for what the stage does not take (src/driver/compute_block.cpp).
#pragma once

#include "cpu/output_stage.h"
#include "epilogue/epilogue_table.h"
#include "quire/detail/GemmCore.h"

namespace quire::detail {

// The op resolved for the tile (the args' `in` is the int32 tile in C_buffer), and the
// routines of the path that runs it.
struct TileRequantize {
  KernelOutputArgs args;
  const EpilogueTable* epilogue;
};

// The op on block columns [c0, c0 + n) as a kernel output stage and one call's operands
// (out and row_offsets at the tile's first row), or false when a per-group operand
// changes inside those columns (GROUP granularity with groups narrower than the slice).
bool stage_for_slice(const KernelOutputArgs& t, int c0, int n, OutputStage& stage,
                     OutputStageArgs& args);

// The epilogue routine on the whole tile, or on rows [r0, r0 + rows) x columns
// [c0, c0 + cols) of it.
void run_epilogue(const TileRequantize& t);
void run_epilogue(const TileRequantize& t, int r0, int rows, int c0, int cols);

}  // namespace quire::detail
