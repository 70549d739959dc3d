// Every micro-kernel the int8 GEMM can call, run on its own through KernelTester
// (kernel_tester.h) and checked bit for bit, with a sentinel around C:
//   every path the CPU has x every kernel form the path has (exact; saturating acc16 where
//   acc16 saturates; pair-safe and exact on widened A where the path has no VNNI) x
//   mr in [1, MR] x
//   nr in {1, L-1, L, L+1, 2L-1, ..., NR} (L int32 lanes) x k in {1, 3, 4, 17, 64, 65}
//   x accumulate, with 1-3 row panels and varying A and C strides;
//   the narrow kernels (AVX-512 paths) over mr in [1, 12] x nr in [3, 8] (on VNNI half of
//   them also writing the rows' A sums);
//   the strides, slice offsets and panel widths of the contract on a few tiles;
//   and kernels walking 1-5 column slices in one call (KernelSpec::column_slices), the
//   spanning tiles among them.
// MR and NR are the path's default tile (its record's blocking; acc16's for acc16), which
// is the largest the driver calls with default blocking.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernel_tester.h"
#include "test_util.h"

namespace quire::test {
namespace {

using detail::Isa;

constexpr int kDepths[] = {1, 3, 4, 17, 64, 65};
// Narrow kernels: also 2 and 3 steps past the 4-step blocks (8, 28), and 36 (2 blocks + 1).
constexpr int kNarrowDepths[] = {1, 3, 4, 8, 17, 28, 36, 64, 65};

// 1, then L-1, L, L+1 around every multiple of L up to NR (within [1, NR]).
std::vector<int> nr_set(int lanes, int NR) {
  std::vector<int> set{1};
  for (int v = lanes; v <= NR; v += lanes)
    for (int nr : {v - 1, v, v + 1})
      if (nr > set.back() && nr <= NR) set.push_back(nr);
  return set;
}

// A kernel form: exact, saturating acc16, pair-safe, or exact on A widened.
struct Form {
  const char* name;
  bool acc16, pair_safe, wide_a = false, sx_b = false;
  int max_mr = 0, max_nr = 0;  // > 0: the form's own tile bound (sx_b: 6 x 16, 2 x 16 past 8 columns)
};

class KernelSweep : public ::testing::TestWithParam<IsaCase> {
 protected:
  void SetUp() override {
    if (!GetParam().supported) GTEST_SKIP() << "needs " << missing_features(GetParam().isa);
  }
  Isa isa() const { return detail::isa_from_inst_set(GetParam().isa); }
  const detail::IsaTraits& traits() const { return detail::traits(isa()); }
  // Lanes that shape the nr set; the portable kernel has none, so it takes the ymm set.
  int lanes() const { return traits().vector_bytes > 0 ? traits().int32_lanes() : 8; }

