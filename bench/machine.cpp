#include "machine.h"

#include <cpuinfo.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "timing.h"

namespace quire::bench {

std::string cpu_name() {
  if (!cpuinfo_initialize()) return "unknown (cpuinfo could not read this CPU)";
  const cpuinfo_package* package = cpuinfo_get_package(0);
  return package && package->name[0] ? package->name : "unknown";
}

double copy_bandwidth_gbs() {
  const size_t n = size_t{256} << 20;
  std::vector<uint8_t> a(n, 1), b(n, 2);
  double best = 0;
  for (int i = 0; i < 3; ++i) {
    const double t0 = now_seconds();
    std::memcpy(b.data(), a.data(), n);
    const double t = now_seconds() - t0;
    best = std::max(best, 2.0 * n / t / 1e9);
  }
  return best;
}

}  // namespace quire::bench
