// One generator for every JIT path. The loop structure is shared (tile_loop_emitter.h) and
// so is the 4-deep dot-product step (dot_step.h: VNNI, the exact even/odd split, acc16);
// what this emitter adds is the column tile: its register map, the vector width (ymm or
// zmm), and how the last vector is masked (AVX-512 opmask; on AVX2 vpmaskmovd loads and
// plain stores).
#include "jit/kernel_generator.h"

#include "jit/dot_step.h"
#include "jit/output_stage_emitter.h"
#include "jit/tile_loop_emitter.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace quire::jit {

using namespace asmjit;
using detail::Isa;
using detail::MicroKernelArgs;

namespace {

bool is_zmm(Isa isa) { return detail::traits(isa).zmm(); }
int vector_registers(Isa isa) { return detail::traits(isa).vector_registers; }

// Accumulator vectors per row: nr / lanes rounded up, or for sx_b one per 4 columns (each
// column takes two lanes until the fold).
int vectors_for(const KernelSpec& s) {
  const int per_vector = s.sx_b ? 4 : int32_lanes(s.isa);
  return (s.nr + per_vector - 1) / per_vector;
}

// Vector register map: [accumulators mr*nv][B nv][B odd nv: exact, exact_wide][A]
// [A even: exact, exact_wide][product: all but VNNI][constant: exact, pair_safe]. A is the
// row's broadcast (exact: split in place, it becomes the odd half; exact_wide: the odd pair;
// exact_sxb: the whole step). exact_sxb: B is the sign-extended 4-column groups, and after
// the fold row r's 8 columns are in acc(r, 0). Tiles spanning B panels (panel_vectors)
// keep no B registers (the dot product reads B from memory), or for exact_sxb one, each
// group sign-extended just before its use.
struct RegMap {
  int nv, mr;
  DotStyle style;
  bool b_in_memory = false;
  bool split() const { return style == DotStyle::exact || style == DotStyle::exact_wide; }
  int b_regs() const {
    if (b_in_memory) return style == DotStyle::exact_sxb ? 1 : 0;
    return (split() ? 2 : 1) * nv;
  }
  int acc(int r, int v) const { return r * nv + v; }
  int b(int v) const { return mr * nv + v; }            // B, or the split B even
  int b_odd(int v) const { return mr * nv + nv + v; }   // exact, exact_wide only
  int a() const { return mr * nv + b_regs(); }
  int a_even() const { return a() + 1; }                // exact, exact_wide only
  int product() const { return a() + (split() ? 2 : 1); }
  int constant() const { return product() + 1; }
  int needed() const {
    switch (style) {
      case DotStyle::vnni: return a() + 1;
      case DotStyle::acc16:
      case DotStyle::exact_wide:
      case DotStyle::exact_sxb: return product() + 1;
      case DotStyle::exact:
      case DotStyle::pair_safe: break;
    }
    return constant() + 1;
  }
};

class KernelEmitter final : public TileLoopEmitter {
 public:
  KernelEmitter(x86::Assembler& a, const KernelSpec& s)
      : TileLoopEmitter(a, s.mr), s_(s), zmm_(is_zmm(s.isa)),
        opmask_(detail::traits(s.isa).tails == detail::TailMask::opmask),
        vec_bytes_(zmm_ ? 64 : 32),
        map_{vectors_for(s), s.mr, dot_style(s), s.panel_vectors > 0},
        out_nv_(s.sx_b ? (map_.nv + 1) / 2 : map_.nv),
        tail_(s.nr % int32_lanes(s.isa)),
        dot_(a, s.isa, map_.style, zmm_,
             DotRegs{vec(map_.a_even()), vec(map_.a()), vec(map_.product()), vec(map_.constant())}),
        stage_(a, s.stage,
               OutputStageEmitter::Layout{zmm_, s.mr, out_nv_, tail_, vec(map_.b(0)),
                                          vec(map_.b(0) + 1), mask_table_,
                                          map_.style != DotStyle::acc16 && !s.sx_b, 1, {},
                                          s.column_slices ? slice_slot(kSliceColumn) : -1}) {}

