#include "half_peak_probe.h"

#include <cpuinfo.h>

#include <algorithm>

#include "timing.h"

namespace quire::bench {
namespace {

// As measure_peak (peak_probe.cpp): grow the iteration count until a run takes ~2 ms and
// scale it to ~20 ms; then the best rate of 5 runs, not the median: on a shared machine
// another process can only slow a run down, and the peak is what the core can do.
double gflops(int64_t (*run)(int64_t)) {
  int64_t iterations = 1000;
  double t = 0;
  for (;;) {
    const double t0 = now_seconds();
    run(iterations);
    t = now_seconds() - t0;
    if (t > 0.002) break;
    iterations *= 4;
  }
  iterations = static_cast<int64_t>(static_cast<double>(iterations) * 0.02 / t) + 1;
  double best = 0;
  for (int r = 0; r < 5; ++r) {
    const double t0 = now_seconds();
    const int64_t macs = run(iterations);
    best = std::max(best, static_cast<double>(macs) / (now_seconds() - t0));
  }
  return 2 * best / 1e9;
}

}  // namespace

std::optional<FlopsPeak> measure_fma_peak(inst_set_t isa) {
  switch (isa) {
    case inst_set_t::anyarch:
      return std::nullopt;
    case inst_set_t::avx2:
    case inst_set_t::avx_vnni:
      return FlopsPeak{gflops(probe::fma_ymm), "vfmadd231ps ymm, 12 chains"};
    case inst_set_t::avx512:
    case inst_set_t::avx512_ymm:
    case inst_set_t::avx512_vnni:
    case inst_set_t::avx512_vnni_ymm:
      break;
  }
  return FlopsPeak{gflops(probe::fma_zmm), "vfmadd231ps zmm, 24 chains"};
}

std::optional<FlopsPeak> measure_dpbf16_peak() {
  if (!cpuinfo_initialize() || !cpuinfo_has_x86_avx512bf16()) return std::nullopt;
  return FlopsPeak{gflops(probe::dpbf16_zmm), "vdpbf16ps zmm, 24 chains"};
}

}  // namespace quire::bench
