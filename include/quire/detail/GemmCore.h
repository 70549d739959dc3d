// The non-template core of fbgemmPacked (src/driver/packed_gemm.cpp). The template in
// Gemm.h only adapts the caller's packer and output op to two plain function pointers;
// the loops, the thread split, the kernels and the path choice live behind this call, so
// none of them is compiled into client code. PackedGemmCall and KernelOutputArgs are ABI
// records (detail/Abi.h): client code fills them inline, so their layout is frozen; what
// the driver needs beyond them it derives inside the library.
#pragma once

#include <cstdint>

#include "quire/PackedABlock.h"
#include "quire/Types.h"
#include "quire/detail/Abi.h"
#include "quire/detail/Blocking.h"
#include "quire/detail/Epilogue.h"
#include "quire/detail/PackB.h"

QUIRE_API_BEGIN
namespace quire::detail {

// Prepares block (rows x K columns within one group) and says where the kernel reads it.
using PackABlockFn = PackedABlock (*)(void* packer, const block_type_t& block);
// The same, except that a block read in place gets no row-sum pass: *row_sums is then
// the packer's row-sum buffer, which the kernels fill; null where the packer summed.
using PackADeferringSumsFn = PackedABlock (*)(void* packer, const block_type_t& block,
                                              int32_t** row_sums);

// Runs the output op on one finished int32 tile of C_buffer: block gives the tile's rows
// and columns of C; tile points at C_buffer's element (row_start, col_start); ldc is the
// row stride of both C and C_buffer; inst_set is the path that computed it.
using OutputTileFn = void (*)(const void* op, void* C, int32_t* tile, const block_type_t& block,
                              int ldc, inst_set_t inst_set);

inline namespace QUIRE_ABI_NAMESPACE {

// An output op the kernels can apply in registers, resolved for one tile: a
// ReQuantizeOutput (to uint8) or a ReQuantizeForFloat, with nothing after it.
struct KernelOutputArgs {
  bool to_float;
  RequantizeU8Args u8;    // !to_float
  RequantizeF32Args f32;  // to_float
};

// Resolves the output op for one tile as its f would, checks included, so the kernels can
// apply it in registers; false for an empty block.
using RequantizeTileFn = bool (*)(const void* op, void* C, int32_t* tile,
                                  const block_type_t& block, int ldc, KernelOutputArgs& args);

struct PackedGemmCall {
  // A, as its packer describes it.
  void* packer;
  PackABlockFn pack;
  PackADeferringSumsFn pack_deferring_sums;  // packers with packDeferringRowOffsets; else null
  int32_t* a_row_offsets;                    // such a packer's getRowOffsetBuffer(); else null
  int32_t a_rows, a_cols;
  int a_groups;
  int32_t a_block_rows, a_block_cols;  // the packer's MCB x KCB blocks
  BlockingFactors a_blocking;          // the packer's blocking (MR, NR, NCB are used)
  // B, packed.
  const PackedBLayout* b;
  const int8_t* b_data;
  const uint8_t* b_pair_safe_limits;  // per panel, group-major: PackBMatrix::pairSafeLimits
  Accumulation acc;
  // C and the output op.
  void* C;
  int32_t* C_buffer;
  uint32_t ldc;
  const void* op;
  OutputTileFn output;
  RequantizeTileFn requantize_tile;  // null unless the op can run in the kernels' output stage
  bool op_reads_no_row_offsets;      // the op reads no row offsets (memCopy)
  // This thread's share, and an override of the blocking.
  int thread_id, num_threads;
  const BlockingFactors* blocking_params;
};

}  // namespace QUIRE_ABI_NAMESPACE

// Checks the call (std::invalid_argument naming the parameter), then computes this
// thread's rectangle of C: packs each A block once, runs the kernels over it for every
// column block, and hands each tile to the output op after its last K block.
void run_packed_gemm(const PackedGemmCall& call);

}  // namespace quire::detail
QUIRE_API_END
