#include "quire/detail/Blocking.h"

#include "cpu/isa_record.h"
#include "jit/kernel_cache.h"
#include "quire/detail/Check.h"

namespace quire::detail {

BlockingFactors resolve_blocking(const BlockingFactors* params, const char* where,
                                 Accumulation acc) {
  const IsaRecord& isa = active_isa();
  const bool saturating = acc == Accumulation::int16 && isa.traits().acc16_saturates;
  if (params == nullptr) return acc == Accumulation::int16 ? isa.blocking_acc16 : isa.blocking;
  const BlockingFactors& p = *params;
  check_arg(p.MR >= 1 && p.MR <= 12, where, "BlockingFactors::MR", p.MR, "must be in [1, 12]");
  check_arg(p.NR >= 1 && p.NR <= 64, where, "BlockingFactors::NR", p.NR, "must be in [1, 64]");
  check_arg(isa.traits().vector_bytes == 0 || p.NR % isa.traits().int32_lanes() == 0, where,
            "BlockingFactors::NR", p.NR, "must be a multiple of the vector width in int32 lanes");
  check_arg(jit::registers_fit(isa.isa, p.MR, p.NR, saturating), where, "BlockingFactors::MR", p.MR,
            "times NR does not fit the vector registers of the active path");
  check_arg(p.NR_MIN >= 1 && p.NR_MIN <= p.NR, where, "BlockingFactors::NR_MIN", p.NR_MIN,
            "must be in [1, NR]");
  check_arg(p.ROW_INTERLEAVE == 4, where, "BlockingFactors::ROW_INTERLEAVE", p.ROW_INTERLEAVE,
            "must be 4 (acc16 uses the same 4-deep interleave)");
  check_arg(p.MCB >= p.MR && p.MCB % p.MR == 0 && p.MCB <= 4096, where, "BlockingFactors::MCB",
            p.MCB, "must be a multiple of MR, at most 4096");
  check_arg(p.KCB >= 4 && p.KCB % 4 == 0 && p.KCB <= 65536, where, "BlockingFactors::KCB", p.KCB,
            "must be a positive multiple of 4, at most 65536");
  check_arg(p.NCB >= p.NR && p.NCB % p.NR == 0, where, "BlockingFactors::NCB", p.NCB,
            "must be a positive multiple of NR");
  return p;
}

}  // namespace quire::detail
