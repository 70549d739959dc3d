// KernelSet's accesses to the dispatch record (driver/driver.h).
#include <stdexcept>

#include "cpu/isa_record.h"
#include "driver/driver.h"
#include "jit/kernel_generator.h"

namespace quire::detail {

KernelSet::KernelSet(const IsaRecord& isa, int mr, int nr, Accumulation acc)
    : isa_(isa), isa_id_(isa.isa), mr_(mr), nr_(nr),
      saturating_(acc == Accumulation::int16 && isa.traits().acc16_saturates),
      jit_(isa.traits().vector_bytes != 0), vnni_(isa.traits().vnni),
      sx_b_(!saturating_ && isa.widen_a_linear != nullptr),
      lanes_(std::max(1, isa.traits().int32_lanes())),
      vector_registers_(isa.traits().vector_registers),
      widen_(saturating_ ? nullptr : sx_b_ ? isa.widen_a_linear : isa.widen_a),
      correction_(jit_ && !vnni_ && !saturating_ ? isa.pair_correction : nullptr),
      narrow_rows_(isa.traits().narrow_rows) {
  entries_[0] = Entry{~uint64_t{0}, nullptr};
}

MicroKernelFn KernelSet::resolve(const jit::KernelSpec& spec, uint64_t key) {
  const MicroKernelFn fn = isa_.kernel(spec);
  if (used_ < kSlots) {
    last_ = used_;
    entries_[used_++] = Entry{key, fn};
  }
  return fn;
}

void KernelSet::missing(const jit::KernelSpec& spec) {
  throw std::invalid_argument("micro-kernel " + jit::kernel_name(spec) +
                              ": the path has no kernel of that spec");
}

inst_set_t inst_set_of(const IsaRecord& isa) { return isa.traits().inst_set; }

}  // namespace quire::detail
