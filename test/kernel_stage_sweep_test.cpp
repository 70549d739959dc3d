// Every JIT column micro-kernel with a requantizing output stage (src/cpu/output_stage.h),
// run on its own through KernelTester (kernel_tester.h) and checked byte for byte against
// quire::ref::requantize_u8 (or requantize_f32) of its int32 sums, with sentinels around
// and between the output rows, C checked unwritten, and every stage operand ending at a
// PROT_NONE page:
//   every path the CPU has x every kernel form the path has (exact; saturating acc16,
//   whose stage applies after the fold; pair-safe with pair-bounded B where the path has
//   no VNNI)
//   - Tiles: mr in [1, MR] x every nr in [1, NR] x k in {1, 4, 5, 64, 300} x accumulate,
//     1 or 3 row panels, the stage's operand forms (48) and c_zero_point in
//     {0, 1, 128, 255} x relu cycled through the configurations;
//   - EveryStage: every operand form x c_zero_point x relu on the full tile and on a
//     tile whose last vector is masked;
//   - SpecialMultipliers: multipliers of 0, negative, +inf, NaN and a lane-wise mix,
//     scalar and per lane, on a few tiles;
//   - FloatOutput: ReQuantizeForFloat's stage (floats against ref::requantize_f32), the
//     output in C itself on a quarter of the calls.
//   - ColumnSlices: kernels walking 2-4 column slices (KernelSpec::column_slices), 1-2
//     per B panel, every stage form, uint8 and float output;
//   - Narrow: the narrow kernels (AVX-512 paths; exact, acc16, pair-safe), mr in [1, 12] x
//     nr in [3, 8] x k x accumulate, uint8 and float output with the stage forms, zero
//     points, ReLU and special multipliers cycled, C and the output contiguous (one store
//     per vector) or padded (row by row) by turns; on VNNI half of them with row_sums.
// A tile without a stage kernel (its registers leave the stage no room; the driver then
// stores int32 and runs the epilogue) is skipped, and the skipped tiles are listed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "kernel_tester.h"
#include "test_util.h"

namespace quire::test {
namespace {

using detail::Isa;

constexpr int kDepths[] = {1, 4, 5, 64, 300};
constexpr int kCZeroPoints[] = {0, 1, 128, 255};

// The operand forms of a stage (requantize set): a_zero_point != 0, b_zero_point,
// multiplier, and bias with its act_times_w_scale.
struct StageForm {
  bool col_offsets;
  StageOperand b_zero_point, multiplier;
  BiasKind bias;
  StageOperand act_times_w_scale;
};

std::vector<StageForm> stage_forms() {
  std::vector<StageForm> forms;
  for (bool col : {false, true})
    for (StageOperand bzp : {StageOperand::absent, StageOperand::scalar, StageOperand::lanes})
      for (StageOperand mult : {StageOperand::scalar, StageOperand::lanes}) {
        forms.push_back({col, bzp, mult, BiasKind::none, StageOperand::absent});
        forms.push_back({col, bzp, mult, BiasKind::int32, StageOperand::absent});
        forms.push_back({col, bzp, mult, BiasKind::float32, StageOperand::scalar});
        forms.push_back({col, bzp, mult, BiasKind::float32, StageOperand::lanes});
      }
  return forms;
}

KernelTester& with_stage(KernelTester& t, const StageForm& f) {
  return t.requantize(true).col_offsets(f.col_offsets).b_zero_point(f.b_zero_point)
      .multiplier(f.multiplier).bias(f.bias).act_times_w_scale(f.act_times_w_scale);
}

// A kernel form: exact, saturating acc16, pair-safe, or exact on A widened.
struct Form {
  const char* name;
  bool acc16, pair_safe, wide_a = false, sx_b = false;
  int max_mr = 0, max_nr = 0;  // > 0: the form's own tile bound (sx_b: 6 x 8 and 2 x 16), see blocking()
};

class KernelStageSweep : public ::testing::TestWithParam<IsaCase> {
 protected:
  void SetUp() override {
    if (!GetParam().supported) GTEST_SKIP() << "needs " << missing_features(GetParam().isa);
    if (traits().vector_bytes == 0) GTEST_SKIP() << traits().name << " has no output stage (no JIT kernels)";
  }
  Isa isa() const { return detail::isa_from_inst_set(GetParam().isa); }
  const detail::IsaTraits& traits() const { return detail::traits(isa()); }
  int lanes() const { return traits().int32_lanes(); }

