// The per-ISA dispatch record: everything that differs between instruction sets is
// reached through one of these, chosen once, so no call site switches on the ISA.
#pragma once

#include <cstdint>

#include "quire/Types.h"

namespace quire::conv {
struct ConvKernels;  // convolution routines (im2col rows, depthwise, groupwise), src/conv
}  // namespace quire::conv

namespace quire::detail {

// The code paths quire has, lowest first. avx512_vnni_ymm runs the avx_vnni kernels
// (16 ymm registers, vpmaskmovd tails) with EVEX-encoded vpdpbusd, so it runs on every
// AVX512-VNNI CPU; it is how the avx_vnni logic is tested on CPUs without AVX-VNNI.
enum class Isa : uint8_t { portable, avx2, avx_vnni, avx512, avx512_vnni_ymm, avx512_vnni };

// One call of a u8 x s8 -> s32 micro-kernel: m_panels row panels of mr rows of the
// packed A block, times one nr-column slice of a packed B panel, over k4_steps steps of
// 4 K values. The layouts are specified in docs/kernel-contract.md.
struct MicroKernelArgs {
  const uint8_t* a;         // A block (row-major, rows lda bytes apart) at the first row/k
  const int8_t* b;          // B panel at the first k step and the slice's first column
  int32_t* c;               // C at the tile's top-left element
  int64_t k4_steps;         // number of 4-deep K steps (K block padded to 4)
  int64_t lda;              // bytes between rows of the A block (packed: KCB; in place: the caller's ld)
  int64_t a_panel_stride;   // bytes between consecutive row panels (mr * lda)
  int64_t b_step;           // bytes between k steps of the B panel (= 4 * panel columns)
  int64_t ldc_bytes;        // bytes between rows of C
  int64_t m_panels;         // number of A panels (row blocks of mr rows) to run
  int64_t accumulate;       // 0: C = A*B; otherwise C += A*B
  int32_t mr, nr;           // tile shape (read by the portable kernel; JIT kernels have it built in)
};
using MicroKernelFn = void (*)(const MicroKernelArgs*);

// Packs a rows x cols block of a uint8 matrix row-major into dst (rows ld_dst bytes
// apart), each row zero-padded to a multiple of 4 columns. Element (r, c) of the block is
// src[r * ld + c], or src[c * ld + r] when transposed. If row_sums is non-null, the sum
// of each row over the block's columns is written to it (added when accumulate_sums).
// With dst null only the row sums are computed (A not transposed).
using PackAFn = void (*)(const uint8_t* src, int64_t ld, bool transposed, int rows, int cols,
                         uint8_t* dst, int64_t ld_dst, int32_t* row_sums, bool accumulate_sums);

struct EpilogueTable;  // vectorized output-pipeline routines, see detail/Epilogue.h
struct QuantKernels;   // vectorized quantization routines, see detail/QuantKernels.h
struct SpmdmKernels;   // CompressedSparseColumn::SpMDM's loops, see detail/SpmdmKernels.h

struct IsaRecord {
  Isa isa;
  inst_set_t inst_set;
  const char* name;
  int int32_lanes;            // int32 lanes per vector register
  BlockingFactors blocking;   // default blocking factors
  MicroKernelFn (*kernel)(int mr, int nr);  // kernel for an mr x nr tile (cached)
  // acc16 (docs/acc16.md): the saturating int16-accumulation kernels and their blocking.
  // Null on paths whose acc16 runs the exact kernels above (VNNI: as fast; portable).
  MicroKernelFn (*acc16_kernel)(int mr, int nr);
  BlockingFactors blocking_acc16;
  // Kernel packing several rows per vector for 3 <= nr <= 8 columns and tiles of up to
  // narrow_rows rows; null on paths without one.
  MicroKernelFn (*narrow_kernel)(int mr, int nr);
  int narrow_rows;
  MicroKernelFn (*acc16_narrow_kernel)(int mr, int nr);  // its acc16 form, where acc16 saturates
  PackAFn pack_a;
  const EpilogueTable* epilogue;
  const QuantKernels* quant;
  const conv::ConvKernels* conv;
  const SpmdmKernels* spmdm;
};

// The record in use: the best path the CPU has, or the forced one (QUIRE_ISA or
// fbgemmForceIsa). Cheap to call: one atomic load.
const IsaRecord& active_isa();

// The record of a given path; throws std::invalid_argument if the CPU lacks it.
const IsaRecord& isa_record(Isa isa);

// The output-pipeline routines for an instruction set named in a template argument:
// that ISA's if the CPU has it, else the best the CPU has below it.
const EpilogueTable& epilogue_for(inst_set_t inst_set);

// Maps FBGEMM's instruction-set names onto quire's paths.
Isa isa_from_inst_set(inst_set_t inst_set);

}  // namespace quire::detail
