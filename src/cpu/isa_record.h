// The per-ISA dispatch record: everything that differs between instruction sets is
// reached through one of these, chosen once per call and handed down, so no call site
// switches on the ISA. Private to the library (src/): public headers see none of it.
// The facts about each path (registers, VNNI, capability bits...) are in isa_traits.h;
// a record holds the routines and tile sizes of each operator on that path.
#pragma once

#include <cstdint>

#include "isa_traits.h"  // same folder: tests include this header by path
#include "output_stage.h"
#include "quire/Types.h"

namespace quire::conv {
struct ConvKernels;  // convolution routines (im2col rows, depthwise, groupwise), src/conv
}  // namespace quire::conv

namespace quire::jit {
struct KernelSpec;  // what names a micro-kernel, src/jit/kernel_spec.h
}  // namespace quire::jit

namespace quire::detail::i64 {
struct Kernel;  // the int64 GEMM's micro-kernel, src/i64/gemm_i64.h
}  // namespace quire::detail::i64

namespace quire::int4 {
struct Int4Kernels;  // int4Gemm's kernels, src/int4/int4_kernels.h
}  // namespace quire::int4

namespace quire::detail {

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
  const OutputStageArgs* stage;  // kernels generated with a requantizing OutputStage only
  int32_t* row_sums;        // narrow kernels generated with row_sums: each row's A sum, out
  int64_t b_panel_stride;   // kernels spanning B panels (KernelSpec::panel_vectors) or walking
                            // column slices (column_slices): bytes between B panels
  int64_t n_slices;         // column_slices kernels: slices of nr columns to walk (>= 1)
  int64_t slices_per_panel; // column_slices kernels: slices in one B panel (panel width / nr)
  int64_t b_slice_stride;   // column_slices kernels spanning panels: bytes from a slice's
                            // first panel to the next slice's
};
using MicroKernelFn = void (*)(const MicroKernelArgs*);

// Packs a rows x cols block of a uint8 matrix row-major into dst (rows ld_dst bytes
// apart), each row zero-padded to a multiple of 4 columns. Element (r, c) of the block is
// src[r * ld + c], or src[c * ld + r] when transposed. If row_sums is non-null, the sum
// of each row over the block's columns is written to it (added when accumulate_sums).
// With dst null only the row sums are computed (A not transposed).
using PackAFn = void (*)(const uint8_t* src, int64_t ld, bool transposed, int rows, int cols,
                         uint8_t* dst, int64_t ld_dst, int32_t* row_sums, bool accumulate_sums);

// Widens rows x (4 * k4_steps) bytes of an A block (rows lda bytes apart) to 16 bits for
// the exact kernels that read A widened (jit::KernelSpec::wide_a): row r at
// dst + r * ld_dst, K step t at its 4 * t-th element as a0, a2, a1, a3.
using WidenAFn = void (*)(const uint8_t* a, int64_t lda, int rows, int k4_steps, uint16_t* dst,
                          int64_t ld_dst);

struct EpilogueTable;   // vectorized output-pipeline routines, src/epilogue/epilogue_table.h
struct QuantKernels;    // vectorized quantization routines, src/quant/quant_kernels.h
struct SpmdmKernels;    // CompressedSparseColumn::SpMDM's loops, src/sparse/spmdm_table.h
struct HalfKernelSet;   // fp16/bf16/fp32-weight GEMM kernels, src/fp16/half_kernels.h
struct ConvertKernels;  // fp32 <-> fp16/bf16 conversion loops, src/fp16/convert_kernels.h
struct EmbeddingKernels;  // embedding-bag loops, src/embedding/embedding_kernels.h
struct TransposeKernels;  // transpose_simd's, src/common/transpose.h
struct AdagradKernels;    // sparse AdaGrad loops, src/embedding/adagrad_kernels.h
struct PairCorrectionKernels;  // the pair-safe kernels' sparse correction, src/driver/pair_correction.h

// The kernel a spec names (src/jit/kernel_spec.h: tile, column or narrow form, acc16,
// pair-safe, A widened, output stage, row sums), or null where the path has none of that
// spec. Every kernel variant the int8 GEMM runs is asked for here: on JIT paths this is
// jit::kernel itself, on the portable path the portable kernel (int32 store only).
using KernelGetter = MicroKernelFn (*)(const jit::KernelSpec& spec);

// The packed-weight GEMM's kernels on a path (fp16, bf16 and fp32 weights); bf16_dot
// (vdpbf16ps) is used instead of bf16 when the CPU also has kCapAvx512Bf16.
struct HalfKernels {
  const HalfKernelSet* fp16;
  const HalfKernelSet* bf16;
  const HalfKernelSet* bf16_dot;  // read only where traits().bf16_dot; else null
  const HalfKernelSet* fp32;
};

struct IsaRecord {
  Isa isa;
  BlockingFactors blocking;        // default blocking factors
  BlockingFactors blocking_acc16;  // acc16's (docs/acc16.md): its KCB is the int16 window
  KernelGetter kernel;             // cached: the same spec gives the same function
  PackAFn pack_a;
  // avx2, avx512 (no VNNI): widens an A block for the exact kernels that read it so;
  // null elsewhere.
  WidenAFn widen_a;
  // avx2: the same block in linear order (a0, a1, a2, a3 per K step) for the exact
  // kernels that sign-extend B per step (jit::KernelSpec::sx_b), which the driver runs
  // instead of widen_a's there; null elsewhere.
  WidenAFn widen_a_linear;
  const EpilogueTable* epilogue;
  const QuantKernels* quant;
  const conv::ConvKernels* conv;
  const SpmdmKernels* spmdm;
  HalfKernels half;
  const ConvertKernels* convert;  // null on the portable path (scalar loops)
  const int4::Int4Kernels* int4;
  const EmbeddingKernels* embedding;
  const TransposeKernels* transpose;  // null on the portable path (a blocked loop)
  const i64::Kernel* i64;             // cblas_gemm_i64_i64acc's
  const AdagradKernels* adagrad;
  // Paths with pair-safe kernels (avx2, avx512): the correction that lets them run on
  // panels with a few unsafe pairs; null elsewhere.
  const PairCorrectionKernels* pair_correction;

  constexpr const IsaTraits& traits() const { return detail::traits(isa); }
};

// The record in use: the best path the CPU has, or the forced one (QUIRE_ISA or
// fbgemmForceIsa). Cheap to call: one atomic load. Entry points read it once per call
// and hand it (or the operator's part of it) down.
const IsaRecord& active_isa();

// The record of a given path; throws std::invalid_argument if the CPU lacks it.
const IsaRecord& isa_record(Isa isa);

// The record of a path named by inst_set_t: that path's if the CPU has it, else the best
// the CPU has below it (as epilogue_for picks). For a path chosen earlier (an output op's
// template argument, a packer's packingPath()), no strings, no throw: cheap per block.
const IsaRecord& record_at_or_below(inst_set_t inst_set);

}  // namespace quire::detail
