// fbgemmPacked: the five cache-blocked loops around the micro-kernel (BLIS-style), with
// the output pipeline applied to each tile right after its last K block.
//
//   ic over M in MCB blocks           (this thread's rows)
//     g over groups
//       pc over K in KCB blocks       pack A(ic, g, pc) (or read it in place) + row sums
//         jc over N in NCB blocks     (this thread's columns)
//           jr over NR, ir over MR    compute_block -> micro-kernel
//           last pc: outProcess.f on the MCB x NCB tile, hot in cache
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "quire/PackMatrix.h"
#include "quire/detail/Blocking.h"
#include "quire/detail/Driver.h"
#include "quire/detail/PackA.h"

namespace quire {
namespace detail {

// The one place the run-time ISA becomes the output op's template argument. The tile is
// mutable: an op may add to it in place (DoSpmdmOnInpBuffer).
template <typename OutOp, typename cT>
void run_output(const OutOp& op, inst_set_t isa, cT* C, int32_t* tile,
                const block_type_t& block, int ldc) {
  switch (isa) {
    case inst_set_t::avx512_vnni: op.template f<inst_set_t::avx512_vnni>(C, tile, block, ldc, ldc); break;
    case inst_set_t::avx512_vnni_ymm: op.template f<inst_set_t::avx512_vnni_ymm>(C, tile, block, ldc, ldc); break;
    case inst_set_t::avx512:
    case inst_set_t::avx512_ymm: op.template f<inst_set_t::avx512>(C, tile, block, ldc, ldc); break;
    case inst_set_t::avx_vnni: op.template f<inst_set_t::avx_vnni>(C, tile, block, ldc, ldc); break;
    case inst_set_t::avx2: op.template f<inst_set_t::avx2>(C, tile, block, ldc, ldc); break;
    case inst_set_t::anyarch:
    case inst_set_t::sve:  // never active: quire has no Arm path
      op.template f<inst_set_t::anyarch>(C, tile, block, ldc, ldc); break;
  }
}

}  // namespace detail

// C (M x ldc) = outProcess(A * B) for this thread's share of the output. With A and B
// packed for acc16 (accT = int16_t) the product is computed as docs/acc16.md specifies. Call it once per
// thread with the same arguments and thread_id = 0 .. num_threads - 1; together the calls
// cover C. packA is this thread's own packer; packB is shared and read-only. C_buffer is
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
  constexpr detail::Accumulation acc = detail::accumulation_of<typename packingBMatrix::accType>();
  auto& A = static_cast<packingAMatrix&>(packA);
  const auto& B = static_cast<const packingBMatrix&>(packB);
  const BlockingFactors& a_blocking = A.blockingFactors();
  const detail::GemmShape s =
      detail::check_gemm(A.numRows(), A.numCols(), A.numGroups(), B.layout(), C, C_buffer, ldc,
                         thread_id, num_threads, a_blocking, blocking_params);
  if (s.M == 0 || s.N == 0 || s.K == 0) return;  // nothing to compute or write
  const BlockingFactors bf =
      blocking_params ? detail::resolve_blocking(blocking_params, "fbgemmPacked", acc) : a_blocking;
  const detail::IsaRecord& isa = detail::active_isa();
  const detail::ThreadTile tile =
      detail::partition_tiles(s.M, s.N, bf.MR, B.layout().panel_width, thread_id, num_threads);
  detail::KernelSet kernels(isa, bf.MR, bf.NR, acc);
  const int64_t ld = ldc;

  for (int32_t ic = tile.m0; ic < tile.m1; ic += bf.MCB) {
    const int mc = std::min(bf.MCB, tile.m1 - ic);
    for (int g = 0; g < s.groups; ++g) {
      for (int32_t k0 = 0; k0 < s.K; k0 += bf.KCB) {
        const int kc = std::min(bf.KCB, s.K - k0);
        const detail::ABlockView a_block = A.pack(block_type_t{ic, mc, g * s.K + k0, kc});
        const bool last_k_block = k0 + kc == s.K;
        for (int32_t jc = tile.n0; jc < tile.n1; jc += bf.NCB) {
          const int nc = std::min(bf.NCB, tile.n1 - jc);
          const int32_t col = g * s.N + jc;
          int32_t* c_tile = C_buffer + ic * ld + col;
          detail::compute_block(kernels, a_block.data, a_block.ld, mc, B.layout(), B.panel(g, 0),
                                k0, kc, jc, nc, c_tile, ld, k0 > 0);
          if (last_k_block) {
            detail::run_output(outProcess, detail::inst_set_of(isa), C, c_tile, block_type_t{ic, mc, col, nc},
                               static_cast<int>(ldc));
          }
        }
      }
    }
  }
}

}  // namespace quire