  std::vector<Form> forms() const {
    std::vector<Form> f{{"exact", false, false}};
    if (traits().acc16_saturates) f.push_back({"acc16", true, false});
    if (!traits().vnni) f.push_back({"pair_safe", false, true});
    if (detail::isa_record(isa()).widen_a != nullptr) f.push_back({"wide_a", false, false, true});
    if (detail::isa_record(isa()).widen_a_linear != nullptr) {  // sx_b's two tile bounds
      f.push_back({"sx_b", false, false, true, true, 6, 8});
      f.push_back({"sx_b 2x16", false, false, true, true, 2, 16});
    }
    return f;
  }
  // The blocking whose MR x NR bounds the form's tiles (sx_b: its own, max_mr x max_nr).
  BlockingFactors blocking(const Form& form) const {
    const detail::IsaRecord& record = detail::isa_record(isa());
    BlockingFactors bf = form.acc16 ? record.blocking_acc16 : record.blocking;
    if (form.max_mr > 0) {
      bf.MR = form.max_mr;
      bf.NR = form.max_nr;
    }
    return bf;
  }
  // pair-safe: pair-bounded B; otherwise full-range and extreme weights by turns.
  static BKind b_for(const Form& form, uint32_t i) {
    if (form.pair_safe) return BKind::pair_bounded;
    return i % 2 ? BKind::extreme : BKind::full;
  }
  KernelTester tester(const Form& form, int mr, int nr, uint32_t seed) const {
    KernelTester t;
    t.isa(isa()).mr(mr).nr(nr).acc16(form.acc16).pair_safe(form.pair_safe).wide_a(form.wide_a)
        .sx_b(form.sx_b)
        .b_kind(b_for(form, seed)).seed(seed);
    return t;
  }
  // Whether the tile has a stage kernel, noting the ones without.
  bool staged(const Form& form, int mr, int nr, std::string& skipped) const {
    if (with_stage(tester(form, mr, nr, 0).requantize(true), stage_forms()[0]).Generates()) return true;
    skipped.append(" ").append(std::to_string(mr)).append("x").append(std::to_string(nr));
    return false;
  }
  void report_skipped(const Form& form, const std::string& skipped) const {
    if (!skipped.empty())
      std::printf("[   INFO   ] %s %s: no stage kernel for tiles (mr x nr)%s\n", traits().name,
                  form.name, skipped.c_str());
  }
};

TEST_P(KernelStageSweep, Tiles) {
  const std::vector<StageForm> stages = stage_forms();
  uint32_t seed = 0;
  for (const Form& form : forms()) {
    const BlockingFactors& bf = blocking(form);
    std::string skipped;
    for (int mr = 1; mr <= bf.MR; ++mr)
      for (int nr = 1; nr <= bf.NR; ++nr) {
        if (!staged(form, mr, nr, skipped)) continue;
        for (int k : kDepths)
          for (bool accumulate : {false, true}) {
            ++seed;
            KernelTester t = tester(form, mr, nr, seed);
            with_stage(t, stages[seed % stages.size()])
                .k(k).accumulate(accumulate).m_panels(seed % 2 ? 3 : 1)
                .lda_pad(int(seed % 5)).ldc_pad(int(seed % 3)).out_pad(seed % 3 ? int(seed % 7) : 0)
                .c_zero_point(kCZeroPoints[(seed / 7) % 4]).relu((seed / 3) % 2)
                .Test();
            if (HasFailure()) return;  // one broken configuration says enough
          }
      }
    report_skipped(form, skipped);
  }
}

// ReQuantizeForFloat's stage: every tile as above x accumulate, the depths, the 48 float
// forms (col_offsets x b_zero_point x b_scale scalar or per lane x float bias or none x
// ReLU) and a quarter of the calls with the output in C itself cycled; then every form
// with every special b_scale on the MR x NR tile and a tail one.
TEST_P(KernelStageSweep, FloatOutput) {
  std::vector<StageForm> stages;
  for (const StageForm& f : stage_forms())
    if (f.bias != BiasKind::int32 && f.act_times_w_scale != StageOperand::lanes) stages.push_back(f);
  uint32_t seed = 300000;
  const auto run = [&](const Form& form, int mr, int nr, int k, bool accumulate, MultKind kind) {
    ++seed;
    KernelTester t = tester(form, mr, nr, seed);
    with_stage(t, stages[seed % stages.size()])
        .to_float(true).relu((seed / stages.size()) % 2).k(k).accumulate(accumulate)
        .m_panels(seed % 2 ? 3 : 1).lda_pad(int(seed % 5)).ldc_pad(int(seed % 3))
        .out_pad(seed % 3 ? int(seed % 7) : 0).in_place(seed % 4 == 1).mult_kind(kind)
        .Test();
  };
  for (const Form& form : forms()) {
    const BlockingFactors& bf = blocking(form);
    std::string skipped;
    for (int mr = 1; mr <= bf.MR; ++mr)
      for (int nr = 1; nr <= bf.NR; ++nr) {
        if (!staged(form, mr, nr, skipped)) continue;
        for (bool accumulate : {false, true}) {
          run(form, mr, nr, kDepths[(seed / 2) % 5], accumulate, MultKind::scaled);
          if (HasFailure()) return;
        }
      }
    for (int nr : {bf.NR, bf.NR - lanes() + 3}) {
      if (!staged(form, bf.MR, nr, skipped)) continue;
      for (size_t i = 0; i < 2 * stages.size(); ++i)
        for (MultKind kind : {MultKind::zero, MultKind::negative, MultKind::inf, MultKind::nan, MultKind::mixed}) {
          run(form, bf.MR, nr, 64, i % 2, kind);
          if (HasFailure()) return;
        }
    }
    report_skipped(form, skipped);
  }
}

TEST_P(KernelStageSweep, EveryStage) {
  const std::vector<StageForm> stages = stage_forms();
  uint32_t seed = 100000;
  for (const Form& form : forms()) {
    const BlockingFactors& bf = blocking(form);
    std::string skipped;
    for (int nr : {bf.NR, bf.NR - lanes() + 3}) {
      if (!staged(form, bf.MR, nr, skipped)) continue;
      for (const StageForm& stage : stages)
        for (int c_zero_point : kCZeroPoints)
          for (bool relu : {false, true}) {
            ++seed;
            KernelTester t = tester(form, bf.MR, nr, seed);
            with_stage(t, stage).k(64 + int(seed % 5)).accumulate(seed % 2).m_panels(2)
                .out_pad(int(seed % 4)).c_zero_point(c_zero_point).relu(relu)
                .Test();
            if (HasFailure()) return;
          }
    }
    report_skipped(form, skipped);
  }
}

// Kernels walking column slices (KernelSpec::column_slices) with every stage: each slice
// reads its own columns of the per-column operands and writes its own output columns
// (uint8 and float, in place by turns), the row term restarting per slice.
TEST_P(KernelStageSweep, ColumnSlices) {
  const std::vector<StageForm> stages = stage_forms();
  uint32_t seed = 300000;
  for (const Form& form : forms()) {
    const BlockingFactors& bf = blocking(form);
    std::string skipped;
    for (int mr : {1, bf.MR}) {
      if (!staged(form, mr, bf.NR, skipped)) continue;
      for (size_t i = 0; i < stages.size(); ++i)
        for (bool to_float : {false, true}) {
          const StageForm& stage = stages[i];
          if (to_float && (stage.bias == BiasKind::int32 || stage.act_times_w_scale == StageOperand::lanes))
            continue;
          ++seed;
          const int slices = 2 + int(seed % 3), per_panel = 1 + int(seed % 2);
          KernelTester t = tester(form, mr, bf.NR, seed);
          with_stage(t, stage).to_float(to_float).column_slices(slices, per_panel)
              .k(17 + int(seed % 48)).accumulate(seed % 2).m_panels(1 + int(seed % 2))
              .c_zero_point(kCZeroPoints[seed % 4]).relu(seed % 3 == 0)
              .in_place(to_float && seed % 4 == 0).out_pad(int(seed % 4));
          t.Test();
          if (HasFailure()) return;
        }
    }
    report_skipped(form, skipped);
  }
}

TEST_P(KernelStageSweep, SpecialMultipliers) {
  const std::vector<StageForm> stages = stage_forms();
  uint32_t seed = 200000;
  for (const Form& form : forms()) {
    const BlockingFactors& bf = blocking(form);
    std::string skipped;
    for (int mr : {1, bf.MR})
      for (int nr : {1, std::min(lanes() + 3, bf.NR), bf.NR}) {
        if (!staged(form, mr, nr, skipped)) continue;
        for (MultKind kind : {MultKind::zero, MultKind::negative, MultKind::inf, MultKind::nan, MultKind::mixed})
          for (StageOperand mult : {StageOperand::scalar, StageOperand::lanes})
            for (int c_zero_point : kCZeroPoints) {
              ++seed;
              StageForm stage = stages[seed % stages.size()];
              stage.multiplier = mult;
              KernelTester t = tester(form, mr, nr, seed);
              with_stage(t, stage).k(int(seed % 9) + 1).accumulate(seed % 2).m_panels(seed % 3 ? 1 : 3)
                  .mult_kind(kind).c_zero_point(c_zero_point).relu(seed % 4 < 2)
                  .Test();
              if (HasFailure()) return;
            }
      }
    report_skipped(form, skipped);
  }
}

TEST_P(KernelStageSweep, Narrow) {
  const int rows = traits().narrow_rows;
  if (rows == 0) GTEST_SKIP() << traits().name << " has no narrow kernels";
  const std::vector<StageForm> stages = stage_forms();
  const MultKind kinds[] = {MultKind::scaled, MultKind::scaled, MultKind::zero, MultKind::negative,
                            MultKind::inf, MultKind::nan, MultKind::mixed};
  uint32_t seed = 400000;
  for (const Form& form : forms()) {
    if (form.wide_a) continue;  // a column-kernel form only: narrow kernels read A as packed
    for (int mr = 1; mr <= rows; ++mr)
      for (int nr = 3; nr <= 8; ++nr)
        for (int k : kDepths)
          for (bool accumulate : {false, true}) {
            ++seed;
            StageForm stage = stages[seed % stages.size()];
            const bool to_float = seed % 3 == 0;
            if (to_float && stage.bias == BiasKind::int32) stage.bias = BiasKind::none;
            if (to_float) stage.act_times_w_scale = StageOperand::absent;
            KernelTester t = tester(form, mr, nr, seed);
            with_stage(t.narrow(true).row_sums(traits().vnni && seed % 2 == 0), stage)
                .to_float(to_float).k(k).accumulate(accumulate).m_panels(seed % 2 ? 3 : 1)
                .lda_pad(int(seed % 5)).ldc_pad(seed % 2 ? 0 : int(seed % 3))
                .out_pad(seed % 4 < 2 ? 0 : int(seed % 7)).c_zero_point(kCZeroPoints[(seed / 7) % 4])
                .relu((seed / 3) % 2).mult_kind(kinds[(seed / 11) % 7])
                .Test();
            if (HasFailure()) return;
          }
  }
}

INSTANTIATE_TEST_SUITE_P(AllPaths, KernelStageSweep, ::testing::ValuesIn(all_isas()),
                         [](const auto& info) { return std::string(instSetName(info.param.isa)); });

}  // namespace
}  // namespace quire::test
