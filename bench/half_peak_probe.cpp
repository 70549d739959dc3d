#include "half_peak_probe.h"
#include "peak_probe.h"

#include <cpuinfo.h>

#include <algorithm>

#include "timing.h"

namespace quire::bench {
namespace {

double gflops(int64_t (*run)(int64_t)) { return 2 * probe_rate(run) / 1e9; }

}  // namespace

std::optional<FlopsPeak> measure_fma_peak(inst_set_t isa) {
  switch (isa) {
    case inst_set_t::anyarch:
    case inst_set_t::sve:
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
