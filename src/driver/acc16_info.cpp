#include "quire/Acc16.h"

#include "cpu/isa_record.h"

namespace quire {

bool acc16Saturates() { return detail::active_isa().traits().acc16_saturates; }

int acc16BlockDepth() { return detail::active_isa().blocking_acc16.KCB; }

}  // namespace quire
