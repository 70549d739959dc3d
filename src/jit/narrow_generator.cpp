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
//     (two xmm loads, each widened by vinserti128, joined by vinserti64x4)
//   B column vector n, every 128-bit lane = B[4t .. 4t+15][n]
//     (4 K steps x 4 columns loaded as 4 xmm rows and transposed in registers)
//   acc4[g][n] += vpdpbusd(A block of row group g, B column n)
// so lane (i, q) of acc4[g][n] sums row i, column n over the K steps = q mod 4. After the
// loop an unpack-add tree folds q away, giving lane (i, n), the layout of the one-step
// accumulators, to which it is added. The remaining k4_steps % 4 steps run one by one.
//
// On avx512_vnni, Np = 8 takes 4 K steps at once too, but without a fold: the "diagonal"
// loop (diagonal_block) rotates the A dwords (vpshufd) against B vectors blended along
// the 4 x 4 diagonals, so its accumulators already have the one-step layout and the
// leftover steps run one by one into them. It has 1/4 of the one-step loop's merge-masked
// broadcasts, and its row sums one vpdpbusd per vector and 4 steps instead of per step.
// 156800 x 5 x 36: 1.05x (u8), 1.07x (int32); x 8 x 36: 1.06x, 1.02x (row-sum kernels,
// the bench's path); without row sums about 1% (x 8 x 36, int32). A blocked loop with
// N = 4's fold was slower: 24 accumulators to fold per tile cost about a third of the
// int32 time at K = 36.
//
// With a requantizing output stage (output_stage_emitter.h) the vectors are requantized
// in registers on the last K block and leave as uint8 or float.
//
// With row_sums (VNNI only, kernel_spec.h) each A vector also meets a vector of ones:
// rs[v] += vpdpbusd(A, ones) gives, in every lane of row i, its sum over the step (the
// blocked loop: lane (i, q) the sum of K step q, folded like the products; its leftover
// steps add into lane (i, 0) only, through ones in the first lane of each row). The sums
// are stored one int32 per row, and a stage's row term multiplies them in place.
#include <cstddef>
#include <functional>
#include <stdexcept>

#include "jit/dot_step.h"
#include "jit/kernel_generator.h"
#include "jit/output_stage_emitter.h"
#include "jit/tile_loop_emitter.h"

namespace quire::jit {

using namespace asmjit;
using detail::Isa;
using detail::MicroKernelArgs;

namespace {

// Vector registers (zmm). One-step loop: accumulators [0, 6) and A vectors [6, 12) (one
// per RPV rows, at most 6 each), then the dot step's B (exact: its even half), B odd,
// A even, A odd, product and constant, and the store's row temporary; row sums after it.
// Blocked loop (vnni, Np = 4: at most 3 accumulators and A vectors, so accumulators and
// A vectors 3..5 are free): acc4[g][n] after the store temporary, B columns in the 4
// registers from B on, the 4 loaded B rows and the 2 transpose temporaries in free ones;
// the 3 row sums in the registers left (accumulator 5, the constant, the store's); the
// ones of the row sums in the last register. Diagonal loop (vnni, Np = 8): the one-step
// loop's accumulators, A vectors and row sums; B(rho) in the 4 registers from B on, the
// rotated A in the product register.
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
  static int transpose_tmp(int i) { return acc(3 + i); }  // i < 2
  static int row_sum(int v, bool blocked) {
    const int kBlocked[3] = {acc(5), constant(), store_row()};
    return blocked ? kBlocked[v] : store_row() + 1 + v;
  }
  static int ones() { return 31; }  // row sums: free in both loops
};

class NarrowEmitter final : public TileLoopEmitter {
 public:
  NarrowEmitter(x86::Assembler& a, const KernelSpec& s)
      : TileLoopEmitter(a, s.mr), s_(s), vnni_(detail::traits(s.isa).vnni), acc16_(s.acc16),
        np_(s.nr <= 4 ? 4 : 8),
        rpv_(16 / np_), vectors_((s.mr + rpv_ - 1) / rpv_), blocked_(vnni_ && np_ == 4),
        diagonal_(vnni_ && np_ == 8),
        dot_(a, s.isa, dot_style(s), true,
             DotRegs{x86::zmm(M::a_even()), x86::zmm(M::a_odd()), x86::zmm(M::product()),
                     x86::zmm(M::constant())}),
        stage_(a, s.stage, stage_layout()) {}

