// KernelSet's accesses to the dispatch record (driver/driver.h).
#include "cpu/isa_record.h"
#include "driver/driver.h"

namespace quire::detail {

KernelSet::KernelSet(const IsaRecord& isa, int mr, int nr, Accumulation acc)
    : isa_(isa), mr_(mr), nr_(nr),
      saturating_(acc == Accumulation::int16 && isa.traits().acc16_saturates),
      narrow_rows_(isa.traits().narrow_rows) {}

MicroKernelFn KernelSet::resolve(int mr, int nr, bool narrow) {
  const MicroKernelFn fn = isa_.kernel(KernelRequest{mr, nr, narrow, saturating_});
  if (used_ < kSlots) entries_[used_++] = Entry{mr, nr, narrow, fn};
  return fn;
}

inst_set_t inst_set_of(const IsaRecord& isa) { return isa.traits().inst_set; }

}  // namespace quire::detail