 private:
  x86::Vec vec(int i) const { return zmm_ ? x86::Vec(x86::zmm(i)) : x86::Vec(x86::ymm(i)); }

  int a_step_bytes() const override { return s_.wide_a ? 8 : 4; }
  int slice_columns() const override { return s_.column_slices ? s_.nr : 0; }
  bool slices_span_panels() const override { return s_.panel_vectors > 0; }

  void zero_accumulators() override {
    if (stage_.starts_at_column_term()) {
      stage_.init_accumulators([this](int r, int v) { return vec(map_.acc(r, v)); });
      return;
    }
    for (int r = 0; r < s_.mr; ++r)
      for (int v = 0; v < map_.nv; ++v) {
        const x86::Vec acc = vec(map_.acc(r, v));
        if (zmm_) a_.vpxord(acc, acc, acc);
        else a_.vpxor(acc, acc, acc);
      }
  }

  void prologue_extra() override {
    if (tail_ != 0 && opmask_) {
      a_.mov(kScratch.r32(), (1u << tail_) - 1);
      a_.kmovw(x86::k1, kScratch.r32());
    }
    if (s_.stage.requantize) stage_.prologue(kArgs);  // before the constant: it uses vector registers
    dot_.load_constant();
  }

  int frame_bytes() const override {
    return s_.stage.requantize ? OutputStageEmitter::kFrameBytes : 0;
  }

  void embed_data() override {
    if (tail_ != 0 && (!opmask_ || !zmm_)) {  // the C tail, and the ymm stage's tail loads
      // vpmaskmovd mask table: 8 x -1 then 8 x 0; loading at (8 - tail) * 4 gives
      // `tail` active lanes.
      a_.align(AlignMode::kData, 32);
      a_.bind(mask_table_);
      for (int i = 0; i < 16; ++i) a_.embedInt32(i < 8 ? -1 : 0);
    }
    stage_.embed_data();
  }

  // Item i (`bytes` each, `size` the operand's) of the step: in the one panel, or
  // (panel_vectors) item i % per_panel of panel i / per_panel, panels kPanelStride apart
  // (panel 3 at kPanelStride3).
  x86::Mem b_item(int i, int bytes, int per_panel, uint32_t size) const {
    if (s_.panel_vectors == 0) return x86::ptr(kBCursor, i * bytes, size);
    const int panel = i / per_panel, disp = i % per_panel * bytes;
    if (panel == 0) return x86::ptr(kBCursor, disp, size);
    if (panel == 3) return x86::ptr(kBCursor, kPanelStride3, 0, disp, size);
    return x86::ptr(kBCursor, kPanelStride, panel == 2 ? 1 : 0, disp, size);
  }
  x86::Mem b_vector(int v) const { return b_item(v, vec_bytes_, s_.panel_vectors, vec_bytes_); }
  // exact_sxb: the 16 bytes of columns 4g .. 4g + 3 (2 groups per 8-lane vector).
  x86::Mem b_group(int g) const { return b_item(g, 16, 2 * s_.panel_vectors, 16); }

  // Tiles spanning B panels have at most 3 rows, so the A cursors' rbx and rcx are free
  // for the panel stride and three times it (set per row panel: the stage uses them).
  static constexpr x86::Gp kPanelStride = x86::rbx, kPanelStride3 = x86::rcx;
  void begin_k_loop() override {
    if (s_.panel_vectors == 0) return;
    a_.mov(kPanelStride, arg(offsetof(MicroKernelArgs, b_panel_stride)));
    a_.lea(kPanelStride3, x86::ptr(kPanelStride, kPanelStride, 1));
  }

