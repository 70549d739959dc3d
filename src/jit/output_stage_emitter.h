// Emits a column kernel's requantizing output stage (cpu/output_stage.h): the finished
// accumulators become uint8 (or float) in registers and are stored once, instead of
// being stored as int32 and read back by the tile epilogue.
//
// Once per call (prologue), the slice's per-column operands are formed into vectors in a
// stack frame: the column term bias_i32 - a_zero_point * col_offsets (which then starts
// every accumulator instead of zero), the b zero points, the multipliers and the float
// bias bias_f32 / act_times_w_scale; the last vector is masked when nr is not a multiple
// of the vector width, so nothing past the slice is read. Per row panel (store), each row
// forms its row term once; each accumulator then takes the row term, vcvtdq2ps, the
// float bias, the multiplier, the upper bound, vcvtps2dq and the zero point, with the
// column operands as memory operands from the frame. The lower bounds come from the
// unsigned saturation of the packs to bytes and a vpmaxub with the floor: on zmm paths
// one row's vectors are packed together and stored with one (masked) store; on ymm paths
// (AVX2 instructions only) each vector is packed and stored on its own. To float: the
// row term, vcvtdq2ps, the scale a_scale * b_scale, the bias, ReLU, one (masked) store.
#pragma once

#include <asmjit/x86.h>

#include <functional>

#include "cpu/output_stage.h"

namespace quire::jit {

class OutputStageEmitter {
 public:
  // zmm: 16 int32 lanes, opmask k1 holds the tail mask; ymm: 8 lanes, AVX2 instructions
  // only (tail loads through vpmaskmovd with the mask table at mask_table). tail: nr % lanes.
  // t, t2: two vector registers the stage may clobber during store (below ymm16 on ymm).
  struct Layout {
    bool zmm;
    int mr, nv, tail;
    asmjit::x86::Vec t, t2;
    asmjit::Label mask_table;
    // Whether the accumulators may start at the column term (not under acc16, whose
    // accumulators hold two saturating int16 sums until after the K loop, nor sx_b, whose
    // lanes hold half columns until the fold).
    bool start_at_column_term;
    // Narrow kernels: rows per vector (1: a column kernel; else nv = 1, tail = nr, k1
    // holds the nr lanes during prologue), and per row slot i the opmask of its nr lanes.
    int rows_per_vector = 1;
    std::array<asmjit::x86::KReg, 4> row_lanes{};
    // Column kernels walking column slices (KernelSpec::column_slices): the rsp offset of
    // the slice's first column relative to the call's (an int64), which moves the output
    // and the per-column operands the prologue reads; -1 otherwise.
    int32_t slice_column_slot = -1;
  };

  OutputStageEmitter(asmjit::x86::Assembler& a, const detail::OutputStage& stage, const Layout& l)
      : a_(a), s_(stage), l_(l), pack_order_(a.newLabel()) {}

  // Stack bytes the stage needs below the saved registers (with 64 bytes of alignment).
  static constexpr int kFrameBytes = 1408;

  // In the kernel prologue, after rsp is 64-byte aligned by the caller's frame and the
  // original rsp saved at [rsp]: the cursors, the constants and the column vectors. Uses
  // vector registers 0-3, r14 and rbx (set again by the loops), and k2 on zmm paths.
  void prologue(const asmjit::x86::Gp& args);
  // Constants placed after the kernel's code (the zmm pack order).
  void embed_data();
  // Whether the accumulators start at a column term: init_accumulators replaces the zeroing.
  bool starts_at_column_term() const;
  // Before a panel's K loop: every accumulator starts at its column's term.
  void init_accumulators(const std::function<asmjit::x86::Vec(int, int)>& acc);
  // After a panel's K loop (and after any C was added to the accumulators): requantizes
  // acc(r, v) for r < mr, v < nv, stores the bytes and advances the panel cursors. Uses
  // rbx, rbp, rcx, r13, r14, r15 (all free after the K loop).
  void store(const asmjit::x86::Gp& args, const std::function<asmjit::x86::Vec(int, int)>& acc);
  // The same for a narrow tile, acc(v) its vectors; sums(v), if given, holds each lane's
  // row sum (the kernel's row_sums), else they are read from row_offsets. Uses t, t2 and
  // k6 (when nr = np).
  void store_narrow(const asmjit::x86::Gp& args, const std::function<asmjit::x86::Vec(int)>& acc,
                    const std::function<asmjit::x86::Vec(int)>& sums);

 private:
  asmjit::x86::Mem vec_at(const asmjit::x86::Gp& base, int32_t disp) const;
  asmjit::x86::Vec reg(int i) const;
  void store_vec(const asmjit::x86::Mem& dst, const asmjit::x86::Vec& src);
  bool has_column_term() const;
  // dst = the v-th vector of the per-column array whose pointer is the stage args' field
  // at `field`; the tail vector masked (zeros past nr). mask: ymm tails' vpmaskmovd mask.
  void load_lanes(const asmjit::x86::Vec& dst, size_t field, int v, const asmjit::x86::Vec& mask);
  // dst = the scalar at the pointer in the stage args' field, in every lane.
  void broadcast_scalar(const asmjit::x86::Vec& dst, size_t field, bool is_float);
  void store_row_zmm(const std::function<asmjit::x86::Vec(int, int)>& acc, int r);
  void store_vector_ymm(const asmjit::x86::Vec& x, int v);
  void store_floats(const asmjit::x86::Vec& x, int v);
  int row_bytes() const { return l_.tail != 0 ? (l_.nv - 1) * 16 + l_.tail : l_.nv * 16; }
  bool narrow() const { return l_.rows_per_vector > 1; }
  int narrow_vectors() const { return (l_.mr + l_.rows_per_vector - 1) / l_.rows_per_vector; }
  // The panel's cursors (store's first step) and their advance past its mr rows (last).
  void begin_store(const asmjit::x86::Gp& args);
  void end_store();
  // Narrow: x's row term, the rows' offsets times their b zero points, subtracted.
  void subtract_narrow_row_term(const asmjit::x86::Vec& x, int first, int rows);
  void requantize_vector(const asmjit::x86::Vec& x);

  asmjit::x86::Assembler& a_;
  detail::OutputStage s_;
  Layout l_;
  asmjit::Label pack_order_;
  asmjit::Label lane_rows_ = a_.newLabel();  // narrow: each lane's row within its vector
};

}  // namespace quire::jit
