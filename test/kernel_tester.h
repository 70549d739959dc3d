// KernelTester: runs one u8 x s8 -> s32 micro-kernel on its own, outside fbgemmPacked, and
// checks C bit for bit against plain loops (a builder in the style of XNNPACK's
// GemmMicrokernelTester):
//
//   KernelTester().isa(Isa::avx512_vnni).mr(6).nr(64).k(37).lda_pad(5).ldc_pad(3)
//       .accumulate(true).Test();
//
// The operands are laid out exactly as docs/kernel-contract.md specifies and sized to
// exactly what it lets a kernel touch; A and B end where a PROT_NONE page begins
// (guard_alloc.h), so a kernel's read past them faults (ASan sees only the portable
// kernel's loads, never those of generated code):
//   A  m_panels*mr rows, lda = 4*k4 + lda_pad bytes apart; each row holds k values, zeros
//      up to 4*k4 (the K tail), then lda_pad garbage bytes; the last row ends at 4*k4.
//      With wide_a(true) (the wide exact column kernels of avx2 and avx512,
//      KernelSpec::wide_a) the same rows go through the path's widen_a: 8*k4 bytes each,
//      lda = 8*k4 + lda_pad. With sx_b(true) too (avx2's kernels that sign-extend B per
//      step, KernelSpec::sx_b) through widen_a_linear instead.
//   B  one panel of W columns, k4 steps of 4W bytes; lane j of step t holds B[4t..4t+3][j]
//      (zeros past k). The slice starts at column b_offset. W defaults to the least the
//      kernel may read: b_offset + ceil(nr / L) * L for column kernels (L int32 lanes),
//      b_offset + Np (Np = 4 or 8) for narrow ones, b_offset + nr for the portable one.
//      Columns outside the slice hold garbage that the kernel must throw away.
//      With panel_vectors(pv) (small-M tiles spanning B panels, KernelSpec::panel_vectors)
//      the nr columns lie in ceil(nr / W) panels of W = pv * L columns, b_panel_stride =
//      4*k4*W + 96 bytes apart (the gaps hold garbage); the slice starts at column 0.
//   C  m_panels*mr rows of nr int32, ldc = nr + ldc_pad apart, between two guard zones;
//      every element outside the tile (guards and row padding) holds a sentinel that must
//      survive the call.
// The expected C is exact (C = A*B, or C += A*B with accumulate, modulo 2^32) except for
// the acc16 kernels, which follow the saturating model of docs/acc16.md over one window
// (one call is one K block). Pair-safe kernels are exact only for B within the pair bound, so they
// get B of that kind unless told otherwise.
//
// With requantize(true) the kernel carries a requantizing output stage
// (src/cpu/output_stage.h): it must write uint8 to `out` (rows nr + out_pad bytes apart,
// 64 sentinel bytes before and after, sentinel row padding) with exactly the bytes of
// quire::ref::requantize_u8 applied to those sums (a NaN x gives 255, as the epilogue;
// the reference leaves it undefined), and leave C as it was; with to_float(true), the
// floats of ref::requantize_f32 (in C itself with in_place(true)). The stage's per-column
// and per-row arrays hold exactly nr (or 1, or the rows) values and end where a PROT_NONE
// page begins (guard_alloc.h), so a read past them faults: AddressSanitizer does not see
// the loads of JIT code (stage_operands.h).
//
// Test() skips (GTEST_SKIP naming the missing CPU features) on a path the CPU lacks, and
// records at most one failure per call, naming the configuration and the first wrong
// element, so a sweep can stop at the first broken configuration (HasFailure()).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../src/cpu/isa_record.h"
#include "../src/jit/kernel_cache.h"
#include "stage_operands.h"
#include "test_util.h"