  // One K step: the nv B vectors, then per row the A broadcast and nv dot products.
  void dot_step() override {
    if (map_.b_in_memory && s_.sx_b) {  // one row: each group sign-extended, then used
      const DotOperand a = dot_.load_linear_a(row_operand(0));
      const x86::Vec bg = vec(map_.b(0));
      for (int g = 0; g < map_.nv; ++g) {
        a_.vpmovsxbw(bg, b_group(g));
        dot_.multiply_add(vec(map_.acc(0, g)), a, DotOperand{bg, bg});
      }
      return;
    }
    if (map_.b_in_memory) {
      for (int r = 0; r < s_.mr; ++r) {
        a_.vpbroadcastd(vec(map_.a()), row_operand(r));
        const DotOperand a{vec(map_.a()), vec(map_.a())};
        for (int v = 0; v < map_.nv; ++v) dot_.multiply_add(vec(map_.acc(r, v)), a, b_vector(v));
      }
      return;
    }
    if (s_.sx_b) {
      std::vector<DotOperand> b(static_cast<size_t>(map_.nv));
      for (int g = 0; g < map_.nv; ++g) {
        const x86::Vec bg = vec(map_.b(g));
        a_.vpmovsxbw(bg, b_group(g));  // columns 4g .. 4g + 3
        b[g] = {bg, bg};
      }
      for (int r = 0; r < s_.mr; ++r) {
        const DotOperand a = dot_.load_linear_a(row_operand(r));
        for (int g = 0; g < map_.nv; ++g) dot_.multiply_add(vec(map_.acc(r, g)), a, b[g]);
      }
      return;
    }
    std::vector<DotOperand> b(static_cast<size_t>(map_.nv));
    for (int v = 0; v < map_.nv; ++v) {
      const x86::Vec even = vec(map_.b(v)), odd = vec(map_.b_odd(v));
      load_vector(dot_.b_load(even, odd), b_vector(v));
      b[v] = dot_.split_b(even, odd);
    }
    for (int r = 0; r < s_.mr; ++r) {
      DotOperand a;
      if (s_.wide_a) {
        a = dot_.load_wide_a(row_operand(r));
      } else {
        a_.vpbroadcastd(vec(map_.a()), row_operand(r));
        a = dot_.split_a(vec(map_.a()));
      }
      for (int v = 0; v < map_.nv; ++v) dot_.multiply_add(vec(map_.acc(r, v)), a, b[v]);
    }
  }

  // acc16: each int32 lane = its low int16 sum + its high one (exact in int32).
  // Output vector v of row r: exact_sxb folds groups 2v and 2v + 1 into group 2v's register.
  x86::Vec out_acc(int r, int v) const { return vec(map_.acc(r, s_.sx_b ? 2 * v : v)); }

  // exact_sxb: per row, lane 2j + h of group g holds half h of column 4g + j; vphaddd of
  // groups 2v and 2v + 1 adds the halves (columns 0 1 4 5 | 2 3 6 7 of the pair in the two
  // 128-bit lanes) and vpermq puts them in order. A last odd group pairs with itself;
  // lanes past nr are not stored.
  void finish_accumulators() override {
    if (map_.style == DotStyle::exact_sxb) {
      for (int r = 0; r < s_.mr; ++r)
        for (int v = 0; v < out_nv_; ++v) {
          const x86::Vec lo = out_acc(r, v), hi = vec(map_.acc(r, std::min(2 * v + 1, map_.nv - 1)));
          a_.vphaddd(lo, lo, hi);
          a_.vpermq(lo, lo, 0xd8);
        }
      return;
    }
    if (map_.style != DotStyle::acc16) return;
    const x86::Vec ones = vec(map_.b(0));  // the B registers are free after the K loop
    dot_.word_constant(ones, 15);
    for (int r = 0; r < s_.mr; ++r)
      for (int v = 0; v < map_.nv; ++v) dot_.fold_halves(vec(map_.acc(r, v)), ones);
  }

  void load_vector(const x86::Vec& dst, const x86::Mem& src) {
    if (zmm_) a_.vmovdqu32(dst, src);
    else a_.vmovdqu(dst, src);
  }

  // The first tail_ int32 lanes of acc to dst in plain stores (16, 8 and 4 bytes; tmp
  // takes the high half): a vpmaskmovd store costs Zen 4 about ten times as much
  // (acc16 156800 x 4 x 36: 1435 us with them, 1008 us without).
  void store_ymm_tail(x86::Mem dst, const x86::Vec& acc, const x86::Vec& tmp) {
    x86::Xmm part = acc.xmm();
    int left = tail_;
    if (left >= 4) {
      dst.setSize(16);
      a_.vmovdqu(dst, part);
      if ((left -= 4) == 0) return;
      a_.vextracti128(tmp.xmm(), acc.ymm(), 1);
      part = tmp.xmm();
      dst.addOffset(16);
    }
    if (left == 1) {
      dst.setSize(4);
      a_.vmovd(dst, part);
      return;
    }
    dst.setSize(8);
    a_.vmovq(dst, part);
    if (left == 3) {
      dst.setSize(4);
      dst.addOffset(8);
      a_.vpextrd(dst, part, 2);
    }
  }

