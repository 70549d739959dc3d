// fbgemmPacked: C = outProcess(A * B) for one thread's share, over five cache-blocked
// loops around the micro-kernel (BLIS-style), the output pipeline applied to each tile
// right after its last K block:
//
//   ic over M in MCB blocks           (this thread's rows)
//     g over groups
//       pc over K in KCB blocks       pack A(ic, g, pc) (or read it in place) + row sums
//         jc over N in NCB blocks     (this thread's columns)
//           jr over NR, ir over MR    micro-kernel
//           last pc: outProcess.f on the MCB x NCB tile, hot in cache
//
// The loops are compiled once, in src/driver/packed_gemm.cpp; this template only adapts
// the packer (docs/packing.md: quire's contract or FBGEMM's) and the output op to it.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "quire/PackMatrix.h"
#include "quire/PackedABlock.h"
#include "quire/detail/Blocking.h"
#include "quire/detail/GemmCore.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {
namespace detail {

// A packer written to quire's contract returns where the kernel reads the block; one
// written to FBGEMM's (void pack) leaves it at getBuf(), rows blockColSize() bytes apart.
template <typename PA>
PackedABlock pack_a_thunk(void* packer, const block_type_t& block) {
  PA& a = *static_cast<PA*>(packer);
  if constexpr (std::is_same_v<decltype(a.pack(block)), PackedABlock>) {
    return a.pack(block);
  } else {
    a.pack(block);
    return PackedABlock{a.getBuf(), a.blockColSize()};
  }
}

template <typename PA>
PackedABlock pack_a_deferring_sums_thunk(void* packer, const block_type_t& block, int32_t** row_sums) {
  return static_cast<PA*>(packer)->packDeferringRowOffsets(block, row_sums);
}

// The one place the run-time path becomes the output op's template argument. The library
// names the path a tile was computed on with one of FBGEMM's inst_set_t values (the
// `inst_set` of its traits row), so a new quire path never changes this header; a value
// this switch does not know is an error, never a skipped output op. The tile is mutable:
// an op may add to it in place (DoSpmdmOnInpBuffer).
template <typename OutOp, typename cT>
void run_output(const OutOp& op, inst_set_t isa, cT* C, int32_t* tile,
                const block_type_t& block, int ldc) {
  switch (isa) {
    case inst_set_t::avx512_vnni: op.template f<inst_set_t::avx512_vnni>(C, tile, block, ldc, ldc); return;
    case inst_set_t::avx512_vnni_ymm: op.template f<inst_set_t::avx512_vnni_ymm>(C, tile, block, ldc, ldc); return;
    case inst_set_t::avx512:
    case inst_set_t::avx512_ymm: op.template f<inst_set_t::avx512>(C, tile, block, ldc, ldc); return;
    case inst_set_t::avx_vnni: op.template f<inst_set_t::avx_vnni>(C, tile, block, ldc, ldc); return;
    case inst_set_t::avx2: op.template f<inst_set_t::avx2>(C, tile, block, ldc, ldc); return;
    case inst_set_t::anyarch:
    case inst_set_t::sve:  // never active: quire has no Arm path
      op.template f<inst_set_t::anyarch>(C, tile, block, ldc, ldc); return;
  }
  throw std::logic_error("fbgemmPacked: the library ran a tile on inst_set_t " +
                         std::to_string(static_cast<int>(isa)) +
                         ", which this header's output dispatch does not know");
}

// run_output behind the core's OutputTileFn.
template <typename OutOp, typename cT>
void output_thunk(const void* op, void* C, int32_t* tile, const block_type_t& block, int ldc,
                  inst_set_t isa) {
  run_output(*static_cast<const OutOp*>(op), isa, static_cast<cT*>(C), tile, block, ldc);
}

// An output op the kernels can apply in registers (ReQuantizeOutput or ReQuantizeForFloat
// with nothing after it).
template <typename OutOp>
concept RequantizesInKernel = requires { OutOp::kRequantizesInKernel; } && OutOp::kRequantizesInKernel;

// An output op that reads no row offsets (memCopy to the end of the pipeline).
template <typename OutOp>
concept ReadsNoRowOffsets = requires { OutOp::kReadsNoRowOffsets; } && OutOp::kReadsNoRowOffsets;

template <typename OutOp>
bool requantize_tile_thunk(const void* op, void* C, int32_t* tile, const block_type_t& block,
                           int ldc, KernelOutputArgs& args) {
  const OutOp& o = *static_cast<const OutOp*>(op);
  auto* out = static_cast<typename OutOp::outType*>(C);
  args.to_float = std::is_same_v<typename OutOp::outType, float>;
  if constexpr (std::is_same_v<typename OutOp::outType, float>)
    return o.resolveBlock(args.f32, out, tile, block, ldc, ldc);
  else
    return o.resolveBlock(args.u8, out, tile, block, ldc, ldc);
}

}  // namespace detail

