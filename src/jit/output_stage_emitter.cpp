#include "jit/output_stage_emitter.h"

#include <algorithm>
#include <cstddef>

#include "cpu/isa_record.h"

namespace quire::jit {

using namespace asmjit;
using detail::BiasKind;
using detail::MicroKernelArgs;
using detail::OutputStageArgs;
using detail::StageOperand;

namespace {

// The frame, from the 64-byte aligned rsp: the caller's rsp, the two panel cursors, three
// constant vectors, then four per-column slots of up to four vectors each.
constexpr int32_t kOutCursor = 8, kRowCursor = 16;
constexpr int32_t kHi = 64, kCZeroPoint = 128, kFloorBytes = 192;
constexpr int32_t kColumnTerm = 256, kBZeroPoint = 512, kMultiplier = 768, kFloatBias = 1024;
constexpr int32_t kFloorDwords = 1280;  // narrow, and one-vector rows: the floor as int32
constexpr int32_t kSlotEnd = 1344;
static_assert(OutputStageEmitter::kFrameBytes >= kSlotEnd + 64);

const x86::Gp kStage = x86::rbx, kOutRow = x86::rbp, kRowOffsets = x86::rcx,
              kLdOut = x86::r13, kPtr = x86::r14, kScalar = x86::r15;
// The prologue of a kernel walking column slices: the slice's first column (free then).
const x86::Gp kSliceColumn = x86::r13;

x86::Mem stage_field(size_t offset) {
  return x86::qword_ptr(kStage, static_cast<int32_t>(offset));
}

}  // namespace

bool OutputStageEmitter::has_column_term() const {
  return s_.requantize && (s_.bias == BiasKind::int32 || s_.col_offsets);
}

bool OutputStageEmitter::starts_at_column_term() const {
  return has_column_term() && l_.start_at_column_term;
}

x86::Vec OutputStageEmitter::reg(int i) const {
  return l_.zmm ? x86::Vec(x86::zmm(i)) : x86::Vec(x86::ymm(i));
}

x86::Mem OutputStageEmitter::vec_at(const x86::Gp& base, int32_t disp) const {
  return l_.zmm ? x86::zmmword_ptr(base, disp) : x86::ymmword_ptr(base, disp);
}

void OutputStageEmitter::store_vec(const x86::Mem& dst, const x86::Vec& src) {
  if (l_.zmm) a_.vmovdqu32(dst, src);
  else a_.vmovdqu(dst, src);
}

void OutputStageEmitter::load_lanes(const x86::Vec& dst, size_t field, int v, const x86::Vec& mask) {
  const int lane_bytes = l_.zmm ? 64 : 32;
  a_.mov(kPtr, stage_field(field));
  x86::Mem src = vec_at(kPtr, v * lane_bytes);
  if (l_.slice_column_slot >= 0) src.setIndex(kSliceColumn, 2);  // + 4 bytes per column
  const bool masked = v == l_.nv - 1 && l_.tail != 0;
  if (l_.zmm) {
    if (masked) a_.k(x86::k1).z().vmovdqu32(dst, src);
    else a_.vmovdqu32(dst, src);
    // Narrow: the nr columns again in each row's lanes.
    if (l_.rows_per_vector == 4) a_.vshufi32x4(dst, dst, dst, 0);
    if (l_.rows_per_vector == 2) a_.vshufi64x2(dst, dst, dst, 0x44);
  } else {
    if (masked) a_.vpmaskmovd(dst, mask, src);  // masked-off lanes are zero and never stored
    else a_.vmovdqu(dst, src);
  }
}

void OutputStageEmitter::broadcast_scalar(const x86::Vec& dst, size_t field, bool is_float) {
  a_.mov(kPtr, stage_field(field));
  if (is_float) a_.vbroadcastss(dst, x86::dword_ptr(kPtr));
  else a_.vpbroadcastd(dst, x86::dword_ptr(kPtr));
}

void OutputStageEmitter::prologue(const x86::Gp& args) {
  const x86::Vec x0 = reg(0), x1 = reg(1), x2 = reg(2), mask = reg(3);
  a_.mov(kStage, x86::qword_ptr(args, offsetof(MicroKernelArgs, stage)));
  a_.mov(kPtr, stage_field(offsetof(OutputStageArgs, out)));
  if (l_.slice_column_slot >= 0) {
    a_.mov(kSliceColumn, x86::qword_ptr(x86::rsp, l_.slice_column_slot));
    a_.lea(kPtr, x86::ptr(kPtr, kSliceColumn, s_.to_float ? 2 : 0));
  }
  a_.mov(x86::qword_ptr(x86::rsp, kOutCursor), kPtr);
  a_.mov(kPtr, stage_field(offsetof(OutputStageArgs, row_offsets)));
  a_.mov(x86::qword_ptr(x86::rsp, kRowCursor), kPtr);
  if (s_.to_float) {
    // kHi holds ReLU's 0.0f.
    a_.vxorps(x0.ymm(), x0.ymm(), x0.ymm());
    store_vec(vec_at(x86::rsp, kHi), x0);
  } else {
    a_.vbroadcastss(x0, x86::dword_ptr(kStage, offsetof(OutputStageArgs, hi)));
    store_vec(vec_at(x86::rsp, kHi), x0);
    a_.vpbroadcastd(x0, x86::dword_ptr(kStage, offsetof(OutputStageArgs, c_zero_point)));
    store_vec(vec_at(x86::rsp, kCZeroPoint), x0);
    a_.vpbroadcastb(x0, x86::byte_ptr(kStage, offsetof(OutputStageArgs, floor)));
    store_vec(vec_at(x86::rsp, kFloorBytes), x0);
    if (narrow() || (l_.zmm && l_.nv == 1)) {
      a_.vpbroadcastd(x0, x86::dword_ptr(kStage, offsetof(OutputStageArgs, floor)));
      store_vec(vec_at(x86::rsp, kFloorDwords), x0);
    }
  }
  if (l_.zmm && !s_.to_float && !narrow()) {
    // The row's bytes (k2) for its one store.
    if (const int bytes = row_bytes(); bytes % 16 != 0) {
      a_.mov(kPtr, (uint64_t{1} << bytes) - 1);
      a_.kmovq(x86::k2, kPtr);
    }
  }

  if (!l_.zmm && l_.tail != 0) a_.vmovdqu(mask, x86::ymmword_ptr(l_.mask_table, (8 - l_.tail) * 4));
  for (int v = 0; v < l_.nv; ++v) {
    const int32_t slot = v * 64;
    // bias_i32 - a_zero_point * col_offsets (modulo 2^32): the accumulators' start.
    if (has_column_term()) {
      if (s_.bias == BiasKind::int32) load_lanes(x0, offsetof(OutputStageArgs, bias_i32), v, mask);
      else a_.vpxor(x0.ymm(), x0.ymm(), x0.ymm());
      if (s_.col_offsets) {
        load_lanes(x1, offsetof(OutputStageArgs, col_offsets), v, mask);
        a_.vpbroadcastd(x2, x86::dword_ptr(kStage, offsetof(OutputStageArgs, a_zero_point)));
        a_.vpmulld(x1, x1, x2);
        a_.vpsubd(x0, x0, x1);
      }
      store_vec(vec_at(x86::rsp, kColumnTerm + slot), x0);
    }
    if (s_.b_zero_point == StageOperand::lanes) {
      load_lanes(x0, offsetof(OutputStageArgs, b_zero_point), v, mask);
      store_vec(vec_at(x86::rsp, kBZeroPoint + slot), x0);
    } else if (s_.b_zero_point == StageOperand::scalar && narrow()) {
      broadcast_scalar(x0, offsetof(OutputStageArgs, b_zero_point), false);
      store_vec(vec_at(x86::rsp, kBZeroPoint + slot), x0);
    }
    if (s_.multiplier == StageOperand::lanes) load_lanes(x0, offsetof(OutputStageArgs, multiplier), v, mask);
    else broadcast_scalar(x0, offsetof(OutputStageArgs, multiplier), true);
    if (s_.to_float) {  // a_scale * b_scale, as the epilogue forms it
      a_.vbroadcastss(x1, x86::dword_ptr(kStage, offsetof(OutputStageArgs, a_scale)));
      a_.vmulps(x0, x1, x0);
    }
    store_vec(vec_at(x86::rsp, kMultiplier + slot), x0);
    if (s_.to_float && s_.bias == BiasKind::float32) {
      load_lanes(x0, offsetof(OutputStageArgs, bias_f32), v, mask);
      store_vec(vec_at(x86::rsp, kFloatBias + slot), x0);
    } else if (s_.bias == BiasKind::float32) {
      // bias_f32 / act_times_w_scale, divided once per call (lanes past nr: 0 / 0, unused).
      load_lanes(x0, offsetof(OutputStageArgs, bias_f32), v, mask);
      if (s_.act_times_w_scale == StageOperand::lanes)
        load_lanes(x1, offsetof(OutputStageArgs, act_times_w_scale), v, mask);
      else broadcast_scalar(x1, offsetof(OutputStageArgs, act_times_w_scale), true);
      a_.vdivps(x0, x0, x1);
      store_vec(vec_at(x86::rsp, kFloatBias + slot), x0);
    }
  }
}

void OutputStageEmitter::embed_data() {
  if (!s_.requantize || !l_.zmm) return;
  if (narrow()) {
    a_.align(AlignMode::kData, 64);
    a_.bind(lane_rows_);
    for (int lane = 0; lane < 16; ++lane) a_.embedInt32(lane * l_.rows_per_vector / 16);
    return;
  }
  // After vpackusdw + vpackuswb, 128-bit lane L holds the 4-byte quads L of the row's
  // vectors 0..3; output quad 4s + L is packed quad 4L + s.
  a_.align(AlignMode::kData, 64);
  a_.bind(pack_order_);
  for (int d = 0; d < 16; ++d) a_.embedInt32(4 * (d % 4) + d / 4);
}

void OutputStageEmitter::init_accumulators(const std::function<x86::Vec(int, int)>& acc) {
  for (int r = 0; r < (narrow() ? narrow_vectors() : l_.mr); ++r)
    for (int v = 0; v < l_.nv; ++v) {
      const x86::Mem term = vec_at(x86::rsp, kColumnTerm + v * 64);
      if (l_.zmm) a_.vmovdqu32(acc(r, v), term);
      else a_.vmovdqu(acc(r, v), term);
    }
}

// One row of zmm accumulators (int32 in [INT32_MIN, 255]) to bytes: two saturating
// packs, the floor, the quads put in order, one store.
void OutputStageEmitter::store_row_zmm(const std::function<x86::Vec(int, int)>& acc, int r) {
  const x86::Vec x = acc(r, 0);
  if (l_.nv == 1) {
    // One vector (nr <= 16, e.g. N = 16): the floor in int32, then one saturating narrowing
    // (x >= floor >= 0, so unsigned saturation clamps at 255), in place of two packs, the
    // byte floor and the quad permutation.
    a_.vpmaxsd(x, x, vec_at(x86::rsp, kFloorDwords));
    a_.vpmovusdb(x.xmm(), x);
    if (row_bytes() == 16) a_.vmovdqu32(x86::xmmword_ptr(kOutRow), x.xmm());
    else a_.k(x86::k2).vmovdqu8(x86::xmmword_ptr(kOutRow), x.xmm());
    return;
  }
  const auto src = [&](int v) { return acc(r, v < l_.nv ? v : 0); };
  a_.vpackusdw(x, src(0), src(1));
  if (l_.nv > 2) {
    a_.vpackusdw(src(2), src(2), src(3));
    a_.vpackuswb(x, x, src(2));
  } else {
    a_.vpackuswb(x, x, x);
  }
  a_.vpmaxub(x, x, vec_at(x86::rsp, kFloorBytes));
  a_.vmovdqu32(l_.t2, x86::zmmword_ptr(pack_order_));
  a_.vpermd(x, l_.t2, x);
  // A byte-masked store costs about 10 cycles on Zen 4 (5x an unmasked one), so rows of
  // 32 or 48 bytes are stored in whole 32- and 16-byte pieces; only other widths take the
  // masked store.
  const int bytes = row_bytes();
  if (bytes == 64) {
    a_.vmovdqu8(x86::zmmword_ptr(kOutRow), x);
  } else if (bytes % 16 == 0) {  // 32 or 48: one vector's rows (16) returned above
    a_.vmovdqu32(x86::ymmword_ptr(kOutRow), x.ymm());
    if (bytes == 48) {
      a_.vextracti32x4(l_.t2.xmm(), x, 2);
      a_.vmovdqu32(x86::xmmword_ptr(kOutRow, 32), l_.t2.xmm());
    }
  } else {
    a_.k(x86::k2).vmovdqu8(x86::zmmword_ptr(kOutRow), x);
  }
}

// One ymm accumulator to its 8 bytes (the row's tail: only its `tail` bytes).
void OutputStageEmitter::store_vector_ymm(const x86::Vec& x, int v) {
  const x86::Xmm lo = x.xmm(), hi = l_.t2.xmm();
  a_.vextracti128(hi, x.ymm(), 1);
  a_.vpackusdw(lo, lo, hi);
  a_.vpackuswb(lo, lo, lo);
  a_.vpmaxub(lo, lo, x86::xmmword_ptr(x86::rsp, kFloorBytes));
  int32_t at = v * 8;
  if (v != l_.nv - 1 || l_.tail == 0) {
    a_.vmovq(x86::qword_ptr(kOutRow, at), lo);
    return;
  }
  a_.vmovq(kScalar, lo);
  if (l_.tail & 4) {
    a_.mov(x86::dword_ptr(kOutRow, at), kScalar.r32());
    a_.shr(kScalar, 32);
    at += 4;
  }
  if (l_.tail & 2) {
    a_.mov(x86::word_ptr(kOutRow, at), kScalar.r16());
    a_.shr(kScalar, 16);
    at += 2;
  }
  if (l_.tail & 1) a_.mov(x86::byte_ptr(kOutRow, at), kScalar.r8());
}

// One vector of floats, the row's last one masked when nr is not a multiple of the width.
void OutputStageEmitter::store_floats(const x86::Vec& x, int v) {
  const bool masked = v == l_.nv - 1 && l_.tail != 0;
  if (l_.zmm) {
    const x86::Mem dst = x86::zmmword_ptr(kOutRow, v * 64);
    if (masked) a_.k(x86::k1).vmovups(dst, x);
    else a_.vmovups(dst, x);
    return;
  }
  const x86::Mem dst = x86::ymmword_ptr(kOutRow, v * 32);
  if (!masked) {
    a_.vmovups(dst, x);
    return;
  }
  a_.vmovdqu(l_.t2, x86::ymmword_ptr(l_.mask_table, (8 - l_.tail) * 4));
  a_.vmaskmovps(dst, l_.t2, x);
}

void OutputStageEmitter::begin_store(const x86::Gp& args) {
  a_.mov(kStage, x86::qword_ptr(args, offsetof(MicroKernelArgs, stage)));
  a_.mov(kLdOut, stage_field(offsetof(OutputStageArgs, ld_out)));
  a_.mov(kOutRow, x86::qword_ptr(x86::rsp, kOutCursor));
  a_.mov(kRowOffsets, x86::qword_ptr(x86::rsp, kRowCursor));
}

void OutputStageEmitter::end_store() {
  a_.imul(kScalar, kLdOut, l_.mr);
  a_.add(x86::qword_ptr(x86::rsp, kOutCursor), kScalar);
  a_.add(x86::qword_ptr(x86::rsp, kRowCursor), 4 * l_.mr);
}

void OutputStageEmitter::store(const x86::Gp& args, const std::function<x86::Vec(int, int)>& acc) {
  const x86::Vec t = l_.t, t2 = l_.t2;
  begin_store(args);
  if (s_.b_zero_point == StageOperand::scalar) a_.mov(kPtr, stage_field(offsetof(OutputStageArgs, b_zero_point)));
  for (int r = 0; r < l_.mr; ++r) {
    // The row term: row_offsets[r] in every lane (multiplied per lane below), or
    // b_zero_point * row_offsets[r] formed once for the row.
    if (s_.b_zero_point == StageOperand::lanes) {
      a_.vpbroadcastd(t, x86::dword_ptr(kRowOffsets, 4 * r));
    } else if (s_.b_zero_point == StageOperand::scalar) {
      a_.mov(kScalar.r32(), x86::dword_ptr(kRowOffsets, 4 * r));
      a_.imul(kScalar.r32(), x86::dword_ptr(kPtr));
      a_.vmovd(t.xmm(), kScalar.r32());
      a_.vpbroadcastd(t, t.xmm());
    }
    for (int v = 0; v < l_.nv; ++v) {
      const x86::Vec x = acc(r, v);
      const int32_t slot = v * 64;
      if (has_column_term() && !l_.start_at_column_term)
        a_.vpaddd(x, x, vec_at(x86::rsp, kColumnTerm + slot));
      if (s_.b_zero_point == StageOperand::lanes) {
        a_.vpmulld(t2, t, vec_at(x86::rsp, kBZeroPoint + slot));
        a_.vpsubd(x, x, t2);
      } else if (s_.b_zero_point == StageOperand::scalar) {
        a_.vpsubd(x, x, t);
      }
      a_.vcvtdq2ps(x, x);
      if (s_.to_float) {
        a_.vmulps(x, x, vec_at(x86::rsp, kMultiplier + slot));
        if (s_.bias == BiasKind::float32) a_.vaddps(x, x, vec_at(x86::rsp, kFloatBias + slot));
        if (s_.relu) a_.vmaxps(x, x, vec_at(x86::rsp, kHi));  // NaN becomes 0, as in the epilogue
        store_floats(x, v);
        continue;
      }
      if (s_.bias == BiasKind::float32) a_.vaddps(x, x, vec_at(x86::rsp, kFloatBias + slot));
      a_.vmulps(x, x, vec_at(x86::rsp, kMultiplier + slot));
      a_.vminps(x, x, vec_at(x86::rsp, kHi));  // the bound second: NaN becomes 255 - c_zp
      a_.vcvtps2dq(x, x);                      // half to even under the default MXCSR
      a_.vpaddd(x, x, vec_at(x86::rsp, kCZeroPoint));
      if (!l_.zmm) store_vector_ymm(x, v);
    }
    if (l_.zmm && !s_.to_float) store_row_zmm(acc, r);
    if (r + 1 < l_.mr) a_.add(kOutRow, kLdOut);
  }
  end_store();
}

// Rows [first, first + rows) of the panel: their offsets, one per lane of their row
// (t2 holds lane_rows_), times the lanes' b zero points.
void OutputStageEmitter::subtract_narrow_row_term(const x86::Vec& x, int first, int rows) {
  const x86::Xmm t = l_.t.xmm();
  if (rows == 4) {
    a_.vmovdqu(t, x86::xmmword_ptr(kRowOffsets, 4 * first));
  } else if (rows == 2) {
    a_.vmovq(t, x86::qword_ptr(kRowOffsets, 4 * first));
  } else {  // a tail: no read past the panel's last row
    a_.vmovd(t, x86::dword_ptr(kRowOffsets, 4 * first));
    for (int i = 1; i < rows; ++i) a_.vpinsrd(t, t, x86::dword_ptr(kRowOffsets, 4 * (first + i)), i);
  }
  a_.vpermd(l_.t, l_.t2, l_.t);
  a_.vpmulld(l_.t, l_.t, vec_at(x86::rsp, kBZeroPoint));
  a_.vpsubd(x, x, l_.t);
}

// A narrow vector (row term already in) to float, or to int32 in [floor, 255].
void OutputStageEmitter::requantize_vector(const x86::Vec& x) {
  a_.vcvtdq2ps(x, x);
  if (s_.to_float) {
    a_.vmulps(x, x, vec_at(x86::rsp, kMultiplier));
    if (s_.bias == BiasKind::float32) a_.vaddps(x, x, vec_at(x86::rsp, kFloatBias));
    if (s_.relu) a_.vmaxps(x, x, vec_at(x86::rsp, kHi));
    return;
  }
  if (s_.bias == BiasKind::float32) a_.vaddps(x, x, vec_at(x86::rsp, kFloatBias));
  a_.vmulps(x, x, vec_at(x86::rsp, kMultiplier));
  a_.vminps(x, x, vec_at(x86::rsp, kHi));
  a_.vcvtps2dq(x, x);
  a_.vpaddd(x, x, vec_at(x86::rsp, kCZeroPoint));
  // At most 255 here: the floor (>= 0) makes it the value of sat_u8 then max(., floor).
  a_.vpmaxsd(x, x, vec_at(x86::rsp, kFloorDwords));
}

void OutputStageEmitter::store_narrow(const x86::Gp& args, const std::function<x86::Vec(int)>& acc,
                                      const std::function<x86::Vec(int)>& sums) {
  const int rpv = l_.rows_per_vector, np = 16 / rpv, vectors = narrow_vectors();
  const int elem = s_.to_float ? 4 : 1;
  const bool row_term = s_.b_zero_point != StageOperand::absent;
  begin_store(args);
  if (row_term && !sums) a_.vmovdqu32(l_.t2, x86::zmmword_ptr(lane_rows_));
  for (int v = 0; v < vectors; ++v) {
    const x86::Vec x = acc(v);
    if (has_column_term() && !l_.start_at_column_term) a_.vpaddd(x, x, vec_at(x86::rsp, kColumnTerm));
    if (row_term && sums) {
      a_.vpmulld(l_.t, sums(v), vec_at(x86::rsp, kBZeroPoint));
      a_.vpsubd(x, x, l_.t);
    } else if (row_term) {
      subtract_narrow_row_term(x, v * rpv, std::min(rpv, l_.mr - v * rpv));
    }
    requantize_vector(x);
  }
  const x86::Xmm bytes = l_.t.xmm();
  Label done = a_.newLabel();
  if (l_.tail == np) {
    // Output rows exactly np elements apart: a vector is rpv whole rows, one store.
    Label by_rows = a_.newLabel();
    a_.cmp(kLdOut, np * elem);
    a_.jne(by_rows);
    for (int v = 0; v < vectors; ++v) {
      const int rows = std::min(rpv, l_.mr - v * rpv);
      if (rows < rpv) {
        a_.mov(kScalar.r32(), (1u << (rows * np)) - 1);
        a_.kmovw(x86::k6, kScalar.r32());
      }
      if (s_.to_float) {
        const x86::Mem dst = x86::zmmword_ptr(kOutRow, v * 64);
        if (rows < rpv) a_.k(x86::k6).vmovups(dst, acc(v));
        else a_.vmovups(dst, acc(v));
      } else {
        a_.vpmovusdb(bytes, acc(v));
        const x86::Mem dst = x86::xmmword_ptr(kOutRow, v * 16);
        if (rows < rpv) a_.k(x86::k6).vmovdqu8(dst, bytes);
        else a_.vmovdqu(dst, bytes);
      }
    }
    a_.jmp(done);
    a_.bind(by_rows);
  }
  // Row r: its lanes [i * np, i * np + nr) stored at its address minus i * np elements
  // (masked-off lanes neither write nor fault).
  for (int r = 0; r < l_.mr; ++r) {
    const int v = r / rpv, i = r % rpv;
    const x86::KReg k = l_.row_lanes[static_cast<size_t>(i)];
    if (s_.to_float) {
      a_.k(k).vmovups(x86::zmmword_ptr(kOutRow, -i * np * 4), acc(v));
    } else {
      if (i == 0) a_.vpmovusdb(bytes, acc(v));
      a_.k(k).vmovdqu8(x86::xmmword_ptr(kOutRow, -i * np), bytes);
    }
    if (r + 1 < l_.mr) a_.add(kOutRow, kLdOut);
  }
  a_.bind(done);
  end_store();
}

}  // namespace quire::jit
