// Kernels for narrow outputs (3 <= N <= 8 columns, e.g. 156800 x 4 x 36 convolutions):
// with one column slice per vector, 16 - N of 16 lanes would idle. Here a zmm holds
// RPV = 16 / Np rows of Np = (N <= 4 ? 4 : 8) lanes each:
//   lane (r, j) of the A vector = the 4 bytes A[r][4t .. 4t+3]  (built by one broadcast
//     for row 0 and RPV - 1 merge-masked broadcasts for the other rows)
//   lane (r, j) of the B vector = B[4t .. 4t+3][j]           (Np columns repeated RPV times)
// so one vpdpbusd (or the exact vpmaddwd split) does RPV rows x Np columns.
// A tile is up to 12 rows (3 rows per GPR cursor, as in the column kernels): with Np = 4
// that is 3 vectors, with Np = 8 six. Rows are stored one by one (valignd moves a row's
// lanes to the bottom, a masked store writes its N columns).
#include <cstddef>
#include <stdexcept>

#include "jit/kernel_generator.h"
#include "jit/tile_loop_emitter.h"

namespace quire::jit {

using namespace asmjit;
using detail::Isa;
using detail::MicroKernelArgs;

namespace {

class NarrowEmitter final : public TileLoopEmitter {
 public:
  NarrowEmitter(x86::Assembler& a, const KernelSpec& s)
      : TileLoopEmitter(a, s.mr), s_(s), vnni_(s.isa == Isa::avx512_vnni), np_(s.nr <= 4 ? 4 : 8),
        rpv_(16 / np_), vectors_((s.mr + rpv_ - 1) / rpv_) {}

 private:
  // Vector registers: accumulators [0, 6), A vectors [6, 12), B / B even 12, B odd 13,
  // A even 14, A odd 15, product 16, 0x00ff byte mask 17, store temporary 18.
  x86::Zmm acc(int v) const { return x86::zmm(v); }
  x86::Zmm avec(int v) const { return x86::zmm(6 + v); }
  static x86::Zmm bvec() { return x86::zmm12; }
  // Opmasks: k1..k(rpv-1) select row i's lanes in the A vector; k7 the N output lanes.
  static x86::KReg row_mask(int i) { return x86::k(i); }

  void set_mask(const x86::KReg& k, uint32_t bits) {
    a_.mov(kScratch.r32(), bits);
    a_.kmovw(k, kScratch.r32());
  }

  void prologue_extra() override {
    for (int i = 1; i < rpv_; ++i) set_mask(row_mask(i), ((1u << np_) - 1) << (i * np_));
    set_mask(x86::k7, (1u << s_.nr) - 1);
    if (!vnni_) {
      const x86::Zmm m = x86::zmm17;
      a_.vpternlogd(m, m, m, 0xff);
      a_.vpsrlw(m, m, 8);
    }
  }

  void zero_accumulators() override {
    for (int v = 0; v < vectors_; ++v) a_.vpxord(acc(v), acc(v), acc(v));
  }

  // One 4-deep K step: the B vector once, then per A vector the row broadcasts and the
  // dot product.
  void dot_step() override {
    const x86::Zmm b = bvec();
    const x86::Mem b_src = x86::ptr(kBCursor);
    if (np_ == 4) a_.vbroadcasti32x4(b, b_src);
    else a_.vbroadcasti64x4(b, b_src);
    if (!vnni_) {  // B even / odd 16-bit halves, as in the column kernels
      a_.vpsllw(x86::zmm14, b, 8);
      a_.vpsraw(x86::zmm14, x86::zmm14, 8);
      a_.vpsraw(x86::zmm13, b, 8);
      a_.vmovdqa32(b, x86::zmm14);
    }
    for (int v = 0; v < vectors_; ++v) {
      const x86::Zmm av = avec(v);
      const int first = v * rpv_, rows = std::min(rpv_, s_.mr - first);
      a_.vpbroadcastd(av, row_operand(first));
      for (int i = 1; i < rows; ++i) a_.k(row_mask(i)).vpbroadcastd(av, row_operand(first + i));
      if (vnni_) {
        a_.vpdpbusd(acc(v), av, b);
      } else {
        a_.vpandd(x86::zmm14, av, x86::zmm17);
        a_.vpsrlw(x86::zmm15, av, 8);
        a_.vpmaddwd(x86::zmm16, x86::zmm14, b);
        a_.vpaddd(acc(v), acc(v), x86::zmm16);
        a_.vpmaddwd(x86::zmm16, x86::zmm15, x86::zmm13);
        a_.vpaddd(acc(v), acc(v), x86::zmm16);
      }
    }
  }

  // Row r lives in lanes [i * np, i * np + N) of vector r / rpv (i = r % rpv).
  void store_tile(bool accumulate) override {
    const x86::Zmm row = x86::zmm18;
    a_.mov(kCRow, kC);
    for (int r = 0; r < s_.mr; ++r) {
      const int v = r / rpv_, i = r % rpv_;
      if (i == 0) a_.vmovdqa32(row, acc(v));
      else a_.valignd(row, acc(v), acc(v), i * np_);
      const x86::Mem dst = x86::zmmword_ptr(kCRow);
      if (accumulate) a_.k(x86::k7).vpaddd(row, row, dst);
      a_.k(x86::k7).vmovdqu32(dst, row);
      if (r + 1 < s_.mr) a_.add(kCRow, kLdc);
    }
  }

  KernelSpec s_;
  bool vnni_;
  int np_, rpv_, vectors_;
};

}  // namespace

bool narrow_fits(const KernelSpec& s) {
  return (s.isa == Isa::avx512 || s.isa == Isa::avx512_vnni) && s.nr >= 3 && s.nr <= 8 &&
         s.mr >= 1 && s.mr <= 12;
}

void emit_narrow_kernel(x86::Assembler& a, const KernelSpec& spec) {
  if (!narrow_fits(spec)) {
    throw std::invalid_argument("narrow micro-kernel " + kernel_name(spec) +
                                ": needs an AVX-512 path, 3 <= nr <= 8 and mr <= 12");
  }
  NarrowEmitter(a, spec).emit();
}

}  // namespace quire::jit
