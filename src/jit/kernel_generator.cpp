// One generator for every JIT path. The loop structure is shared; what differs per ISA
// is the vector width (ymm or zmm), how the last vector is masked (AVX-512 opmask or
// AVX2 vpmaskmovd) and the 4-deep dot-product step:
//   VNNI (avx512_vnni, avx_vnni): acc += vpdpbusd(A bytes, B bytes), exact in int32.
//   exact (avx512, avx2): vpmaddubsw would saturate (255*127*2 > 32767), so bytes are
//     split into even and odd 16-bit halves and multiplied with vpmaddwd, whose pair sums
//     (at most 2*255*128) cannot overflow:
//       A even = a & 0x00ff (a0, a2)      A odd = a >> 8 logical (a1, a3)
//       B even = (b << 8) >> 8 arith      B odd = b >> 8 arith
//       acc += vpmaddwd(A even, B even) + vpmaddwd(A odd, B odd)
//   acc16 (avx512, avx2; docs/acc16.md): each int32 lane holds two int16 sums,
//       acc = vpaddsw(acc, vpmaddubsw(A bytes, B bytes))    (saturating, 2x the exact rate)
//     and before the store the two halves are added exactly: acc = vpmaddwd(acc, 1).
#include "jit/kernel_generator.h"

#include "jit/tile_loop_emitter.h"

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
bool is_vnni(Isa isa) { return detail::traits(isa).vnni; }
int vector_registers(Isa isa) { return detail::traits(isa).vector_registers; }

int vectors_for(const KernelSpec& s) { return (s.nr + int32_lanes(s.isa) - 1) / int32_lanes(s.isa); }

enum class DotStyle { vnni, exact, acc16 };

DotStyle dot_style(const KernelSpec& s) {
  return s.acc16 ? DotStyle::acc16 : is_vnni(s.isa) ? DotStyle::vnni : DotStyle::exact;
}

// Vector register map. VNNI: [accumulators mr*nv][B nv][A 1].
// acc16: [accumulators mr*nv][B nv][A 1][product 1].
// exact: [accumulators mr*nv][B even nv][B odd nv][A even][A odd][product][0x00ff mask].
struct RegMap {
  int nv, mr;
  int acc(int r, int v) const { return r * nv + v; }
  int b(int v) const { return mr * nv + v; }            // VNNI B, or exact B even
  int b_odd(int v) const { return mr * nv + nv + v; }   // exact only
  int a() const { return mr * nv + nv; }                // VNNI A broadcast
  int a_even() const { return mr * nv + 2 * nv; }
  int a_odd() const { return mr * nv + 2 * nv + 1; }
  int product() const { return mr * nv + 2 * nv + 2; }
  int byte_mask() const { return mr * nv + 2 * nv + 3; }
  int acc16_product() const { return a() + 1; }
  int needed(DotStyle style) const {
    switch (style) {
      case DotStyle::vnni: return a() + 1;
      case DotStyle::acc16: return acc16_product() + 1;
      case DotStyle::exact: break;
    }
    return byte_mask() + 1;
  }
};

class KernelEmitter final : public TileLoopEmitter {
 public:
  KernelEmitter(x86::Assembler& a, const KernelSpec& s)
      : TileLoopEmitter(a, s.mr), s_(s), zmm_(is_zmm(s.isa)), style_(dot_style(s)),
        vec_bytes_(zmm_ ? 64 : 32), map_{vectors_for(s), s.mr},
        tail_(s.nr % int32_lanes(s.isa)) {}

 private:
  x86::Vec vec(int i) const { return zmm_ ? x86::Vec(x86::zmm(i)) : x86::Vec(x86::ymm(i)); }

  void zero_accumulators() override {
    for (int r = 0; r < s_.mr; ++r)
      for (int v = 0; v < map_.nv; ++v) {
        const x86::Vec acc = vec(map_.acc(r, v));
        if (zmm_) a_.vpxord(acc, acc, acc);
        else a_.vpxor(acc, acc, acc);
      }
  }

