#include "half_peak_probe.h"
#include "peak_probe.h"

#include <cpuinfo.h>

#include <algorithm>

#include "../src/cpu/isa_traits.h"
#include "timing.h"

namespace quire::bench {
namespace {

double gflops(int64_t (*run)(int64_t)) { return 2 * probe_rate(run) / 1e9; }

}  // namespace

// The half GEMM runs zmm kernels on every path that needs AVX-512 (its records' half
// kernels), ymm kernels on the other vector paths.
std::optional<FlopsPeak> measure_fma_peak(inst_set_t isa) {
  const detail::IsaTraits* t = detail::find_traits(isa);
  if (t == nullptr || t->vector_bytes == 0) return std::nullopt;
  if (!(t->needs & detail::kCapAvx512))
    return FlopsPeak{gflops(probe::fma_ymm), "vfmadd231ps ymm, 12 chains"};
  return FlopsPeak{gflops(probe::fma_zmm), "vfmadd231ps zmm, 24 chains"};
}

std::optional<FlopsPeak> measure_dpbf16_peak() {
  if (!cpuinfo_initialize() || !cpuinfo_has_x86_avx512bf16()) return std::nullopt;
  return FlopsPeak{gflops(probe::dpbf16_zmm), "vdpbf16ps zmm, 24 chains"};
}

}  // namespace quire::bench
