// KernelSet's accesses to the dispatch record and the code cache (driver/driver.h).
#include "cpu/isa_record.h"
#include "driver/driver.h"
#include "jit/kernel_cache.h"
#include "jit/kernel_generator.h"

namespace quire::detail {

KernelSet::KernelSet(const IsaRecord& isa, int mr, int nr, Accumulation acc)
    : isa_(isa), mr_(mr), nr_(nr),
      saturating_(acc == Accumulation::int16 && isa.traits().acc16_saturates),
      jit_(isa.traits().vector_bytes != 0), vnni_(isa.traits().vnni),
      sx_b_(!saturating_ && isa.widen_a_linear != nullptr),
      widen_(saturating_ ? nullptr : sx_b_ ? isa.widen_a_linear : isa.widen_a),
      narrow_rows_(isa.traits().narrow_rows) {
  staged_[0] = StagedEntry{0, 0, KernelForm::exact, false, false, 0, nullptr};
}

MicroKernelFn KernelSet::resolve(int mr, int nr, bool narrow, bool row_sums) {
  const MicroKernelFn fn = isa_.kernel(KernelRequest{mr, nr, narrow, saturating_, {}, row_sums});
  if (used_ < kSlots) entries_[used_++] = Entry{mr, nr, narrow, row_sums, fn};
  return fn;
}

// A kernel the path cannot generate (a pair-safe kernel on a VNNI path or under
// saturating acc16, a stage on a tile that leaves it no registers) is remembered as null.
static MicroKernelFn pair_safe_kernel(const jit::KernelSpec& spec, bool saturating) {
  // acc16 that saturates must follow its model (docs/acc16.md), not the exact product.
  if (saturating || !(spec.narrow ? jit::narrow_fits(spec) : jit::registers_fit(spec)))
    return nullptr;
  return jit::kernel(spec);
}

MicroKernelFn KernelSet::pair_safe(int mr, int nr, bool narrow) {
  for (int i = 0; i < pair_safe_used_; ++i) {
    const Entry& e = pair_safe_entries_[i];
    if (e.mr == mr && e.nr == nr && e.narrow == narrow) return e.fn;
  }
  const jit::KernelSpec spec{.isa = isa_.isa, .mr = mr, .nr = nr, .narrow = narrow,
                             .pair_safe = true};
  const MicroKernelFn fn = pair_safe_kernel(spec, saturating_);
  if (pair_safe_used_ < kSlots)
    pair_safe_entries_[pair_safe_used_++] = Entry{mr, nr, narrow, false, fn};
  return fn;
}

MicroKernelFn KernelSet::wide(int mr, int nr) {
  for (int i = 0; i < wide_used_; ++i) {
    const Entry& e = wide_entries_[i];
    if (e.mr == mr && e.nr == nr) return e.fn;
  }
  const MicroKernelFn fn =
      jit::kernel(jit::KernelSpec{.isa = isa_.isa, .mr = mr, .nr = nr, .wide_a = true, .sx_b = sx_b_});
  if (wide_used_ < kSlots) wide_entries_[wide_used_++] = Entry{mr, nr, false, false, fn};
  return fn;
}

MicroKernelFn KernelSet::find_staged(int mr, int nr, KernelForm form, const OutputStage& stage,
                                     bool narrow, bool row_sums) {
  const uint32_t code = stage.code();
  for (int i = 0; i < staged_used_; ++i) {
    const StagedEntry& e = staged_[i];
    if (e.mr == mr && e.nr == nr && e.form == form && e.stage == code && e.narrow == narrow &&
        e.row_sums == row_sums) {
      staged_last_ = i;
      return e.fn;
    }
  }
  const jit::KernelSpec spec{.isa = isa_.isa, .mr = mr, .nr = nr, .narrow = narrow,
                             .acc16 = saturating_, .pair_safe = form == KernelForm::pair_safe,
                             .stage = stage, .row_sums = row_sums,
                             .wide_a = form == KernelForm::wide,
                             .sx_b = form == KernelForm::wide && sx_b_};
  MicroKernelFn fn = nullptr;
  if (spec.pair_safe) fn = pair_safe_kernel(spec, saturating_);
  else if (!jit_ || !(narrow ? jit::narrow_fits(spec) : jit::registers_fit(spec))) fn = nullptr;
  else if (spec.wide_a) fn = jit::kernel(spec);
  else fn = isa_.kernel(KernelRequest{mr, nr, narrow, saturating_, stage, row_sums});
  if (staged_used_ < kStagedSlots) {
    staged_last_ = staged_used_;
    staged_[staged_used_++] = StagedEntry{mr, nr, form, narrow, row_sums, code, fn};
  }
  return fn;
}

inst_set_t inst_set_of(const IsaRecord& isa) { return isa.traits().inst_set; }

}  // namespace quire::detail
