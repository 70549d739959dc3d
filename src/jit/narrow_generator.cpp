// Kernels for narrow outputs (3 <= N <= 8 columns, e.g. 156800 x 4 x 36 convolutions):
// with one column slice per vector, 16 - N of 16 lanes would idle. Here a zmm holds
// RPV = 16 / Np rows of Np = (N <= 4 ? 4 : 8) lanes each:
//   lane (r, j) of the A vector = the 4 bytes A[r][4t .. 4t+3]  (built by one broadcast
//     for row 0 and RPV - 1 merge-masked broadcasts for the other rows)
//   lane (r, j) of the B vector = B[4t .. 4t+3][j]           (Np columns repeated RPV times)
// so one dot step (dot_step.h: vpdpbusd, the exact vpmaddwd split, the pair-safe
// vpmaddubsw + vpmaddwd, or acc16's vpmaddubsw + vpaddsw with a final vpmaddwd by ones,
// docs/acc16.md) does RPV rows x Np columns.
// A tile is up to 12 rows (3 rows per GPR cursor, as in the column kernels): with Np = 4
// that is 3 vectors, with Np = 8 six. Rows are stored one by one (valignd moves a row's
// lanes to the bottom, a masked store writes its N columns).
//
// Those RPV broadcasts per vector and K step bound the kernel (about one broadcast per
// cycle). On avx512_vnni with Np = 4 the main loop therefore takes 4 K steps at once:
//   A block vector, 128-bit lane i = row i's 16 bytes A[i][4t .. 4t+15]
//     (one vbroadcasti32x4, and three merge-masked ones for rows 1..3)
//   B column vector n, every 128-bit lane = B[4t .. 4t+15][n]
//     (4 K steps x 4 columns loaded as 4 xmm rows and transposed in registers)
//   acc4[g][n] += vpdpbusd(A block of row group g, B column n)
// so lane (i, q) of acc4[g][n] sums row i, column n over the K steps = q mod 4. After the
// loop an unpack-add tree folds q away, giving lane (i, n), the layout of the one-step
// accumulators, to which it is added. The remaining k4_steps % 4 steps run one by one.
#include <cstddef>
#include <stdexcept>

#include "jit/dot_step.h"
#include "jit/kernel_generator.h"
#include "jit/tile_loop_emitter.h"

namespace quire::jit {

using namespace asmjit;
using detail::Isa;
using detail::MicroKernelArgs;

namespace {

// Vector registers (zmm). One-step loop: accumulators [0, 6) and A vectors [6, 12) (one
// per RPV rows, at most 6 each), then the dot step's B (exact: its even half), B odd,
// A even, A odd, product and constant, and the store's row temporary.
// Blocked loop (vnni, Np = 4: at most 3 accumulators and A vectors, so accumulators and
// A vectors 3..5 are free): acc4[g][n] after the store temporary, B columns in the 4
// registers from B on, the 4 loaded B rows and the 4 transpose temporaries in free ones.
struct NarrowRegMap {
  static constexpr int kVectors = 6;
  static int acc(int v) { return v; }
  static int avec(int v) { return kVectors + v; }
  static int b() { return 2 * kVectors; }
  static int b_odd() { return b() + 1; }
  static int a_even() { return b() + 2; }
  static int a_odd() { return b() + 3; }
  static int product() { return b() + 4; }
  static int constant() { return b() + 5; }
  static int store_row() { return b() + 6; }
  static int acc4(int g, int n) { return store_row() + 1 + 4 * g + n; }
  static int bcol(int n) { return b() + n; }
  static int b_row(int i) { return i < 3 ? avec(3 + i) : product(); }
  static int transpose_tmp(int i) { return i < 3 ? acc(3 + i) : constant(); }
};

class NarrowEmitter final : public TileLoopEmitter {
 public:
  NarrowEmitter(x86::Assembler& a, const KernelSpec& s)
      : TileLoopEmitter(a, s.mr), s_(s), vnni_(detail::traits(s.isa).vnni), acc16_(s.acc16),
        np_(s.nr <= 4 ? 4 : 8),
        rpv_(16 / np_), vectors_((s.mr + rpv_ - 1) / rpv_), blocked_(vnni_ && np_ == 4),
        dot_(a, s.isa, dot_style(s), true,
             DotRegs{x86::zmm(M::a_even()), x86::zmm(M::a_odd()), x86::zmm(M::product()),
                     x86::zmm(M::constant())}) {}