namespace quire::test {

// The weights B is drawn from.
enum class BKind {
  full,          // uniform over [-128, 127]
  pair_bounded,  // every K pair (4t, 4t+1), (4t+2, 4t+3) within the pair-safe bound, often at it
  extreme,       // columns of all 127, all -128 and random +-127/-128: saturates acc16
};

inline const char* b_kind_name(BKind kind) {
  switch (kind) {
    case BKind::full: return "full";
    case BKind::pair_bounded: return "pair_bounded";
    case BKind::extreme: return "extreme";
  }
  return "?";
}

class KernelTester {
 public:
  KernelTester& isa(detail::Isa v) { isa_ = v; return *this; }
  KernelTester& mr(int v) { mr_ = v; return *this; }
  KernelTester& nr(int v) { nr_ = v; return *this; }
  KernelTester& k(int v) { k_ = v; return *this; }
  KernelTester& m_panels(int v) { m_panels_ = v; return *this; }
  KernelTester& lda_pad(int v) { lda_pad_ = v; return *this; }
  KernelTester& ldc_pad(int v) { ldc_pad_ = v; return *this; }
  KernelTester& b_offset(int v) { b_offset_ = v; return *this; }
  KernelTester& panel_width(int v) { panel_width_ = v; return *this; }  // 0: the least allowed
  KernelTester& accumulate(bool v) { accumulate_ = v; return *this; }
  KernelTester& narrow(bool v) { narrow_ = v; return *this; }
  // Narrow VNNI kernels: also the rows' A sums, written (checked) and, with a stage, used
  // as its row offsets (the stage's row_offsets then hold the same sums).
  KernelTester& row_sums(bool v) { row_sums_ = v; return *this; }
  KernelTester& acc16(bool v) { acc16_ = v; return *this; }
  KernelTester& pair_safe(bool v) {
    pair_safe_ = v;
    if (v && !b_kind_set_) b_kind_ = BKind::pair_bounded;
    return *this;
  }
  KernelTester& wide_a(bool v) { wide_a_ = v; return *this; }  // A widened (KernelSpec::wide_a)
  KernelTester& sx_b(bool v) { sx_b_ = v; return *this; }  // with wide_a: KernelSpec::sx_b
  KernelTester& panel_vectors(int v) { panel_vectors_ = v; return *this; }  // tiles spanning panels
  // A kernel walking n column slices of nr columns (KernelSpec::column_slices), per_panel
  // of them in each B panel of W = per_panel * nr columns: the call covers n * nr columns.
  // With panel_vectors, each slice is nr / W whole panels (b_slice_stride apart).
  KernelTester& column_slices(int n, int per_panel = 1) {
    column_slices_ = true;
    slices_ = n;
    slices_per_panel_ = per_panel;
    return *this;
  }
  KernelTester& b_kind(BKind v) { b_kind_ = v; b_kind_set_ = true; return *this; }
  KernelTester& seed(uint32_t v) { seed_ = v; return *this; }

  // The requantizing output stage (OutputStage fields; act_times_w_scale defaults to
  // scalar for a float bias into uint8) and its runtime values. to_float: ReQuantizeForFloat's
  // stage (multiplier is b_scale; bias none or float32; relu is max(., 0.0f)).
  KernelTester& requantize(bool v) { stage_.requantize = v; return *this; }
  KernelTester& to_float(bool v) { stage_.to_float = v; return *this; }
  KernelTester& col_offsets(bool v) { stage_.col_offsets = v; return *this; }  // a_zero_point != 0
  KernelTester& b_zero_point(StageOperand v) { stage_.b_zero_point = v; return *this; }
  KernelTester& multiplier(StageOperand v) { stage_.multiplier = v; return *this; }
  KernelTester& bias(detail::BiasKind v) { stage_.bias = v; return *this; }
  KernelTester& act_times_w_scale(StageOperand v) { stage_.act_times_w_scale = v; return *this; }
  KernelTester& relu(bool v) { relu_ = v; return *this; }  // uint8: floor = c_zero_point
  KernelTester& c_zero_point(int v) { c_zero_point_ = v; return *this; }
  KernelTester& mult_kind(MultKind v) { mult_kind_ = v; return *this; }
  KernelTester& out_pad(int v) { out_pad_ = v; return *this; }  // ld_out = nr + out_pad elements
  // Float output in C itself (ld_out = ldc), as engines pass it: C is read (accumulate)
  // before the panel's floats are written over it.
  KernelTester& in_place(bool v) { in_place_ = v; return *this; }