  void prologue_extra() override {
    if (tail_ != 0 && zmm_) {
      a_.mov(kScratch.r32(), (1u << tail_) - 1);
      a_.kmovw(x86::k1, kScratch.r32());
    }
    if (style_ == DotStyle::exact) word_constant(vec(map_.byte_mask()), 8);  // 0x00ff
  }

  // Every 16-bit lane of v = 0xffff >> shift.
  void word_constant(const x86::Vec& v, int shift) {
    if (zmm_) a_.vpternlogd(v, v, v, 0xff);
    else a_.vpcmpeqd(v, v, v);
    a_.vpsrlw(v, v, shift);
  }

  void embed_data() override {
    if (tail_ != 0 && !zmm_) {
      // vpmaskmovd mask table: 8 x -1 then 8 x 0; loading at (8 - tail) * 4 gives
      // `tail` active lanes.
      a_.align(AlignMode::kData, 32);
      a_.bind(mask_table_);
      for (int i = 0; i < 16; ++i) a_.embedInt32(i < 8 ? -1 : 0);
    }
  }

  void dot_step() override {
    switch (style_) {
      case DotStyle::vnni: return dot_step_vnni();
      case DotStyle::acc16: return dot_step_acc16();
      case DotStyle::exact: return dot_step_exact();
    }
  }

  x86::Mem b_vector(int v) const {
    return zmm_ ? x86::zmmword_ptr(kBCursor, v * vec_bytes_) : x86::ymmword_ptr(kBCursor, v * vec_bytes_);
  }

  void dot_step_vnni() {
    for (int v = 0; v < map_.nv; ++v) load_vector(vec(map_.b(v)), b_vector(v));
    const x86::Vec av = vec(map_.a());
    for (int r = 0; r < s_.mr; ++r) {
      a_.vpbroadcastd(av, row_operand(r));
      for (int v = 0; v < map_.nv; ++v) {
        // vpdpbusd: first source unsigned bytes (A), second signed bytes (B).
        const x86::Vec acc = vec(map_.acc(r, v)), b = vec(map_.b(v));
        if (s_.isa == Isa::avx_vnni) a_.vex().vpdpbusd(acc, av, b);  // AVX-VNNI encoding
        else a_.evex().vpdpbusd(acc, av, b);
      }
    }
  }

  void dot_step_acc16() {
    for (int v = 0; v < map_.nv; ++v) load_vector(vec(map_.b(v)), b_vector(v));
    const x86::Vec av = vec(map_.a()), p = vec(map_.acc16_product());
    for (int r = 0; r < s_.mr; ++r) {
      a_.vpbroadcastd(av, row_operand(r));
      for (int v = 0; v < map_.nv; ++v) {
        // vpmaddubsw: first source unsigned bytes (A), second signed bytes (B).
        const x86::Vec acc = vec(map_.acc(r, v));
        a_.vpmaddubsw(p, av, vec(map_.b(v)));
        a_.vpaddsw(acc, acc, p);
      }
    }
  }

  // acc16: each int32 lane = its low int16 sum + its high one (exact in int32).
  void finish_accumulators() override {
    if (style_ != DotStyle::acc16) return;
    const x86::Vec ones = vec(map_.b(0));  // the B registers are free after the K loop
    word_constant(ones, 15);
    for (int r = 0; r < s_.mr; ++r)
      for (int v = 0; v < map_.nv; ++v) {
        const x86::Vec acc = vec(map_.acc(r, v));
        a_.vpmaddwd(acc, acc, ones);
      }
  }

  void dot_step_exact() {
    for (int v = 0; v < map_.nv; ++v) {
      const x86::Vec even = vec(map_.b(v)), odd = vec(map_.b_odd(v));
      load_vector(odd, b_vector(v));
      a_.vpsllw(even, odd, 8);
      a_.vpsraw(even, even, 8);
      a_.vpsraw(odd, odd, 8);
    }
    const x86::Vec ae = vec(map_.a_even()), ao = vec(map_.a_odd()), p = vec(map_.product());
    const x86::Vec mask = vec(map_.byte_mask());
    for (int r = 0; r < s_.mr; ++r) {
      a_.vpbroadcastd(ao, row_operand(r));
      if (zmm_) a_.vpandd(ae, ao, mask);
      else a_.vpand(ae, ao, mask);
      a_.vpsrlw(ao, ao, 8);
      for (int v = 0; v < map_.nv; ++v) {
        const x86::Vec acc = vec(map_.acc(r, v));
        a_.vpmaddwd(p, ae, vec(map_.b(v)));
        a_.vpaddd(acc, acc, p);
        a_.vpmaddwd(p, ao, vec(map_.b_odd(v)));
        a_.vpaddd(acc, acc, p);
      }
    }
  }

