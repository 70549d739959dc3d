// What names a generated micro-kernel: the key of the code cache and the generators' input.
#pragma once

#include <cstdint>

#include "../cpu/isa_traits.h"  // relative: tests include this header by path
#include "../cpu/output_stage.h"

namespace quire::jit {

struct KernelSpec {
  detail::Isa isa;
  int mr;               // rows of the register tile
  int nr;               // columns of the register tile (the last vector is masked if nr % lanes != 0)
  bool narrow = false;  // rows packed several per vector (narrow_generator.cpp)
  bool acc16 = false;   // saturating int16 accumulation (avx2, avx512; docs/acc16.md)
  // For pair-safe B panels only (avx2, avx512; docs/kernel-contract.md, "Pair-safe B
  // panels"): the exact 3-instruction vpmaddubsw step instead of the even/odd split.
  bool pair_safe = false;
  // What the kernel does with the finished accumulators: store int32 (the default), or
  // requantize to uint8 or float in registers (cpu/output_stage.h).
  detail::OutputStage stage{};
  // Narrow kernels on VNNI paths: the sum of each row's A bytes over the K block, formed
  // by vpdpbusd with ones beside the product, written to args->row_sums (one int32 per
  // row); a stage's row term then takes them from registers. The driver uses it to skip
  // the A packer's row-sum pass (docs/kernel-contract.md).
  bool row_sums = false;
  // Exact column kernels of avx2 and avx512 only (docs/kernel-contract.md, "A widened
  // once per block"): A arrives widened to 16-bit even/odd pairs, 8 bytes per K step.
  bool wide_a = false;
  // avx2 column kernels on A widened in linear order (widen_a_linear, with wide_a): B is
  // sign-extended to 16 bits per step, four columns per vector (vpmovsxbw), with no
  // split; each int32 lane sums half a column's step and the halves are added after the
  // K loop (docs/kernel-contract.md, "B sign-extended per step"). Tiles up to 6 x 8 and
  // 2 x 16 (the register file).
  bool sx_b = false;
  // Small-M column kernels (KernelSet::panels): the tile spans consecutive B panels of
  // panel_vectors vectors each, args->b_panel_stride bytes apart; vector v of a row is
  // vector v % panel_vectors of panel v / panel_vectors (at most 4 panels, no output
  // stage): pair-safe tiles of 1-3 rows, B read from memory by vpmaddubsw, and avx2's
  // sx_b tiles of 1 row, each B group sign-extended just before its use. 0: the tile
  // lies in one panel.
  int panel_vectors = 0;
  // Column kernels that walk args->n_slices column slices of nr columns each (nr a
  // multiple of the vector width) in one call, every slice the whole tile loop: slice s
  // reads B at b + (s / slices_per_panel) * b_panel_stride + (s % slices_per_panel) * 4 * nr,
  // writes C and the stage's output s * nr columns right, and takes the stage's
  // per-column operands s * nr columns on (docs/kernel-contract.md, "Column slices in
  // one call"). Tiles spanning panels (panel_vectors) walk whole spans: slice s reads
  // B at b + s * b_slice_stride. Saves the driver's work and the call per slice.
  bool column_slices = false;
};

// Every field of the spec in one word, so equal keys name the same kernel: the key of
// the process-wide code cache and of each call's KernelSet (src/driver/driver.h). Bits
// 62-63 are never set, so ~0 is no spec's key; panel_vectors takes bits 57-59 (0-7).
constexpr uint64_t spec_key(const KernelSpec& spec) {
  return (uint64_t{spec.column_slices} << 61) | (uint64_t{spec.row_sums} << 60) |
         (uint64_t(spec.panel_vectors & 7) << 57) |
         (uint64_t{spec.sx_b} << 56) |
         (uint64_t{spec.wide_a} << 55) |
         (uint64_t{spec.stage.code()} << 43) | (uint64_t{spec.pair_safe} << 42) |
         (uint64_t{spec.acc16} << 41) | (uint64_t{spec.narrow} << 40) |
         (uint64_t{static_cast<uint8_t>(spec.isa)} << 32) |
         (uint64_t(static_cast<uint16_t>(spec.mr)) << 16) | static_cast<uint16_t>(spec.nr);
}

}  // namespace quire::jit