  std::string describe() const {
    std::ostringstream s;
    s << detail::traits(isa_).name << (narrow_ ? " narrow" : "") << (row_sums_ ? " row_sums" : "")
      << (acc16_ ? " acc16" : "") << (pair_safe_ ? " pair_safe" : "") << (wide_a_ ? " wide_a" : "") << (sx_b_ ? " sx_b" : "")
      << (panel_vectors_ > 0 ? " panel_vectors=" + std::to_string(panel_vectors_) : "")
      << (column_slices_ ? " slices=" + std::to_string(slices_) + "/" + std::to_string(slices_per_panel_) : "")
      << " mr=" << mr_ << " nr=" << nr_ << " k=" << k_
      << " m_panels=" << m_panels_ << " lda_pad=" << lda_pad_ << " ldc_pad=" << ldc_pad_
      << " b_offset=" << b_offset_ << " W=" << width() << " accumulate=" << accumulate_
      << " b=" << b_kind_name(b_kind_) << " seed=" << seed_;
    if (stage_.requantize) {
      const detail::OutputStage st = stage();
      s << (st.to_float ? " | f32" : " | u8") << " col_offsets=" << st.col_offsets << " b_zero_point=" << operand_name(st.b_zero_point)
        << " multiplier=" << operand_name(st.multiplier) << "/" << mult_kind_name(mult_kind_)
        << " bias=" << bias_name(st.bias);
      if (st.act_times_w_scale != StageOperand::absent) s << "/" << operand_name(st.act_times_w_scale);
      s << " relu=" << relu_;
      if (!st.to_float) s << " c_zero_point=" << c_zero_point_;
      if (in_place_) s << " in_place";
      else s << " out_pad=" << out_pad_;
    }
    return s.str();
  }

  // Whether the path generates this kernel (a requantizing stage needs room in the
  // registers: the entry answers null for other tiles). Generates and caches it.
  bool Generates() const { return kernel() != nullptr; }

