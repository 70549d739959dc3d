// KernelSet's accesses to the dispatch record and the code cache (driver/driver.h).
#include "cpu/isa_record.h"
#include "driver/driver.h"
#include "jit/kernel_cache.h"
#include "jit/kernel_generator.h"

namespace quire::detail {

KernelSet::KernelSet(const IsaRecord& isa, int mr, int nr, Accumulation acc)
    : isa_(isa), mr_(mr), nr_(nr),
      saturating_(acc == Accumulation::int16 && isa.traits().acc16_saturates),
      jit_(isa.traits().vector_bytes != 0),
      narrow_rows_(isa.traits().narrow_rows) {}

MicroKernelFn KernelSet::resolve(const Key& k, const OutputStage& stage) {
  // A kernel the path cannot generate (a pair-safe kernel on a VNNI path, a requantizing
  // stage on a tile whose registers leave it no room) is remembered as null: the caller
  // then runs the path's own kernel, or stores int32 for the tile epilogue.
  MicroKernelFn fn = nullptr;
  const jit::KernelSpec spec{.isa = isa_.isa, .mr = k.mr, .nr = k.nr, .narrow = k.narrow,
                             .acc16 = saturating_, .pair_safe = k.pair_safe, .stage = stage};
  if (k.pair_safe) {
    // acc16 that saturates must follow its model (docs/acc16.md), not the exact product.
    if (!saturating_ && (k.narrow ? jit::narrow_fits(spec) : jit::registers_fit(spec)))
      fn = jit::kernel(spec);
  } else if (stage.requantize) {
    if (jit_ && jit::registers_fit(spec))
      fn = isa_.kernel(KernelRequest{k.mr, k.nr, k.narrow, saturating_, stage});
  } else {
    fn = isa_.kernel(KernelRequest{k.mr, k.nr, k.narrow, saturating_});
  }
  if (used_ < kSlots) {
    last_ = used_;
    entries_[used_++] = Entry{k, fn};
  }
  return fn;
}

inst_set_t inst_set_of(const IsaRecord& isa) { return isa.traits().inst_set; }

}  // namespace quire::detail
