#include "quire/Acc16.h"

#include "quire/detail/IsaRecord.h"

namespace quire {

bool acc16Saturates() { return detail::active_isa().acc16_kernel != nullptr; }

int acc16BlockDepth() { return detail::active_isa().blocking_acc16.KCB; }

}  // namespace quire