  void load_vector(const x86::Vec& dst, const x86::Mem& src) {
    if (zmm_) a_.vmovdqu32(dst, src);
    else a_.vmovdqu(dst, src);
  }

  // Writes the accumulators to C, row by row; the last vector of a row is masked when
  // nr is not a multiple of the vector width. With `accumulate`, C is added first.
  void store_tile(bool accumulate) override {
    const bool masked_tail = tail_ != 0;
    // After the K loop the B and A registers are free: the AVX2 tail mask and the
    // loaded C vector go in the first two of them.
    const x86::Vec ymask = vec(map_.b(0)), tmp = vec(map_.b(0) + 1);
    if (masked_tail && !zmm_) {
      a_.vmovdqu(ymask, x86::ymmword_ptr(mask_table_, (8 - tail_) * 4));
    }
    a_.mov(kCRow, kC);
    for (int r = 0; r < s_.mr; ++r) {
      for (int v = 0; v < map_.nv; ++v) {
        const x86::Vec acc = vec(map_.acc(r, v));
        const bool last = v == map_.nv - 1 && masked_tail;
        const x86::Mem dst = zmm_ ? x86::zmmword_ptr(kCRow, v * vec_bytes_)
                                  : x86::ymmword_ptr(kCRow, v * vec_bytes_);
        if (zmm_) {
          if (accumulate) {
            if (last) a_.k(x86::k1).vpaddd(acc, acc, dst);
            else a_.vpaddd(acc, acc, dst);
          }
          if (last) a_.k(x86::k1).vmovdqu32(dst, acc);
          else a_.vmovdqu32(dst, acc);
        } else {
          if (accumulate) {
            if (last) {
              a_.vpmaskmovd(tmp, ymask, dst);
              a_.vpaddd(acc, acc, tmp);
            } else {
              a_.vpaddd(acc, acc, dst);
            }
          }
          if (last) a_.vpmaskmovd(dst, ymask, acc);
          else a_.vmovdqu(dst, acc);
        }
      }
      if (r + 1 < s_.mr) a_.add(kCRow, kLdc);
    }
  }

  KernelSpec s_;
  bool zmm_;
  DotStyle style_;
  int vec_bytes_;
  RegMap map_;
  int tail_;
  Label mask_table_ = a_.newLabel();
};

}  // namespace

int int32_lanes(Isa isa) { return detail::traits(isa).int32_lanes(); }

bool registers_fit(const KernelSpec& s) {
  if (detail::traits(s.isa).vector_bytes == 0) return false;  // portable: no JIT kernels
  if (s.mr < 1 || s.nr < 1 || s.mr > 12) return false;  // 12: four A row cursors (tile_loop_emitter.h)
  if (s.acc16 && !detail::traits(s.isa).acc16_saturates) return false;  // acc16 runs exact there
  const RegMap map{vectors_for(s), s.mr};
  return map.needed(dot_style(s)) <= vector_registers(s.isa);
}

std::string kernel_name(const KernelSpec& s) {
  return std::string(s.acc16 ? "u8s8s16" : "u8s8s32") + "_mr" + std::to_string(s.mr) + "_nr" +
         std::to_string(s.nr) + "_" + detail::traits(s.isa).kernel_suffix +
         (s.narrow ? "_narrow" : "");
}

void emit_micro_kernel(x86::Assembler& a, const KernelSpec& spec) {
  if (spec.isa == Isa::portable) throw std::invalid_argument("emit_micro_kernel: portable path has no JIT kernel");
  if (!registers_fit(spec)) {
    throw std::invalid_argument("micro-kernel " + kernel_name(spec) +
                                ": the tile needs more vector registers than the ISA has");
  }
  KernelEmitter(a, spec).emit();
}

}  // namespace quire::jit