  // Writes the accumulators to C, row by row; the last vector of a row is masked when
  // nr is not a multiple of the vector width. With `accumulate`, C is added first. With a
  // requantizing stage, the sums (plus C) become uint8 instead (output_stage_emitter.h).
  void store_tile(bool accumulate) override {
    const bool masked_tail = tail_ != 0;
    // After the K loop the B and A registers are free: the AVX2 tail mask and the
    // loaded C vector go in the first two of them.
    const x86::Vec ymask = vec(map_.b(0)), tmp = vec(map_.b(0) + 1);
    if (masked_tail && !opmask_ && accumulate) {
      a_.vmovdqu(ymask, x86::ymmword_ptr(mask_table_, (8 - tail_) * 4));
    }
    a_.mov(kCRow, kC);
    for (int r = 0; r < s_.mr; ++r) {
      for (int v = 0; v < out_nv_; ++v) {
        const x86::Vec acc = out_acc(r, v);
        const bool last = v == out_nv_ - 1 && masked_tail;
        const x86::Mem dst = zmm_ ? x86::zmmword_ptr(kCRow, v * vec_bytes_)
                                  : x86::ymmword_ptr(kCRow, v * vec_bytes_);
        if (accumulate) {
          if (last && opmask_) {
            a_.k(x86::k1).vpaddd(acc, acc, dst);
          } else if (last) {
            a_.vpmaskmovd(tmp, ymask, dst);
            a_.vpaddd(acc, acc, tmp);
          } else {
            a_.vpaddd(acc, acc, dst);
          }
        }
        if (s_.stage.requantize) continue;
        if (last && opmask_) a_.k(x86::k1).vmovdqu32(dst, acc);
        else if (last) store_ymm_tail(x86::ptr(kCRow, v * vec_bytes_), acc, tmp);
        else if (zmm_) a_.vmovdqu32(dst, acc);
        else a_.vmovdqu(dst, acc);
      }
      if (r + 1 < s_.mr) a_.add(kCRow, kLdc);
    }
    if (s_.stage.requantize) stage_.store(kArgs, [this](int r, int v) { return out_acc(r, v); });
  }

  KernelSpec s_;
  bool zmm_;
  bool opmask_;  // the traits' tail masking: opmask k1, else vpmaskmovd with the mask table
  int vec_bytes_;
  RegMap map_;
  int out_nv_;  // vectors per row of the finished tile
  int tail_;
  Label mask_table_ = a_.newLabel();
  DotEmitter dot_;
  OutputStageEmitter stage_;
};

}  // namespace

int int32_lanes(Isa isa) { return detail::traits(isa).int32_lanes(); }

// Paths whose exact form is sx_b (avx2's: 32-byte VEX vectors without VNNI), read from the
// traits, not the path's name, so a path that reuses avx2's tables gets its kernels.
static bool sx_b_path(const detail::IsaTraits& t) {
  return t.vector_bytes == 32 && !t.vnni && t.encoding == detail::Encoding::vex;
}