 private:
  using M = NarrowRegMap;
  // Blocked main loop (vnni, Np = 4), registers in NarrowRegMap.
  static x86::Zmm acc4(int g, int n) { return x86::zmm(M::acc4(g, n)); }
  static x86::Zmm bcol(int n) { return x86::zmm(M::bcol(n)); }
  int steps_per_block() const override { return blocked_ || diagonal_ ? 4 : 1; }

  void dot_block() override {
    if (diagonal_) return diagonal_block();
    x86::Xmm rows[4], t[2];
    for (int i = 0; i < 4; ++i) rows[i] = x86::xmm(M::b_row(i));
    for (int i = 0; i < 2; ++i) t[i] = x86::xmm(M::transpose_tmp(i));
    // B rows of 4 columns for K steps t..t+3 (the cursor steps once so that step 3 is
    // addressable as base + 2 * b_step; it is put back afterwards).
    a_.vmovdqu(rows[0], x86::xmmword_ptr(kBCursor));
    a_.vmovdqu(rows[1], x86::xmmword_ptr(kBCursor, kBStep, 0));
    a_.vmovdqu(rows[2], x86::xmmword_ptr(kBCursor, kBStep, 1));
    a_.add(kBCursor, kBStep);
    a_.vmovdqu(rows[3], x86::xmmword_ptr(kBCursor, kBStep, 1));
    a_.sub(kBCursor, kBStep);
    // 4 x 4 dword transpose: column n = [step 0, step 1, step 2, step 3] (rows 0 and 1
    // are dead once unpacked, and take the unpacks of rows 2 and 3).
    a_.vpunpckldq(t[0], rows[0], rows[1]);
    a_.vpunpckhdq(t[1], rows[0], rows[1]);
    a_.vpunpckldq(rows[0], rows[2], rows[3]);
    a_.vpunpckhdq(rows[1], rows[2], rows[3]);
    a_.vpunpcklqdq(bcol(0).xmm(), t[0], rows[0]);
    a_.vpunpckhqdq(bcol(1).xmm(), t[0], rows[0]);
    a_.vpunpcklqdq(bcol(2).xmm(), t[1], rows[1]);
    a_.vpunpckhqdq(bcol(3).xmm(), t[1], rows[1]);
    for (int n = 0; n < 4; ++n) a_.vshufi32x4(bcol(n), bcol(n), bcol(n), 0);
    for (int g = 0; g < vectors_; ++g) {
      const x86::Zmm av = avec(g);
      const int first = 4 * g, rows_in_group = std::min(4, s_.mr - first);
      load_block_rows(av, first, rows_in_group);
      for (int n = 0; n < 4; ++n) dot_.multiply_add(acc4(g, n), {av, av}, {bcol(n), bcol(n)});
      if (s_.row_sums) a_.vpdpbusd(row_sum(g), av, ones());
    }
  }