  std::vector<Form> forms() const {
    std::vector<Form> f{{"exact", false, false}};
    if (traits().acc16_saturates) f.push_back({"acc16", true, false});
    if (traits().vector_bytes > 0 && !traits().vnni) f.push_back({"pair_safe", false, true});
    if (detail::isa_record(isa()).widen_a != nullptr) f.push_back({"wide_a", false, false, true});
    if (detail::isa_record(isa()).widen_a_linear != nullptr)
      f.push_back({"sx_b", false, false, true, true, 6, 16});
    return f;
  }
  // B for a form: pair-safe kernels need the bound; the others alternate full-range and
  // extreme weights (which saturate acc16, and must not disturb the exact kernels).
  static BKind b_for(const Form& form, int i) {
    if (form.pair_safe) return BKind::pair_bounded;
    return i % 2 ? BKind::extreme : BKind::full;
  }
};

TEST_P(KernelSweep, ColumnKernels) {
  const detail::IsaRecord& record = detail::isa_record(isa());
  uint32_t seed = 0;
  for (const Form& form : forms()) {
    const BlockingFactors& bf = form.acc16 ? record.blocking_acc16 : record.blocking;
    for (int mr = 1; mr <= (form.max_mr > 0 ? form.max_mr : bf.MR); ++mr)
      for (int nr : form.max_nr > 0 ? std::vector<int>{1, 3, 4, 5, 7, 8, 9, 12, 13, 16}
                                    : nr_set(lanes(), bf.NR))
        for (int k : kDepths)
          for (bool accumulate : {false, true}) {
            if (form.sx_b && mr > 2 && nr > 8) continue;  // sx_b: 6 x 8 or 2 x 16 (registers)
            ++seed;
            KernelTester()
                .isa(isa()).mr(mr).nr(nr).k(k)
                .m_panels(1 + (mr + k) % 3).lda_pad((mr + k) % 5).ldc_pad(nr % 3)
                .accumulate(accumulate).acc16(form.acc16).pair_safe(form.pair_safe)
                .wide_a(form.wide_a).sx_b(form.sx_b).b_kind(b_for(form, int(seed))).seed(seed)
                .Test();
            if (HasFailure()) return;  // one broken configuration says enough
          }
  }
}

TEST_P(KernelSweep, NarrowKernels) {
  const int rows = traits().narrow_rows;
  if (rows == 0) GTEST_SKIP() << traits().name << " has no narrow kernels";
  uint32_t seed = 0;
  for (const Form& form : forms()) {
    if (form.wide_a) continue;  // a column kernel form only
    for (int mr = 1; mr <= rows; ++mr)
      for (int nr = 3; nr <= 8; ++nr)
        for (int k : kNarrowDepths)
          for (bool accumulate : {false, true})
            for (int ldc_pad : {0, 1 + mr % 3}) {  // 0 with nr = 4 or 8: the whole-row stores
              ++seed;
              KernelTester()
                  .isa(isa()).narrow(true).mr(mr).nr(nr).k(k)
                  .m_panels(1 + (mr + k) % 3).lda_pad((mr + nr + k) % 5).ldc_pad(ldc_pad)
                  .accumulate(accumulate).acc16(form.acc16).pair_safe(form.pair_safe)
                  .row_sums(traits().vnni && seed % 2 == 1)
                  .b_kind(b_for(form, int(seed))).seed(seed)
                  .Test();
              if (HasFailure()) return;
            }
  }
}

// The strides and the slice's place in its panel: lda not a multiple of 4 and far larger
// than a row, padded C rows, a slice that starts inside the panel (the driver's column
// slices), and panels wider than the slice.
TEST_P(KernelSweep, StridesAndSlices) {
  const detail::IsaRecord& record = detail::isa_record(isa());
  const int MR = record.blocking.MR, NR = record.blocking.NR, L = lanes();
  uint32_t seed = 1000;
  for (const Form& form : forms())
    for (int mr : {1, MR})
      for (int nr : {1, L + 1, NR})
        for (int lda_pad : {1, 61})
          for (int ldc_pad : {0, 7})
            for (int b_offset : {0, 1, L})
              for (int extra_width : {0, 3 * L}) {
                ++seed;
                KernelTester t;
                t.isa(isa()).mr(mr).nr(nr).k(37).m_panels(2).lda_pad(lda_pad).ldc_pad(ldc_pad)
                    .b_offset(b_offset).accumulate(seed % 2).acc16(form.acc16)
                    .pair_safe(form.pair_safe).wide_a(form.wide_a).b_kind(b_for(form, int(seed))).seed(seed);
                if (extra_width > 0) t.panel_width(b_offset + (nr + L - 1) / L * L + extra_width);
                t.Test();
                if (HasFailure()) return;
              }
}

// The small-M tiles that span B panels (KernelSpec::panel_vectors): pair-safe and
// saturating acc16 tiles of 1-3 rows and avx2's one-row sx_b tiles x panels of 1-3 vectors, every column count from
// one panel plus one column to four whole panels around the vector and panel boundaries,
// every tile the registers fit.
TEST_P(KernelSweep, TilesSpanningPanels) {
  if (traits().vector_bytes == 0 || traits().vnni)
    GTEST_SKIP() << traits().name << " has no pair-safe kernels";
  const int L = lanes();
  const bool sx_b = detail::isa_record(isa()).widen_a_linear != nullptr;
  uint32_t seed = 2000;
  int generated = 0;
  enum class Form { pair_safe, sx_b, acc16 };
  for (Form form : {Form::pair_safe, Form::sx_b, Form::acc16}) {
    if (form == Form::sx_b && !sx_b) continue;
    if (form == Form::acc16 && !traits().acc16_saturates) continue;
    for (int pv = 1; pv <= 3; ++pv)
      for (int mr = 1; mr <= 3; ++mr) {
        std::vector<int> nrs;
        for (int v = pv + 1; v <= 4 * pv; ++v)
          for (int nr : {v * L - L + 1, v * L - 5, v * L - 1, v * L})
            if (nr > pv * L && (nrs.empty() || nr > nrs.back())) nrs.push_back(nr);
        for (int nr : nrs)
          for (int k : kDepths)
            for (bool accumulate : {false, true}) {
              ++seed;
              KernelTester t;
              t.isa(isa()).mr(mr).nr(nr).k(k).panel_vectors(pv).m_panels(1 + (mr + k) % 2)
                  .lda_pad((mr + k) % 5).ldc_pad(nr % 3).accumulate(accumulate).seed(seed);
              if (form == Form::sx_b) t.wide_a(true).sx_b(true).b_kind(seed % 2 ? BKind::extreme : BKind::full);
              else if (form == Form::acc16) t.acc16(true).b_kind(seed % 2 ? BKind::extreme : BKind::full);
              else t.pair_safe(true);
              if (!t.Generates()) continue;
              ++generated;
              t.Test();
              if (HasFailure()) return;
            }
      }
  }
  EXPECT_GT(generated, 0) << "no tile spanning panels was generated";
}

// Column kernels walking several column slices in one call (KernelSpec::column_slices):
// every form at the path's default tile and rows 1 and 2, nr one and two vectors (sx_b:
// 8 and 16 columns), 1-5 slices with 1-3 per B panel (panels 96 bytes apart), so that B
// moves within a panel and to the next one, and C and the rows' panels restart per slice.
TEST_P(KernelSweep, ColumnSlices) {
  if (traits().vector_bytes == 0) GTEST_SKIP() << traits().name << " has no JIT kernels";
  const detail::IsaRecord& record = detail::isa_record(isa());
  const int L = lanes();
  uint32_t seed = 3000;
  for (const Form& form : forms()) {
    const BlockingFactors& bf = form.acc16 ? record.blocking_acc16 : record.blocking;
    const int MR = form.max_mr > 0 ? form.max_mr : bf.MR;
    for (int mr : {1, 2, MR})
      for (int nr : form.sx_b ? std::vector<int>{8, 16} : std::vector<int>{L, 2 * L})
        for (int slices : {1, 2, 3, 5})
          for (int per_panel : {1, 2, 3})
            for (int k : {3, 17, 64})
              for (bool accumulate : {false, true}) {
                if (per_panel > slices || (mr > 2 && nr > 8 && form.sx_b)) continue;
                if (!form.sx_b && nr > bf.NR) continue;
                ++seed;
                KernelTester t;
                t.isa(isa()).mr(mr).nr(nr).k(k).column_slices(slices, per_panel)
                    .m_panels(1 + (mr + k) % 3).lda_pad((mr + k) % 5).ldc_pad(seed % 3)
                    .accumulate(accumulate).acc16(form.acc16).pair_safe(form.pair_safe)
                    .wide_a(form.wide_a).sx_b(form.sx_b).b_kind(b_for(form, int(seed))).seed(seed);
                if (!t.Generates()) {
                  ADD_FAILURE() << t.describe() << ": no column-slices kernel";
                  return;
                }
                t.Test();
                if (HasFailure()) return;
              }
  }
}

// Tiles spanning B panels that walk several whole spans in one call (panel_vectors with
// column_slices): 1-3 rows, spans of 2-4 panels of 1-2 vectors, 1-4 spans.
TEST_P(KernelSweep, SpanningTilesInSlices) {
  if (traits().vector_bytes == 0 || traits().vnni)
    GTEST_SKIP() << traits().name << " has no pair-safe kernels";
  const int L = lanes();
  const bool sx_b = detail::isa_record(isa()).widen_a_linear != nullptr;
  uint32_t seed = 4000;
  int generated = 0;
  for (int form = 0; form < 3; ++form) {  // pair-safe, sx_b, acc16
    if (form == 1 && !sx_b) continue;
    if (form == 2 && !traits().acc16_saturates) continue;
    for (int pv = 1; pv <= 2; ++pv)
      for (int mr = 1; mr <= 3; ++mr)
        for (int span = 2; span <= 4; ++span)
          for (int slices : {1, 2, 4})
            for (int k : {3, 17, 64}) {
              ++seed;
              KernelTester t;
              t.isa(isa()).mr(mr).nr(span * pv * L).k(k).panel_vectors(pv).column_slices(slices)
                  .m_panels(1 + (mr + k) % 2).lda_pad((mr + k) % 5).ldc_pad(seed % 3)
                  .accumulate(seed % 2).seed(seed);
              if (form == 1) t.wide_a(true).sx_b(true).b_kind(seed % 2 ? BKind::extreme : BKind::full);
              else if (form == 2) t.acc16(true).b_kind(seed % 2 ? BKind::extreme : BKind::full);
              else t.pair_safe(true);
              if (!t.Generates()) continue;
              ++generated;
              t.Test();
              if (HasFailure()) return;
            }
  }
  EXPECT_GT(generated, 0) << "no spanning tile walking slices was generated";
}

// The wide exact kernels (KernelSpec::wide_a) exist on the JIT paths without VNNI, and
// those are the paths whose record widens A for them.
TEST(KernelSweepSets, WidenAOnThePathsWithoutVnni) {
  for (int i = 0; i < detail::kIsaCount; ++i) {
    const detail::IsaTraits& t = detail::kIsaTraits[i];
    if (!detail::cpu_has(t.isa)) continue;
    EXPECT_EQ(detail::isa_record(t.isa).widen_a != nullptr, t.vector_bytes != 0 && !t.vnni) << t.name;
  }
}

TEST(KernelSweepSets, NrCoversEveryVectorBoundary) {
  EXPECT_EQ(nr_set(16, 64), (std::vector<int>{1, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64}));
  EXPECT_EQ(nr_set(8, 16), (std::vector<int>{1, 7, 8, 9, 15, 16}));
}

INSTANTIATE_TEST_SUITE_P(AllPaths, KernelSweep, ::testing::ValuesIn(all_isas()),
                         [](const auto& info) { return std::string(instSetName(info.param.isa)); });

}  // namespace
}  // namespace quire::test