 private:
  using M = NarrowRegMap;
  // Blocked main loop (vnni, Np = 4), registers in NarrowRegMap.
  static x86::Zmm acc4(int g, int n) { return x86::zmm(M::acc4(g, n)); }
  static x86::Zmm bcol(int n) { return x86::zmm(M::bcol(n)); }
  int steps_per_block() const override { return blocked_ ? 4 : 1; }

  void dot_block() override {
    x86::Xmm rows[4], t[4];
    for (int i = 0; i < 4; ++i) {
      rows[i] = x86::xmm(M::b_row(i));
      t[i] = x86::xmm(M::transpose_tmp(i));
    }
    // B rows of 4 columns for K steps t..t+3 (the cursor steps once so that step 3 is
    // addressable as base + 2 * b_step; it is put back afterwards).
    a_.vmovdqu(rows[0], x86::xmmword_ptr(kBCursor));
    a_.vmovdqu(rows[1], x86::xmmword_ptr(kBCursor, kBStep, 0));
    a_.vmovdqu(rows[2], x86::xmmword_ptr(kBCursor, kBStep, 1));
    a_.add(kBCursor, kBStep);
    a_.vmovdqu(rows[3], x86::xmmword_ptr(kBCursor, kBStep, 1));
    a_.sub(kBCursor, kBStep);
    // 4 x 4 dword transpose: column n = [step 0, step 1, step 2, step 3].
    a_.vpunpckldq(t[0], rows[0], rows[1]);
    a_.vpunpckhdq(t[1], rows[0], rows[1]);
    a_.vpunpckldq(t[2], rows[2], rows[3]);
    a_.vpunpckhdq(t[3], rows[2], rows[3]);
    a_.vpunpcklqdq(bcol(0).xmm(), t[0], t[2]);
    a_.vpunpckhqdq(bcol(1).xmm(), t[0], t[2]);
    a_.vpunpcklqdq(bcol(2).xmm(), t[1], t[3]);
    a_.vpunpckhqdq(bcol(3).xmm(), t[1], t[3]);
    for (int n = 0; n < 4; ++n) a_.vshufi32x4(bcol(n), bcol(n), bcol(n), 0);
    for (int g = 0; g < vectors_; ++g) {
      const x86::Zmm av = avec(g);
      const int first = 4 * g, rows_in_group = std::min(4, s_.mr - first);
      a_.vbroadcasti32x4(av, block_operand(first));
      for (int i = 1; i < rows_in_group; ++i) a_.k(row_mask(i)).vbroadcasti32x4(av, block_operand(first + i));
      for (int n = 0; n < 4; ++n) dot_.multiply_add(acc4(g, n), {av, av}, {bcol(n), bcol(n)});
    }
  }

  // acc16: each int32 lane = its low int16 sum + its high one. Blocked: lane (i, q) of
  // acc4[g][n] -> lane (i, n), added to the one-step accumulator of g.
  void finish_accumulators() override {
    if (acc16_) {
      const x86::Zmm ones = bvec();  // free after the K loop
      dot_.word_constant(ones, 15);
      for (int v = 0; v < vectors_; ++v) dot_.fold_halves(acc(v), ones);
    }
    if (!blocked_) return;
    // Temporaries: registers the blocked loop's accumulators and B columns do not use.
    const x86::Zmm x = x86::zmm(M::transpose_tmp(0)), y = x86::zmm(M::transpose_tmp(1)),
                   u0 = x86::zmm(M::transpose_tmp(2)), u1 = x86::zmm(M::b_row(0));
    for (int g = 0; g < vectors_; ++g) {
      a_.vpunpckldq(x, acc4(g, 0), acc4(g, 1));
      a_.vpunpckhdq(y, acc4(g, 0), acc4(g, 1));
      a_.vpaddd(u0, x, y);
      a_.vpunpckldq(x, acc4(g, 2), acc4(g, 3));
      a_.vpunpckhdq(y, acc4(g, 2), acc4(g, 3));
      a_.vpaddd(u1, x, y);
      a_.vpunpcklqdq(x, u0, u1);
      a_.vpunpckhqdq(y, u0, u1);
      a_.vpaddd(x, x, y);
      a_.vpaddd(acc(g), acc(g), x);
    }
  }

  // The 16 bytes of row r at the current K step.
  x86::Mem block_operand(int r) const {
    x86::Mem m = row_operand(r);
    m.setSize(16);
    return m;
  }

  static x86::Zmm acc(int v) { return x86::zmm(M::acc(v)); }
  static x86::Zmm avec(int v) { return x86::zmm(M::avec(v)); }
  static x86::Zmm bvec() { return x86::zmm(M::b()); }
  // Opmasks: k1..k(rpv-1) select row i's lanes in the A vector; k7 the N output lanes.
  static x86::KReg row_mask(int i) { return x86::k(i); }

