#include "half_peak_probe.h"
#include "peak_probe_zmm24.h"

namespace quire::bench::probe {

int64_t fma_zmm(int64_t iterations) {
  int64_t left = iterations;
  QUIRE_ZMM24_PROBE("vfmadd231ps", left);
  return iterations * 24 * 16;  // 16 fp32 lanes per instruction
}

}  // namespace quire::bench::probe