// C (M x ldc) = outProcess(A * B) for this thread's share of the output. With A and B
// packed for acc16 (accT = int16_t) the product is computed as docs/acc16.md specifies. Call it once per
// thread with the same arguments and thread_id = 0 .. num_threads - 1; together the calls
// cover C. packA is this thread's own packer (quire's or one written to the contract in
// docs/packing.md, FBGEMM's CRTP form included); packB is shared and read-only. C_buffer is
// an int32 scratch of M x ldc (it may alias C when C is int32 or float). An empty product
// (M = 0: an empty batch; N = 0; or K = 0) does nothing, as in FBGEMM: C, C_buffer and A
// are neither written nor read, and the output pipeline does not run. Throws
// std::invalid_argument on inconsistent arguments.
template <typename packingAMatrix, typename packingBMatrix, typename cT, typename processOutputType>
void fbgemmPacked(PackMatrix<packingAMatrix, uint8_t, typename packingAMatrix::accType>& packA,
                  const PackMatrix<packingBMatrix, int8_t, typename packingBMatrix::accType>& packB,
                  cT* C, int32_t* C_buffer, uint32_t ldc, const processOutputType& outProcess,
                  int thread_id, int num_threads,
                  const BlockingFactors* blocking_params = nullptr) {
  static_assert(std::is_same_v<typename packingAMatrix::accType, typename packingBMatrix::accType>,
                "A and B must be packed for the same accumulation (both int32_t, or both "
                "int16_t for acc16)");
  auto& A = static_cast<packingAMatrix&>(packA);
  const auto& B = static_cast<const packingBMatrix&>(packB);
  detail::PackedGemmCall call{};
  call.packer = &A;
  call.pack = &detail::pack_a_thunk<packingAMatrix>;
  if constexpr (requires(packingAMatrix& p, const block_type_t& b, int32_t** s) {
                  p.packDeferringRowOffsets(b, s);
                }) {
    call.pack_deferring_sums = &detail::pack_a_deferring_sums_thunk<packingAMatrix>;
    call.a_row_offsets = A.getRowOffsetBuffer();
  }
  call.a_rows = A.numRows();
  call.a_cols = A.numCols();
  call.a_groups = A.numGroups();
  call.a_block_rows = A.blockRowSize();
  call.a_block_cols = A.blockColSize();
  call.a_blocking = A.blockingFactors();
  call.b = &B.layout();
  call.b_data = B.panel(0, 0);
  call.b_pair_safe_limits = B.pairSafeLimits(0);
  call.acc = detail::accumulation_of<typename packingBMatrix::accType>();
  call.C = C;
  call.C_buffer = C_buffer;
  call.ldc = ldc;
  call.op = &outProcess;
  call.output = &detail::output_thunk<processOutputType, cT>;
  if constexpr (detail::RequantizesInKernel<processOutputType>)
    call.requantize_tile = &detail::requantize_tile_thunk<processOutputType>;
  call.op_reads_no_row_offsets = detail::ReadsNoRowOffsets<processOutputType>;
  call.thread_id = thread_id;
  call.num_threads = num_threads;
  call.blocking_params = blocking_params;
  detail::run_packed_gemm(call);
}

}  // namespace quire
QUIRE_API_END