  void Test() const {
    if (!detail::cpu_has(isa_))
      GTEST_SKIP() << detail::traits(isa_).name << " needs " << missing_features(detail::traits(isa_).inst_set);
    if (pair_safe_ && b_kind_ != BKind::pair_bounded) {
      ADD_FAILURE() << describe() << ": pair-safe kernels are exact only for pair_bounded B";
      return;
    }
    if (wide_a_ && detail::isa_record(isa_).widen_a == nullptr) {
      ADD_FAILURE() << describe() << ": only paths with widen_a have wide-A kernels";
      return;
    }
    if (sx_b_ && (!wide_a_ || detail::isa_record(isa_).widen_a_linear == nullptr)) {
      ADD_FAILURE() << describe() << ": sx_b kernels read A widened by widen_a_linear";
      return;
    }
    if (acc16_ && !detail::traits(isa_).acc16_saturates) {
      ADD_FAILURE() << describe() << ": acc16 runs the exact kernels on this path; test those";
      return;
    }
    if (stage_.requantize && detail::traits(isa_).vector_bytes == 0) {
      ADD_FAILURE() << describe() << ": only JIT kernels have an output stage";
      return;
    }
    if (stage_.requantize && stage_.to_float && stage_.bias == detail::BiasKind::int32) {
      ADD_FAILURE() << describe() << ": a float output stage has no int32 bias";
      return;
    }
    if (in_place_ && !(stage_.requantize && stage_.to_float)) {
      ADD_FAILURE() << describe() << ": only a float output stage writes C in place";
      return;
    }
    if (panel_vectors_ > 0 && (b_offset_ != 0 || panel_width_ != 0)) {
      ADD_FAILURE() << describe() << ": tiles spanning panels start at column 0 of W = pv * L";
      return;
    }
    if (column_slices_ && (b_offset_ != 0 || panel_width_ != 0 || slices_ < 1 || slices_per_panel_ < 1 ||
                           (panel_vectors_ > 0 && nr_ % width() != 0))) {
      ADD_FAILURE() << describe() << ": column slices start at column 0 of W = per_panel * nr";
      return;
    }
    if (width() < least_width()) {
      ADD_FAILURE() << describe() << ": the kernel reads " << least_width() << " panel columns";
      return;
    }
    detail::MicroKernelFn fn = nullptr;
    try {
      fn = kernel();
    } catch (const std::exception& e) {
      ADD_FAILURE() << describe() << ": no kernel: " << e.what();
      return;
    }
    if (fn == nullptr) {
      ADD_FAILURE() << describe() << ": the path has no kernel of this spec";
      return;
    }

    std::mt19937 rng(seed_);
    // cols: the call's columns (nr, or nr per slice); the kernel's tile is nr wide.
    const int k4 = (k_ + 3) / 4, rows = m_panels_ * mr_, W = width(), cols = nr_ * slices();
    const int64_t lda = 4 * k4 + lda_pad_, ldc = cols + ldc_pad_;

    // Logical A (rows x 4*k4, zero past k) and its buffer.
    std::vector<uint8_t> a_logical(size_t(rows) * 4 * k4, 0);
    std::uniform_int_distribution<int> byte(0, 255), quarter(0, 3);
    for (int i = 0; i < rows; ++i)
      for (int q = 0; q < k_; ++q)
        a_logical[size_t(i) * 4 * k4 + q] = quarter(rng) == 0 ? 255 : uint8_t(byte(rng));
    GuardedArray<uint8_t> a(size_t(rows - 1) * lda + 4 * k4, Guard::after);
    for (int i = 0; i < rows; ++i)
      for (int64_t q = 0; q < (i + 1 < rows ? lda : 4 * k4); ++q)
        a[i * lda + q] = q < 4 * k4 ? a_logical[size_t(i) * 4 * k4 + q] : uint8_t(byte(rng));
    // Widened A: each row through widen_a, then its garbage padding.
    const int64_t wide_lda = 8 * k4 + lda_pad_;
    GuardedArray<uint8_t> wide(wide_a_ ? size_t(rows - 1) * wide_lda + 8 * k4 : 0, Guard::after);
    if (wide_a_) {
      std::vector<uint16_t> row(size_t(4) * k4);
      for (int i = 0; i < rows; ++i) {
        const detail::WidenAFn widen =
            sx_b_ ? detail::isa_record(isa_).widen_a_linear : detail::isa_record(isa_).widen_a;
        widen(&a_logical[size_t(i) * 4 * k4], 4 * k4, 1, k4, row.data(), 4 * k4);
        std::memcpy(&wide[i * wide_lda], row.data(), size_t(8) * k4);
        if (i + 1 < rows)
          for (int64_t q = 8 * k4; q < wide_lda; ++q) wide[i * wide_lda + q] = uint8_t(byte(rng));
      }
    }

    // Logical B (4*k4 x panels*W, zero past k in the slice's columns) packed into panels
    // of W columns, panel_stride bytes apart (one panel unless panel_vectors or slices).
    const int panels = panel_vectors_ > 0 || column_slices_ ? (cols + W - 1) / W : 1, BW = panels * W;
    const int64_t panel_bytes = int64_t{k4} * 4 * W;
    const int64_t panel_stride = panel_bytes + (panels > 1 ? 96 : 0);
    const std::vector<int8_t> b_logical = draw_b(rng, k4, BW);
    GuardedArray<int8_t> b(size_t((panels - 1) * panel_stride + panel_bytes), Guard::after);
    for (size_t e = 0; e < b.size(); ++e) b[e] = int8_t(byte(rng));  // the gaps' garbage
    for (int kk = 0; kk < 4 * k4; ++kk)
      for (int j = 0; j < BW; ++j)
        b[size_t(j / W * panel_stride + (kk / 4) * 4 * W + (j % W) * 4 + kk % 4)] =
            b_logical[size_t(kk) * BW + j];

    // C between guards; the tile's start values matter only with accumulate. They stay
    // well inside int32 for the int32 store (the portable kernel adds as int); a
    // requantizing kernel gets any int32 (its sums wrap, as the stage's formula says).
    constexpr int kGuard = 16;
    constexpr int32_t kSentinel = 0x5a5a5a5a;
    std::vector<int32_t> c(kGuard + size_t(rows - 1) * ldc + cols + kGuard, kSentinel);
    std::uniform_int_distribution<int32_t> start(-1000000, 1000000), any(INT32_MIN, INT32_MAX);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) c[kGuard + i * ldc + j] = stage_.requantize ? any(rng) : start(rng);
    // The tile's int32 sums, A*B [+ C] modulo 2^32.
    std::vector<int32_t> sums(size_t(rows) * cols);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        const int32_t dot = reference_dot(&a_logical[size_t(i) * 4 * k4], b_logical, BW, b_offset_ + j, k4);
        const uint32_t before = accumulate_ ? uint32_t(c[kGuard + i * ldc + j]) : 0;
        sums[size_t(i) * cols + j] = int32_t(before + uint32_t(dot));
      }
    // The int32 store writes the sums; a requantizing kernel only reads C.
    std::vector<int32_t> want = c;
    if (!stage_.requantize)
      for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) want[kGuard + i * ldc + j] = sums[size_t(i) * cols + j];

    // Each row's A sum over the K block, and the buffer a row_sums kernel writes them to.
    std::vector<int32_t> a_sums(size_t(rows), 0);
    for (int i = 0; i < rows; ++i)
      for (int q = 0; q < 4 * k4; ++q) a_sums[size_t(i)] += a_logical[size_t(i) * 4 * k4 + q];
    GuardedArray<int32_t> sums_out(row_sums_ ? size_t(rows) : 0, Guard::after);
    for (size_t i = 0; i < sums_out.size(); ++i) sums_out[i] = kSentinel;

    detail::MicroKernelArgs args{};
    args.row_sums = row_sums_ ? sums_out.data() : nullptr;
    args.a = wide_a_ ? wide.data() : a.data();
    args.b = b.data() + 4 * b_offset_;
    args.c = c.data() + kGuard;
    args.k4_steps = k4;
    args.lda = wide_a_ ? wide_lda : lda;
    args.a_panel_stride = mr_ * args.lda;
    args.b_step = 4 * int64_t{W};
    args.b_panel_stride = panel_stride;
    args.ldc_bytes = ldc * int64_t{sizeof(int32_t)};
    args.m_panels = m_panels_;
    args.accumulate = accumulate_;
    args.mr = mr_;
    args.nr = nr_;
    args.n_slices = slices_;
    args.slices_per_panel = slices_per_panel_;
    args.b_slice_stride = panel_vectors_ > 0 ? nr_ / W * panel_stride : 0;  // whole spans

    std::string stage_failure;
    if (stage_.requantize) {
      StageCase stage_case(stage(), rows, cols, in_place_ ? ldc_pad_ : out_pad_, c_zero_point_, relu_);
      stage_case.draw(rng, sums, mult_kind_, in_place_ ? &c : nullptr, row_sums_ ? &a_sums : nullptr);
      args.stage = &stage_case.args();
      if (in_place_) args.c = stage_case.in_place_c();  // C (above) then stays as it was
      run_noting_faults(fn, args, describe());
      stage_failure = stage_case.check();
    } else {
      run_noting_faults(fn, args, describe());
    }

    for (int i = 0; i < int(sums_out.size()); ++i)
      if (sums_out[size_t(i)] != a_sums[size_t(i)]) {
        ADD_FAILURE() << describe() << ": row sum " << i << " = " << sums_out[size_t(i)]
                      << ", expected " << a_sums[size_t(i)];
        return;
      }
    int wrong = 0;
    size_t first = 0;
    for (size_t e = 0; e < c.size(); ++e)
      if (c[e] != want[e] && wrong++ == 0) first = e;
    if (wrong == 0) {
      if (!stage_failure.empty()) ADD_FAILURE() << describe() << ": " << stage_failure;
      return;
    }
    std::ostringstream where;
    const int64_t rel = int64_t(first) - kGuard;
    if (rel < 0 || rel >= int64_t(c.size()) - 2 * kGuard) {
      where << "a guard element " << (rel < 0 ? rel : rel - (int64_t(c.size()) - 2 * kGuard))
            << (rel < 0 ? " before C" : " after C's last element");
    } else if (rel % ldc >= cols) {
      where << "row padding of C row " << rel / ldc << ", column " << rel % ldc;
    } else {
      where << "C[" << rel / ldc << "][" << rel % ldc << "]";
    }
    ADD_FAILURE() << describe() << ": " << wrong << " wrong int32 elements"
                  << (stage_.requantize ? " (a requantizing kernel must not write C)" : "")
                  << "; first " << where.str() << " = " << c[first] << ", expected " << want[first];
  }

 private:
  // Lanes of B the kernel loads per row of a step (docs/kernel-contract.md).
  int least_width() const {
    const int lanes = detail::traits(isa_).int32_lanes();
    if (panel_vectors_ > 0) return std::min(nr_, panel_vectors_ * lanes);  // whole panels
    if (lanes == 0) return b_offset_ + nr_;                     // portable: exactly the slice
    if (narrow_) return b_offset_ + (nr_ <= 4 ? 4 : 8);         // one 16- or 32-byte broadcast
    return b_offset_ + (nr_ + lanes - 1) / lanes * lanes;       // whole vectors, never masked
  }
  int width() const {
    if (panel_vectors_ > 0) return panel_vectors_ * detail::traits(isa_).int32_lanes();
    if (column_slices_) return slices_per_panel_ * nr_;
    return panel_width_ > 0 ? panel_width_ : least_width();
  }

  // The stage as generated: a float bias into uint8 divides by act_times_w_scale (scalar
  // unless told), else the field is unused; relu is part of a float output's spec (the
  // uint8 floor is a runtime value).
  detail::OutputStage stage() const {
    detail::OutputStage st = stage_;
    if (st.to_float || st.bias != detail::BiasKind::float32) st.act_times_w_scale = StageOperand::absent;
    else if (st.act_times_w_scale == StageOperand::absent) st.act_times_w_scale = StageOperand::scalar;
    st.relu = st.to_float && relu_;
    return st;
  }

  // Every form through the record's one kernel entry, as the driver reaches it; it
  // answers null for a spec the path has no kernel of.
  detail::MicroKernelFn kernel() const {
    return detail::isa_record(isa_).kernel(
        jit::KernelSpec{.isa = isa_, .mr = mr_, .nr = nr_, .narrow = narrow_, .acc16 = acc16_,
                        .pair_safe = pair_safe_, .stage = stage(), .row_sums = row_sums_,
                        .wide_a = wide_a_, .sx_b = sx_b_, .panel_vectors = panel_vectors_,
                        .column_slices = column_slices_});
  }

  // 4*k4 x W, row kk at kk*W; rows past k are zero in every column (packed padding).
  std::vector<int8_t> draw_b(std::mt19937& rng, int k4, int W) const {
    std::vector<int8_t> b(size_t(k4) * 4 * W, 0);
    std::uniform_int_distribution<int> full(-128, 127), coin(0, 1);
    for (int kk = 0; kk < k_; kk += 2)
      for (int j = 0; j < W; ++j) {
        int b0 = full(rng), b1 = full(rng);
        if (b_kind_ == BKind::pair_bounded) {
          // Positive parts of the pair sum to <= 128, negative parts to >= -128, so
          // 255 * either stays within int16; half the time b1 sits at its limit.
          const int lo = b0 < 0 ? -128 - b0 : -128, hi = b0 > 0 ? std::min(127, 128 - b0) : 127;
          b1 = coin(rng) ? (coin(rng) ? lo : hi) : std::uniform_int_distribution<int>(lo, hi)(rng);
        } else if (b_kind_ == BKind::extreme) {
          const int kind = j % 3;  // all 127, all -128, or a random one of +-127 / -128
          b0 = kind == 0 ? 127 : kind == 1 ? -128 : (coin(rng) ? 127 : -128);
          b1 = kind == 0 ? 127 : kind == 1 ? -128 : (coin(rng) ? -127 : 126);
        }
        b[size_t(kk) * W + j] = int8_t(b0);
        if (kk + 1 < k_) b[size_t(kk + 1) * W + j] = int8_t(b1);
      }
    return b;
  }

  // One output: the exact dot product, or acc16's (docs/acc16.md, one window):
  // lo = sat16(lo + sat16(a0*b0 + a1*b1)), hi likewise over (a2, b2), (a3, b3); lo + hi.
  int32_t reference_dot(const uint8_t* a, const std::vector<int8_t>& b, int W, int col, int k4) const {
    const auto sat16 = [](int32_t x) { return std::clamp(x, -32768, 32767); };
    const auto prod = [&](int kk) { return int32_t{a[kk]} * int32_t{b[size_t(kk) * W + col]}; };
    int32_t exact = 0, lo = 0, hi = 0;
    for (int t = 0; t < k4; ++t) {
      const int kk = 4 * t;
      exact += prod(kk) + prod(kk + 1) + prod(kk + 2) + prod(kk + 3);
      lo = sat16(lo + sat16(prod(kk) + prod(kk + 1)));
      hi = sat16(hi + sat16(prod(kk + 2) + prod(kk + 3)));
    }
    return acc16_ ? lo + hi : exact;
  }

  detail::Isa isa_ = detail::Isa::portable;
  int mr_ = 1, nr_ = 1, k_ = 1, m_panels_ = 1;
  int lda_pad_ = 0, ldc_pad_ = 0, b_offset_ = 0, panel_width_ = 0;
  bool accumulate_ = false, narrow_ = false, acc16_ = false, pair_safe_ = false, row_sums_ = false,
       wide_a_ = false, sx_b_ = false;
  int panel_vectors_ = 0;
  bool column_slices_ = false;
  int slices_ = 1, slices_per_panel_ = 1;
  int slices() const { return column_slices_ ? slices_ : 1; }
  BKind b_kind_ = BKind::full;
  bool b_kind_set_ = false;
  uint32_t seed_ = 1;
  detail::OutputStage stage_{};
  bool relu_ = false;
  int c_zero_point_ = 0, out_pad_ = 3;
  bool in_place_ = false;
  MultKind mult_kind_ = MultKind::scaled;
};

}  // namespace quire::test