  // acc16: each int32 lane = its low int16 sum + its high one. Blocked: lane (i, q) of
  // acc4[g][n] -> lane (i, n), added to the one-step accumulator of g.
  void finish_accumulators() override {
    if (diagonal_) {  // lane (i, q) of a row's sum: its steps = q mod 4 -> every lane
      const x86::Zmm x = x86::zmm(M::product());
      for (int v = 0; v < vectors_ && s_.row_sums; ++v) {
        a_.vpshufd(x, row_sum(v), 0x4E);
        a_.vpaddd(row_sum(v), row_sum(v), x);
        a_.vpshufd(x, row_sum(v), 0xB1);
        a_.vpaddd(row_sum(v), row_sum(v), x);
      }
      return;
    }
    if (acc16_) {
      const x86::Zmm ones = bvec();  // free after the K loop
      dot_.word_constant(ones, 15);
      for (int v = 0; v < vectors_; ++v) dot_.fold_halves(acc(v), ones);
    }
    if (!blocked_) return;
    // Temporaries: registers the blocked loop's accumulators and B columns do not use.
    const x86::Zmm x = x86::zmm(M::transpose_tmp(0)), y = x86::zmm(M::transpose_tmp(1)),
                   u0 = x86::zmm(M::b_row(1)), u1 = x86::zmm(M::b_row(0));
    for (int g = 0; g < vectors_ && s_.row_sums; ++g) {  // lane (i, q) -> every lane of row i
      a_.vpshufd(x, row_sum(g), 0x4E);
      a_.vpaddd(row_sum(g), row_sum(g), x);
      a_.vpshufd(x, row_sum(g), 0xB1);
      a_.vpaddd(row_sum(g), row_sum(g), x);
    }
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

  // Diagonal loop (vnni, Np = 8): 4 K steps at once straight into the one-step layout.
  //   A vector v, 128-bit lanes = row 2v's 16 bytes twice, then row 2v + 1's twice;
  //     A(rho) = A with each lane's dwords rotated by rho (vpshufd): dword q = step q + rho
  //   B(rho), 128-bit lane L, dword q = B[step (q + rho) % 4][column 4 (L % 2) + q]
  //     (one ymm blended from the 4 B rows, its halves repeated by vinserti64x4)
  //   acc[v] += vpdpbusd(A(rho), B(rho)) for rho = 0..3
  // so lane (L, q) of acc[v] sums row 2v + L / 2, column 4 (L % 2) + q over all 4 steps.
  // Row sums: rs[v] += vpdpbusd(A, ones) keeps step q in lane (., q); the leftover one-step
  // loop adds into lane (., 0) only, and finish_accumulators() folds q away.
  static x86::Zmm bdiag(int rho) { return x86::zmm(M::b() + rho); }
  // Row 2v + 1's merge-masked broadcast: measured 3% faster than a ymm broadcast and an
  // insert here (156800 x 8 x 36, u8), the shuffles being the bound.
  static constexpr x86::KReg kUpperHalf = x86::k2;
  void diagonal_block() {
    // D(rho) dword q (both halves) from B row (q + rho) % 4: row 0 loaded whole, rows 1, 2
    // blended in, then row 3 (base + 3 b_step, not an x86 scale) with the cursor a step
    // on, put back afterwards.
    const auto lanes = [](int s, int rho) {  // dword q of both halves, q = (s - rho) mod 4
      const int q = (s - rho + 4) % 4;
      return (1 << q) | (1 << (q + 4));
    };
    for (int rho = 0; rho < 4; ++rho) {
      const x86::Ymm d = bdiag(rho).ymm();
      a_.vmovdqu(d, x86::ymmword_ptr(kBCursor));
      a_.vpblendd(d, d, x86::ymmword_ptr(kBCursor, kBStep, 0), lanes(1, rho));
      a_.vpblendd(d, d, x86::ymmword_ptr(kBCursor, kBStep, 1), lanes(2, rho));
    }
    a_.add(kBCursor, kBStep);
    for (int rho = 0; rho < 4; ++rho) {
      const x86::Ymm d = bdiag(rho).ymm();
      a_.vpblendd(d, d, x86::ymmword_ptr(kBCursor, kBStep, 1), lanes(3, rho));
    }
    a_.sub(kBCursor, kBStep);
    for (int rho = 0; rho < 4; ++rho) a_.vinserti64x4(bdiag(rho), bdiag(rho), bdiag(rho).ymm(), 1);
    const x86::Zmm rot = x86::zmm(M::product());
    for (int v = 0; v < vectors_; ++v) {
      const x86::Zmm av = avec(v);
      const int first = 2 * v;
      a_.vbroadcasti32x4(av, block_operand(first));
      if (first + 1 < s_.mr) a_.k(kUpperHalf).vbroadcasti32x4(av, block_operand(first + 1));
      a_.vpdpbusd(acc(v), av, bdiag(0));
      for (int rho = 1; rho < 4; ++rho) {
        constexpr uint32_t kRotate[4] = {0xE4, 0x39, 0x4E, 0x93};  // dword q <- q + rho
        a_.vpshufd(rot, av, kRotate[rho]);
        a_.vpdpbusd(acc(v), rot, bdiag(rho));
      }
      if (s_.row_sums) a_.vpdpbusd(row_sum(v), av, ones());
    }
  }

  // The 16 bytes of row r at the current K step.
  // 128-bit lane i of av = row first + i's 16 bytes, i < rows (lanes past them: zero or
  // the lower rows, never stored). Two ymm pairs joined by one insert: merge-masked
  // 512-bit broadcasts cost about 20% more on Zen 4 (156800 x 4 x 36).
  void load_block_rows(const x86::Zmm& av, int first, int rows) {
    const x86::Zmm hi = x86::zmm(M::transpose_tmp(0));  // free after the B transpose
    a_.vmovdqu(av.xmm(), block_operand(first));
    if (rows > 1) a_.vinserti128(av.ymm(), av.ymm(), block_operand(first + 1), 1);
    if (rows < 3) return;
    a_.vmovdqu(hi.xmm(), block_operand(first + 2));
    if (rows > 3) a_.vinserti128(hi.ymm(), hi.ymm(), block_operand(first + 3), 1);
    a_.vinserti64x4(av, av, hi.ymm(), 1);
  }

  x86::Mem block_operand(int r) const {
    x86::Mem m = row_operand(r);
    m.setSize(16);
    return m;
  }

  static x86::Zmm acc(int v) { return x86::zmm(M::acc(v)); }
  static x86::Zmm avec(int v) { return x86::zmm(M::avec(v)); }
  x86::Zmm row_sum(int v) const { return x86::zmm(M::row_sum(v, blocked_)); }
  static x86::Zmm ones() { return x86::zmm(M::ones()); }
  static x86::Zmm bvec() { return x86::zmm(M::b()); }
  // Opmasks: k1..k(rpv-1) select row i's lanes in the A vector; k7 the N output lanes.
  static x86::KReg row_mask(int i) { return x86::k(i); }
  // The output lanes of row slot i (row i of a vector): k7 for slot 0; for the others the
  // row masks when nr = np, else k4..k6.
  x86::KReg row_lanes(int i) const {
    return i == 0 ? x86::k7 : s_.nr == np_ ? row_mask(i) : x86::k(3 + i);
  }

  // The stage's temporaries are A vectors, free after the K loop.
  OutputStageEmitter::Layout stage_layout() const {
    OutputStageEmitter::Layout l{true, s_.mr, 1, s_.nr, avec(0), avec(1), Label(), !acc16_};
    l.rows_per_vector = rpv_;
    for (int i = 0; i < rpv_; ++i) l.row_lanes[static_cast<size_t>(i)] = row_lanes(i);
    return l;
  }
  int frame_bytes() const override { return s_.stage.requantize ? OutputStageEmitter::kFrameBytes : 0; }
  void embed_data() override {
    stage_.embed_data();
    if (!s_.row_sums) return;
    // ones_: 64 one-bytes; then the ones of each row's first lane (blocked leftovers);
    // then the lane of each row's first column, for gathering the sums (vpermd).
    a_.align(AlignMode::kData, 64);
    a_.bind(ones_);
    for (int i = 0; i < 16; ++i) a_.embedInt32(0x01010101);
    a_.bind(ones_first_);
    for (int i = 0; i < 16; ++i) a_.embedInt32(i % (diagonal_ ? 4 : np_) == 0 ? 0x01010101 : 0);
    a_.bind(first_lanes_);
    for (int i = 0; i < 16; ++i) a_.embedInt32((i % rpv_) * np_);
  }

  // Each row's sum to args->row_sums at this panel's rows (the panel index from the
  // panels left). Uses r13 and the store's row temporary.
  void store_row_sums() {
    const x86::Gp out = kScratch;
    const x86::Zmm t = x86::zmm(M::b());  // free after the K loop
    a_.mov(out, arg(offsetof(MicroKernelArgs, m_panels)));
    a_.sub(out, kPanels);
    a_.imul(out, out, 4 * s_.mr);
    a_.add(out, arg(offsetof(MicroKernelArgs, row_sums)));
    a_.vmovdqu32(t, x86::zmmword_ptr(first_lanes_));
    for (int v = 0; v < vectors_; ++v) {
      const int rows = std::min(rpv_, s_.mr - v * rpv_);
      const x86::Xmm sums = avec(v).xmm();  // free after the K loop
      a_.vpermd(avec(v), t, row_sum(v));
      const int32_t at = 4 * v * rpv_;
      if (rows == 4) {
        a_.vmovdqu(x86::xmmword_ptr(out, at), sums);
      } else if (rows == 2) {
        a_.vmovq(x86::qword_ptr(out, at), sums);
      } else {
        a_.vmovd(x86::dword_ptr(out, at), sums);
        for (int i = 1; i < rows; ++i) a_.vpextrd(x86::dword_ptr(out, at + 4 * i), sums, i);
      }
    }
  }

  void set_mask(const x86::KReg& k, uint32_t bits) {
    a_.mov(kScratch.r32(), bits);
    a_.kmovw(k, kScratch.r32());
  }

  void prologue_extra() override {
    if (s_.stage.requantize) {  // first: it takes k1 as the nr column lanes
      set_mask(x86::k1, (1u << s_.nr) - 1);
      stage_.prologue(kArgs);
    }
    for (int i = 1; i < rpv_; ++i) set_mask(row_mask(i), ((1u << np_) - 1) << (i * np_));
    set_mask(x86::k7, (1u << s_.nr) - 1);
    if (s_.stage.requantize && s_.nr != np_)
      for (int i = 1; i < rpv_; ++i) set_mask(row_lanes(i), ((1u << s_.nr) - 1) << (i * np_));
    dot_.load_constant();
    if (diagonal_) set_mask(kUpperHalf, 0xFF00);
    if (s_.row_sums) a_.vpbroadcastd(ones(), x86::dword_ptr(ones_));
  }

  void zero_accumulators() override {
    if (stage_.starts_at_column_term()) stage_.init_accumulators([](int v, int) { return acc(v); });
    for (int v = 0; v < vectors_; ++v) {
      if (s_.row_sums) a_.vpxord(row_sum(v), row_sum(v), row_sum(v));
      if (!stage_.starts_at_column_term()) a_.vpxord(acc(v), acc(v), acc(v));
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
      if (s_.row_sums) {
        if (blocked_ || diagonal_) a_.vpdpbusd(row_sum(v), av, x86::zmmword_ptr(ones_first_));
        else a_.vpdpbusd(row_sum(v), av, ones());
      }
    }
  }

  // Row r lives in lanes [i * np, i * np + N) of vector r / rpv (i = r % rpv).
  void store_tile(bool accumulate) override {
    if (s_.row_sums) store_row_sums();
    if (s_.stage.requantize) {
      if (accumulate) add_c();
      std::function<x86::Vec(int)> sums;
      if (s_.row_sums) sums = [this](int v) { return x86::Vec(row_sum(v)); };
      stage_.store_narrow(kArgs, [](int v) { return acc(v); }, sums);
      return;
    }
    Label done = a_.newLabel();
    if (s_.nr == np_) {
      whole_row_vectors(done, [&](int v, const x86::Mem& dst, bool partial) {
        if (partial) {
          if (accumulate) a_.k(x86::k6).vpaddd(acc(v), acc(v), dst);
          a_.k(x86::k6).vmovdqu32(dst, acc(v));
        } else {
          if (accumulate) a_.vpaddd(acc(v), acc(v), dst);
          a_.vmovdqu32(dst, acc(v));
        }
      });
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

  // C rows exactly Np int32 apart (ldc == N == Np, the usual layout of these shapes):
  // each vector is RPV whole rows of C, handed to `per_vector` with its address (partial:
  // the tile's last vector holds fewer rows, whose lanes k6 then selects); then a jump to
  // `done`. Other layouts continue after this code, row by row.
  void whole_row_vectors(const Label& done,
                         const std::function<void(int, const x86::Mem&, bool)>& per_vector) {
    Label by_rows = a_.newLabel();
    a_.cmp(kLdc, 4 * np_);
    a_.jne(by_rows);
    for (int v = 0; v < vectors_; ++v) {
      const int rows = std::min(rpv_, s_.mr - v * rpv_);
      if (rows < rpv_) set_mask(x86::k6, (1u << (rows * np_)) - 1);
      per_vector(v, x86::zmmword_ptr(kC, v * 64), rows < rpv_);
    }
    a_.jmp(done);
    a_.bind(by_rows);
  }

  // Before a staged store on later K blocks: the int32 C of the earlier ones, added to
  // each row's lanes (a row at its address minus its lanes' offset; masked-off lanes do
  // not fault), or a vector's rows at once when C rows are np int32 apart.
  void add_c() {
    Label done = a_.newLabel();
    if (s_.nr == np_) {
      whole_row_vectors(done, [&](int v, const x86::Mem& src, bool partial) {
        if (partial) a_.k(x86::k6).vpaddd(acc(v), acc(v), src);
        else a_.vpaddd(acc(v), acc(v), src);
      });
    }
    a_.mov(kCRow, kC);
    for (int r = 0; r < s_.mr; ++r) {
      const int v = r / rpv_, i = r % rpv_;
      a_.k(row_lanes(i)).vpaddd(acc(v), acc(v), x86::zmmword_ptr(kCRow, -i * np_ * 4));
      if (r + 1 < s_.mr) a_.add(kCRow, kLdc);
    }
    a_.bind(done);
  }

  KernelSpec s_;
  bool vnni_, acc16_;
  int np_, rpv_, vectors_;
  bool blocked_, diagonal_;
  DotEmitter dot_;
  OutputStageEmitter stage_;
  Label ones_ = a_.newLabel(), ones_first_ = a_.newLabel(), first_lanes_ = a_.newLabel();
};

}  // namespace

bool narrow_fits(const KernelSpec& s) {
  const detail::IsaTraits& t = detail::traits(s.isa);
  if ((s.acc16 && s.pair_safe) || s.wide_a || s.column_slices) return false;  // column kernels only
  // acc16 and pair-safe kernels replace the exact split: only paths without VNNI run them.
  const bool isa_ok = t.narrow_rows > 0 && (!s.acc16 || t.acc16_saturates) && (!s.pair_safe || !t.vnni) &&
                      (!s.row_sums || t.vnni);
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
