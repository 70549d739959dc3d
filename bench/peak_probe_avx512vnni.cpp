#include "peak_probe.h"
#include "peak_probe_zmm24.h"

namespace quire::bench::probe {

int64_t vpdpbusd_zmm(int64_t iterations) {
  int64_t left = iterations;
  QUIRE_ZMM24_PROBE("vpdpbusd", left);
  return iterations * 24 * 64;  // 16 int32 lanes x 4 products per instruction
}

}  // namespace quire::bench::probe
