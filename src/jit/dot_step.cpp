#include "jit/dot_step.h"

namespace quire::jit {

using namespace asmjit;

DotStyle dot_style(const KernelSpec& s) {
  if (s.acc16) return DotStyle::acc16;
  if (detail::traits(s.isa).vnni) return DotStyle::vnni;
  if (s.pair_safe) return DotStyle::pair_safe;
  if (s.sx_b) return DotStyle::exact_sxb;
  return s.wide_a ? DotStyle::exact_wide : DotStyle::exact;
}

void DotEmitter::word_constant(const x86::Vec& v, int shift) {
  if (zmm_) a_.vpternlogd(v, v, v, 0xff);
  else a_.vpcmpeqd(v, v, v);
  a_.vpsrlw(v, v, shift);
}

void DotEmitter::load_constant() {
  if (style_ == DotStyle::exact) word_constant(regs_.constant, 8);
  else if (style_ == DotStyle::pair_safe) word_constant(regs_.constant, 15);
}

DotOperand DotEmitter::split_b(const x86::Vec& b, const x86::Vec& b_odd) {
  if (!splits_b()) return {b, b};
  // Signed bytes to 16 bits: even = (raw << 8) >>arith 8, odd = raw >>arith 8.
  a_.vpsllw(b, b_odd, 8);
  a_.vpsraw(b, b, 8);
  a_.vpsraw(b_odd, b_odd, 8);
  return {b, b_odd};
}

DotOperand DotEmitter::split_a(const x86::Vec& src) {
  if (style_ != DotStyle::exact) return {src, src};
  // Unsigned bytes to 16 bits: even = raw & 0x00ff, odd = raw >>logical 8.
  if (zmm_) a_.vpandd(regs_.a_even, src, regs_.constant);
  else a_.vpand(regs_.a_even, src, regs_.constant);
  a_.vpsrlw(regs_.a_odd, src, 8);
  return {regs_.a_even, regs_.a_odd};
}

DotOperand DotEmitter::load_wide_a(const x86::Mem& even) {
  x86::Mem odd = even;
  odd.addOffset(4);
  a_.vpbroadcastd(regs_.a_even, even);
  a_.vpbroadcastd(regs_.a_odd, odd);
  return {regs_.a_even, regs_.a_odd};
}

DotOperand DotEmitter::load_linear_a(const x86::Mem& step) {
  x86::Mem q = step;
  q.setSize(8);
  a_.vpbroadcastq(regs_.a_odd, q);
  return {regs_.a_odd, regs_.a_odd};
}

void DotEmitter::multiply_add(const x86::Vec& acc, const DotOperand& a, const DotOperand& b) {
  const x86::Vec& p = regs_.product;
  switch (style_) {
    case DotStyle::vnni:
      // First source unsigned bytes (A), second signed bytes (B); AVX-VNNI has only the
      // VEX encoding, AVX512-VNNI the EVEX one (the traits row says which the path runs).
      if (detail::traits(isa_).encoding == detail::Encoding::vex) a_.vex().vpdpbusd(acc, a.lo, b.lo);
      else a_.evex().vpdpbusd(acc, a.lo, b.lo);
      return;
    case DotStyle::exact:
    case DotStyle::exact_wide:
      // Pair sums of at most 2 * 255 * 128 in int32: nothing saturates.
      a_.vpmaddwd(p, a.lo, b.lo);
      a_.vpaddd(acc, acc, p);
      a_.vpmaddwd(p, a.hi, b.hi);
      a_.vpaddd(acc, acc, p);
      return;
    case DotStyle::exact_sxb:
      // One pair sum of at most 2 * 255 * 128 per lane, as in the split.
      a_.vpmaddwd(p, a.lo, b.lo);
      a_.vpaddd(acc, acc, p);
      return;
    case DotStyle::pair_safe:
      // vpmaddubsw: (a0 b0 + a1 b1, a2 b2 + a3 b3) in int16, which a pair-safe B keeps
      // within [-32640, 32640]; vpmaddwd by ones adds the two into the int32 lane.
      a_.vpmaddubsw(p, a.lo, b.lo);
      a_.vpmaddwd(p, p, regs_.constant);
      a_.vpaddd(acc, acc, p);
      return;
    case DotStyle::acc16:
      a_.vpmaddubsw(p, a.lo, b.lo);
      a_.vpaddsw(acc, acc, p);
      return;
  }
}

void DotEmitter::multiply_add(const x86::Vec& acc, const DotOperand& a, const x86::Mem& b) {
  const x86::Vec& p = regs_.product;
  a_.vpmaddubsw(p, a.lo, b);
  if (style_ == DotStyle::acc16) {
    a_.vpaddsw(acc, acc, p);
    return;
  }
  a_.vpmaddwd(p, p, regs_.constant);
  a_.vpaddd(acc, acc, p);
}

void DotEmitter::fold_halves(const x86::Vec& acc, const x86::Vec& ones) { a_.vpmaddwd(acc, acc, ones); }

}  // namespace quire::jit
