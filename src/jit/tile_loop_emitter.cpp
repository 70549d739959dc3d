#include "jit/tile_loop_emitter.h"

namespace quire::jit {

using namespace asmjit;
using detail::MicroKernelArgs;

x86::Mem TileLoopEmitter::row_operand(int r) const {
  const x86::Gp cursor = kACursors[r / 3];
  return r % 3 == 0 ? x86::dword_ptr(cursor) : x86::dword_ptr(cursor, kLda, r % 3 == 1 ? 0 : 1);
}

void TileLoopEmitter::emit() {
  for (const x86::Gp& r : {x86::rbx, x86::rbp, x86::r12, x86::r13, x86::r14, x86::r15}) a_.push(r);
  const int slice = slice_columns();
  // The frame: the derived emitter's, then the slice loop's 64 bytes; [rsp] keeps the
  // caller's rsp.
  const int frame = frame_bytes() + (slice > 0 ? 64 : 0);
  if (frame > 0) {
    a_.mov(kScratch, x86::rsp);
    a_.sub(x86::rsp, frame);
    a_.and_(x86::rsp, -64);
    a_.mov(x86::qword_ptr(x86::rsp), kScratch);
  }
  const auto slot = [this](int i) { return x86::qword_ptr(x86::rsp, slice_slot(i)); };
  a_.mov(kAPanel, arg(offsetof(MicroKernelArgs, a)));
  a_.mov(kB, arg(offsetof(MicroKernelArgs, b)));
  a_.mov(kC, arg(offsetof(MicroKernelArgs, c)));
  a_.mov(kLda, arg(offsetof(MicroKernelArgs, lda)));
  a_.lea(kLda3, x86::ptr(kLda, kLda, 1));  // 3 * lda: distance between row cursors
  a_.mov(kBStep, arg(offsetof(MicroKernelArgs, b_step)));
  a_.mov(kLdc, arg(offsetof(MicroKernelArgs, ldc_bytes)));
  a_.mov(kPanels, arg(offsetof(MicroKernelArgs, m_panels)));
  Label slice_loop = a_.newLabel(), slices_done = a_.newLabel();
  if (slice > 0) {
    a_.mov(kScratch, arg(offsetof(MicroKernelArgs, n_slices)));
    a_.mov(slot(kSlicesLeft), kScratch);
    a_.mov(slot(kSliceColumn), 0);
    a_.mov(slot(kSliceInPanel), 0);
    a_.mov(slot(kSliceC), kC);
    a_.mov(slot(kPanelB), kB);
    a_.bind(slice_loop);
  }
  prologue_extra();

  Label panel_loop = a_.newLabel(), k_loop = a_.newLabel(), k_done = a_.newLabel();
  Label store_only = a_.newLabel(), next_panel = a_.newLabel();
  a_.bind(panel_loop);
  zero_accumulators();
  for (int q = 0; q < row_cursors(); ++q) {
    if (q == 0) a_.mov(kACursors[0], kAPanel);
    else a_.lea(kACursors[q], x86::ptr(kACursors[q - 1], kLda3));
  }
  a_.mov(kBCursor, kB);
  begin_k_loop();
  a_.mov(kKCount, arg(offsetof(MicroKernelArgs, k4_steps)));
  if (const int u = steps_per_block(); u > 1) {
    Label block_loop = a_.newLabel(), blocks_done = a_.newLabel();
    const uint32_t log2u = u == 2 ? 1 : u == 4 ? 2 : 3;
    a_.shr(kKCount, log2u);
    a_.jz(blocks_done);
    a_.bind(block_loop);
    dot_block();
    for (int q = 0; q < row_cursors(); ++q) a_.add(kACursors[q], a_step_bytes() * u);
    a_.lea(kBCursor, x86::ptr(kBCursor, kBStep, log2u));
    a_.dec(kKCount);
    a_.jnz(block_loop);
    a_.bind(blocks_done);
    a_.mov(kKCount, arg(offsetof(MicroKernelArgs, k4_steps)));
    a_.and_(kKCount, u - 1);
  }
  a_.test(kKCount, kKCount);
  a_.jz(k_done);
  a_.bind(k_loop);
  dot_step();
  for (int q = 0; q < row_cursors(); ++q) a_.add(kACursors[q], a_step_bytes());
  a_.add(kBCursor, kBStep);
  a_.dec(kKCount);
  a_.jnz(k_loop);
  a_.bind(k_done);
  finish_accumulators();

  // C = acc, or C += acc when args->accumulate (later K blocks).
  a_.cmp(arg(offsetof(MicroKernelArgs, accumulate)), 0);
  a_.je(store_only);
  store_tile(true);
  a_.jmp(next_panel);
  a_.bind(store_only);
  store_tile(false);

  a_.bind(next_panel);
  a_.add(kAPanel, arg(offsetof(MicroKernelArgs, a_panel_stride)));
  for (int r = 0; r < mr_; ++r) a_.add(kC, kLdc);
  a_.dec(kPanels);
  a_.jnz(panel_loop);

  if (slice > 0) {
    // The next slice: the same A panels; B slice columns on in its panel, or the next
    // panel's start; C (and the stage's columns, through kSliceColumn) slice columns on.
    Label next_panel_b = a_.newLabel(), b_set = a_.newLabel();
    a_.dec(slot(kSlicesLeft));
    a_.jz(slices_done);
    a_.add(slot(kSliceColumn), slice);
    a_.mov(kC, slot(kSliceC));
    a_.add(kC, slice * 4);
    a_.mov(slot(kSliceC), kC);
    if (slices_span_panels()) {
      a_.add(kB, arg(offsetof(MicroKernelArgs, b_slice_stride)));
      a_.jmp(b_set);
    }
    a_.inc(slot(kSliceInPanel));
    a_.mov(kScratch, slot(kSliceInPanel));
    a_.cmp(kScratch, arg(offsetof(MicroKernelArgs, slices_per_panel)));
    a_.je(next_panel_b);
    a_.add(kB, slice * 4);
    a_.jmp(b_set);
    a_.bind(next_panel_b);
    a_.mov(slot(kSliceInPanel), 0);
    a_.mov(kB, slot(kPanelB));
    a_.add(kB, arg(offsetof(MicroKernelArgs, b_panel_stride)));
    a_.mov(slot(kPanelB), kB);
    a_.bind(b_set);
    a_.mov(kAPanel, arg(offsetof(MicroKernelArgs, a)));
    a_.mov(kPanels, arg(offsetof(MicroKernelArgs, m_panels)));
    a_.jmp(slice_loop);
    a_.bind(slices_done);
  }

  if (frame > 0) a_.mov(x86::rsp, x86::qword_ptr(x86::rsp));
  a_.vzeroupper();
  for (const x86::Gp& r : {x86::r15, x86::r14, x86::r13, x86::r12, x86::rbp, x86::rbx}) a_.pop(r);
  a_.ret();
  embed_data();
}

}  // namespace quire::jit