  void set_mask(const x86::KReg& k, uint32_t bits) {
    a_.mov(kScratch.r32(), bits);
    a_.kmovw(k, kScratch.r32());
  }

  void prologue_extra() override {
    for (int i = 1; i < rpv_; ++i) set_mask(row_mask(i), ((1u << np_) - 1) << (i * np_));
    set_mask(x86::k7, (1u << s_.nr) - 1);
    dot_.load_constant();
  }

  void zero_accumulators() override {
    for (int v = 0; v < vectors_; ++v) {
      a_.vpxord(acc(v), acc(v), acc(v));
      if (blocked_)
        for (int n = 0; n < 4; ++n) a_.vpxord(acc4(v, n), acc4(v, n), acc4(v, n));
    }
  }

  // One 4-deep K step: the B vector once, then per A vector the row broadcasts and the
  // dot product.
  void dot_step() override {
    const x86::Zmm b_odd = x86::zmm(M::b_odd());
    const x86::Mem b_src = x86::ptr(kBCursor);
    const x86::Vec b_raw = dot_.b_load(bvec(), b_odd);
    if (np_ == 4) a_.vbroadcasti32x4(b_raw, b_src);
    else a_.vbroadcasti64x4(b_raw, b_src);
    const DotOperand b = dot_.split_b(bvec(), b_odd);
    for (int v = 0; v < vectors_; ++v) {
      const x86::Zmm av = avec(v);
      const int first = v * rpv_, rows = std::min(rpv_, s_.mr - first);
      a_.vpbroadcastd(av, row_operand(first));
      for (int i = 1; i < rows; ++i) a_.k(row_mask(i)).vpbroadcastd(av, row_operand(first + i));
      dot_.multiply_add(acc(v), dot_.split_a(av), b);
    }
  }

  // Row r lives in lanes [i * np, i * np + N) of vector r / rpv (i = r % rpv).
  void store_tile(bool accumulate) override {
    Label done = a_.newLabel();
    if (s_.nr == np_) {
      // C rows of exactly N = Np int32 back to back (ldc == N, the usual layout of these
      // shapes): a vector is RPV whole rows of C, one store.
      Label by_rows = a_.newLabel();
      a_.cmp(kLdc, 4 * np_);
      a_.jne(by_rows);
      for (int v = 0; v < vectors_; ++v) {
        const int rows = std::min(rpv_, s_.mr - v * rpv_);
        const x86::Mem dst = x86::zmmword_ptr(kC, v * 64);
        if (rows == rpv_) {
          if (accumulate) a_.vpaddd(acc(v), acc(v), dst);
          a_.vmovdqu32(dst, acc(v));
        } else {
          set_mask(x86::k6, (1u << (rows * np_)) - 1);
          if (accumulate) a_.k(x86::k6).vpaddd(acc(v), acc(v), dst);
          a_.k(x86::k6).vmovdqu32(dst, acc(v));
        }
      }
      a_.jmp(done);
      a_.bind(by_rows);
    }
    const x86::Zmm row = x86::zmm(M::store_row());
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
    a_.bind(done);
  }

  KernelSpec s_;
  bool vnni_, acc16_;
  int np_, rpv_, vectors_;
  bool blocked_;
  DotEmitter dot_;
};

}  // namespace

bool narrow_fits(const KernelSpec& s) {
  const detail::IsaTraits& t = detail::traits(s.isa);
  if ((s.acc16 && s.pair_safe) || s.wide_a) return false;  // wide A: column kernels only
  if (s.stage.requantize) return false;  // narrow tiles are requantized by the tile epilogue
  // acc16 and pair-safe kernels replace the exact split: only paths without VNNI run them.
  const bool isa_ok = t.narrow_rows > 0 && (!s.acc16 || t.acc16_saturates) && (!s.pair_safe || !t.vnni);
  return isa_ok && s.nr >= 3 && s.nr <= 8 && s.mr >= 1 && s.mr <= t.narrow_rows;
}

void emit_narrow_kernel(x86::Assembler& a, const KernelSpec& spec) {
  if (!narrow_fits(spec)) {
    throw std::invalid_argument("narrow micro-kernel " + kernel_name(spec) +
                                ": needs an AVX-512 path (acc16, pair-safe: avx512), 3 <= nr <= 8 and mr <= 12");
  }
  NarrowEmitter(a, spec).emit();
}

}  // namespace quire::jit
