#include "half_peak_probe.h"
#include "peak_probe_zmm24.h"

namespace quire::bench::probe {

int64_t dpbf16_zmm(int64_t iterations) {
  int64_t left = iterations;
  QUIRE_ZMM24_PROBE("vdpbf16ps", left);
  return iterations * 24 * 32;  // 16 fp32 lanes x 2 bf16 products per instruction
}

}  // namespace quire::bench::probe
