// The 4-deep dot-product step of every JIT kernel, written once for the column kernels
// (kernel_generator.cpp) and the narrow kernels (narrow_generator.cpp). In each int32
// lane a step multiplies 4 unsigned bytes of A by 4 signed bytes of B and adds the four
// products to an accumulator. The styles (docs/kernel-contract.md):
//   vnni       acc += vpdpbusd(A, B)                                        exact
//   exact      A and B split into even and odd bytes in 16-bit lanes,
//              acc += vpmaddwd(A even, B even) + vpmaddwd(A odd, B odd)      exact
//   exact_wide the same product with A widened once per block by the driver: the
//              even and odd pairs are two broadcasts, no split           exact
//   exact_sxb  A widened in linear order, one qword broadcast; B sign-extended to 16
//              bits (4 columns per vector), acc += vpmaddwd(A, B): each lane holds
//              a0 b0 + a1 b1 or a2 b2 + a3 b3 of one column, folded after the K loop
//   pair_safe  acc += vpmaddwd(vpmaddubsw(A, B), ones)      exact on pair-safe B panels
//   acc16      acc = vpaddsw(acc, vpmaddubsw(A, B)), after the K loop
//              acc = vpmaddwd(acc, ones)                  saturating (docs/acc16.md)
// The emitter owns no register: the caller's register map names every one.
#pragma once

#include <asmjit/x86.h>

#include "jit/kernel_spec.h"

namespace quire::jit {

enum class DotStyle { vnni, exact, exact_wide, exact_sxb, pair_safe, acc16 };

DotStyle dot_style(const KernelSpec& spec);

// One multiplicand of a step. exact, exact_wide: the even bytes in `lo`, the odd ones in
// `hi`, each widened to 16-bit lanes; the other styles: the raw bytes in `lo` (== hi).
struct DotOperand {
  asmjit::x86::Vec lo, hi;
};

// Registers the step uses besides its operands and the accumulators:
//   a_even, a_odd  exact, exact_wide: the halves of A (exact: a_odd may be the register A
//                  was loaded into)
//   product        every style but vnni
//   constant       exact: 0x00ff in every 16-bit lane; pair_safe: 1 in every 16-bit lane
struct DotRegs {
  asmjit::x86::Vec a_even, a_odd, product, constant;
};

class DotEmitter {
 public:
  DotEmitter(asmjit::x86::Assembler& a, detail::Isa isa, DotStyle style, bool zmm, DotRegs regs)
      : a_(a), isa_(isa), style_(style), zmm_(zmm), regs_(regs) {}

  DotStyle style() const { return style_; }
  // Whether B is split into even and odd halves (two registers per B vector).
  bool splits_b() const { return style_ == DotStyle::exact || style_ == DotStyle::exact_wide; }

  // Kernel prologue: the style's constant, if it has one.
  void load_constant();
  // Every 16-bit lane of v = 0xffff >> shift (8: the byte mask, 15: ones).
  void word_constant(const asmjit::x86::Vec& v, int shift);

  // B of one step: the caller loads the raw bytes into b_load(b, b_odd), then
  // split_b(b, b_odd) returns the operand (exact: b = even half, b_odd = odd half).
  asmjit::x86::Vec b_load(const asmjit::x86::Vec& b, const asmjit::x86::Vec& b_odd) const {
    return splits_b() ? b_odd : b;
  }
  DotOperand split_b(const asmjit::x86::Vec& b, const asmjit::x86::Vec& b_odd);
  // A of one step, raw bytes in src (exact: split into regs.a_even / regs.a_odd).
  DotOperand split_a(const asmjit::x86::Vec& src);
  // exact_wide: A of one step from the widened block, its even pair at `even` and its
  // odd pair 4 bytes after, broadcast into regs.a_even / regs.a_odd.
  DotOperand load_wide_a(const asmjit::x86::Mem& even);
  // exact_sxb: A of one step, its four 16-bit values at `step`, into regs.a_odd.
  DotOperand load_linear_a(const asmjit::x86::Mem& step);

  void multiply_add(const asmjit::x86::Vec& acc, const DotOperand& a, const DotOperand& b);
  // pair_safe, acc16: the same with B's raw bytes read from memory by vpmaddubsw (its
  // signed operand), for tiles that keep no B registers (KernelSpec::panel_vectors).
  void multiply_add(const asmjit::x86::Vec& acc, const DotOperand& a, const asmjit::x86::Mem& b);

  // acc16, after the K loop: each int32 lane = its low int16 sum + its high one (exact).
  // `ones` holds word_constant(ones, 15).
  void fold_halves(const asmjit::x86::Vec& acc, const asmjit::x86::Vec& ones);

 private:
  asmjit::x86::Assembler& a_;
  detail::Isa isa_;
  DotStyle style_;
  bool zmm_;
  DotRegs regs_;
};

}  // namespace quire::jit
