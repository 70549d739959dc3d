// The loop skeleton every micro-kernel shares (docs/kernel-contract.md):
//
//   for each of args->m_panels row panels:
//     zero the accumulators; row cursors at the panel's first row
//     [for each of k4_steps / U blocks of U steps: dot_block(); advance A and B U steps]
//     for each remaining 4-deep K step: dot_step(); advance A a_step_bytes(), B b_step
//     finish_accumulators(); store the tile (C = acc, or C += acc when args->accumulate)
//     next panel: A += a_panel_stride, C += mr rows
//   [column_slices: the above per slice; then B, C and the stage's columns move one slice on]
//
// A derived emitter supplies the accumulator layout, the dot-product step and the store.
#pragma once

#include <asmjit/x86.h>

#include <cstddef>

#include "cpu/isa_record.h"

namespace quire::jit {

class TileLoopEmitter {
 public:
  TileLoopEmitter(asmjit::x86::Assembler& a, int mr) : a_(a), mr_(mr) {}
  virtual ~TileLoopEmitter() = default;

  void emit();

 protected:
  using Gp = asmjit::x86::Gp;
  // General-purpose registers. kArgs stays live: the accumulate flag, the K step count
  // and the A panel stride are read from it. Up to four A row cursors cover mr <= 12
  // rows (3 rows per cursor: cursor, cursor + lda, cursor + 2 lda); the C row cursor of
  // the store phase reuses the first A cursor (dead by then), and kScratch (the K
  // counter) is free in the prologue.
  static constexpr Gp kArgs = asmjit::x86::rdi, kAPanel = asmjit::x86::rax,
                      kB = asmjit::x86::rsi, kC = asmjit::x86::rdx, kLda = asmjit::x86::r8,
                      kLda3 = asmjit::x86::r9, kBStep = asmjit::x86::r10,
                      kLdc = asmjit::x86::r11, kPanels = asmjit::x86::r12,
                      kKCount = asmjit::x86::r13, kScratch = asmjit::x86::r13,
                      kBCursor = asmjit::x86::r15, kCRow = asmjit::x86::r14;
  static constexpr Gp kACursors[4] = {asmjit::x86::r14, asmjit::x86::rbp, asmjit::x86::rbx,
                                      asmjit::x86::rcx};
  static constexpr int kMaxRows = 12;

  // Row r at the current K step (a dword operand).
  asmjit::x86::Mem row_operand(int r) const;
  static asmjit::x86::Mem arg(std::size_t offset) {
    return asmjit::x86::qword_ptr(kArgs, static_cast<int32_t>(offset));
  }

  // Bytes of an A row per 4-deep K step: 4, or 8 for A widened to 16 bits.
  virtual int a_step_bytes() const { return 4; }
  virtual void prologue_extra() {}            // masks, constants (after the arguments load)
  virtual void zero_accumulators() = 0;
  virtual void begin_k_loop() {}              // per row panel, after the cursors are set
  virtual void dot_step() = 0;                // one 4-deep K step
  // U = steps_per_block() > 1 (a power of two <= 8): dot_block() does U steps at once,
  // leaving the cursors where they were; finish_accumulators() folds its accumulators
  // into dot_step()'s before the store.
  virtual int steps_per_block() const { return 1; }
  virtual void dot_block() {}
  virtual void finish_accumulators() {}
  virtual void store_tile(bool accumulate) = 0;
  virtual void embed_data() {}                // constants placed after the code
  // Stack bytes the kernel needs; when nonzero, rsp is 64-byte aligned below the saved
  // registers and the caller's rsp is kept at [rsp] (set up before prologue_extra).
  virtual int frame_bytes() const { return 0; }
  // Columns per slice when the kernel walks args->n_slices column slices
  // (KernelSpec::column_slices), else 0. The slice loop keeps its state in 64 bytes of
  // frame after frame_bytes(): slice_slot(kSliceColumn) holds the slice's first column
  // relative to the call's (the output stage's prologue reads it).
  virtual int slice_columns() const { return 0; }
  // Whether the slices are whole spans of B panels (args->b_slice_stride apart).
  virtual bool slices_span_panels() const { return false; }
  static constexpr int kSliceColumn = 0, kSlicesLeft = 1, kSliceC = 2, kSliceInPanel = 3,
                       kPanelB = 4;
  int32_t slice_slot(int i) const { return frame_bytes() + 8 + 8 * i; }

  asmjit::x86::Assembler& a_;
  int mr_;

 private:
  int row_cursors() const { return (mr_ + 2) / 3; }
};

}  // namespace quire::jit