bool registers_fit(const KernelSpec& s) {
  if (detail::traits(s.isa).vector_bytes == 0) return false;  // portable: no JIT kernels
  if (s.mr < 1 || s.nr < 1 || s.mr > 12) return false;  // 12: four A row cursors (tile_loop_emitter.h)
  if (s.row_sums) return false;  // narrow kernels only
  // Column slices: column kernels of whole vectors (no tail mask to move), or tiles
  // spanning panels over whole panels.
  if (s.column_slices && (s.narrow || s.nr % int32_lanes(s.isa) != 0 ||
                          (s.panel_vectors > 0 && s.nr % (s.panel_vectors * int32_lanes(s.isa)) != 0)))
    return false;
  const detail::IsaTraits& t = detail::traits(s.isa);
  if (s.acc16 && !t.acc16_saturates) return false;  // acc16 runs exact there
  if (s.pair_safe && (s.acc16 || t.vnni)) return false;  // it replaces the exact split
  if (s.panel_vectors > 0) {  // small-M tiles over up to 4 panels: pair-safe, acc16, or 1-row sx_b
    const RegMap map{vectors_for(s), s.mr, dot_style(s), true};
    const int per_panel = (s.sx_b ? 2 : 1) * s.panel_vectors;
    const bool form = s.sx_b ? s.wide_a && sx_b_path(t) && !s.pair_safe && !s.acc16 && s.mr == 1
                             : (s.pair_safe || s.acc16) && !s.wide_a;
    return form && !t.vnni && !s.narrow && !s.stage.requantize && s.mr <= 3 &&
           s.panel_vectors <= 7 && vectors_for(s) <= 4 * per_panel &&
           map.needed() <= vector_registers(s.isa);
  }
  if (s.sx_b)  // avx2's exact form on linear wide A (its stage temporaries: ymm12, ymm13)
    return s.wide_a && sx_b_path(t) && !s.narrow && !s.acc16 && !s.pair_safe &&
           RegMap{vectors_for(s), s.mr, DotStyle::exact_sxb}.needed() <= vector_registers(s.isa);
  if (s.wide_a && dot_style(s) != DotStyle::exact_wide) return false;  // a form of the exact split
  const RegMap map{vectors_for(s), s.mr, dot_style(s)};
  if (map.needed() > vector_registers(s.isa)) return false;
  // The output stage's temporaries are the first two B registers; on ymm paths its AVX2
  // instructions reach only ymm0-15. Its frame holds four column vectors per operand.
  if (s.stage.requantize)
    return !s.narrow && map.nv <= 4 && (is_zmm(s.isa) || map.b(0) + 1 < 16);
  return true;
}

// The output stage as a name suffix: "_u8" or "_f32" and its operands (azp: the column
// term of an A zero point; bzp, mult (float output: b_scale), f32bias's divisor: per
// column "col" or per group "grp"; i32bias; relu for float output).
static std::string stage_name(const detail::OutputStage& st) {
  if (!st.requantize) return "";
  const auto form = [](detail::StageOperand o) { return o == detail::StageOperand::lanes ? "col" : "grp"; };
  std::string name = st.to_float ? "_f32" : "_u8";
  if (st.col_offsets) name += "_azp";
  if (st.b_zero_point != detail::StageOperand::absent) name += std::string("_bzp") + form(st.b_zero_point);
  name += std::string("_mult") + form(st.multiplier);
  if (st.bias == detail::BiasKind::int32) name += "_i32bias";
  if (st.bias == detail::BiasKind::float32)
    name += st.to_float ? std::string("_f32bias") : std::string("_f32bias") + form(st.act_times_w_scale);
  if (st.relu) name += "_relu";
  return name;
}

std::string kernel_name(const KernelSpec& s) {
  return std::string(s.acc16 ? "u8s8s16" : "u8s8s32") + "_mr" + std::to_string(s.mr) + "_nr" +
         std::to_string(s.nr) + "_" + detail::traits(s.isa).kernel_suffix +
         (s.narrow ? "_narrow" : "") + (s.pair_safe ? "_pairsafe" : "") +
         (s.wide_a ? "_widea" : "") + (s.sx_b ? "_sxb" : "") +
         (s.panel_vectors > 0 ? "_pv" + std::to_string(s.panel_vectors) : "") +
         (s.column_slices ? "_slices" : "") +
         (s.row_sums ? "_rowsums" : "") + stage_name(s.stage);
}

void emit_micro_kernel(x86::Assembler& a, const KernelSpec& spec) {
  if (!registers_fit(spec)) {
    throw std::invalid_argument("micro-kernel " + kernel_name(spec) +
                                ": the tile needs more vector registers than the ISA has");
  }
  KernelEmitter(a, spec).emit();
}

}  // namespace quire::jit
