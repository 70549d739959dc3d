#include "peak_probe.h"

#include <algorithm>

#include "../src/cpu/isa_traits.h"
#include "timing.h"

namespace quire::bench {

// The probes mirror the instruction the path's kernels multiply with, chosen from the
// path's row of src/cpu/isa_traits.h (VNNI or not, encoding, register width).
std::optional<Peak> measure_peak(inst_set_t isa, int threads) {
  const detail::IsaTraits* t = detail::find_traits(isa);
  if (t == nullptr || t->vector_bytes == 0) return std::nullopt;
  int64_t (*run)(int64_t) = nullptr;
  Peak peak{};
  if (t->vnni && t->encoding == detail::Encoding::vex) {
    run = probe::vpdpbusd_vex_ymm;
    peak.method = "{vex} vpdpbusd ymm, 12 chains";
  } else if (t->vnni) {  // EVEX: measured on zmm (avx512_vnni_ymm too)
    run = probe::vpdpbusd_zmm;
    peak.method = "vpdpbusd zmm, 24 chains";
  } else if (t->zmm()) {
    run = probe::maddubs_madd_add_zmm;
    peak.method = "vpmaddubsw+vpmaddwd+vpaddd zmm, 14 chains";
    peak.saturating = true;
  } else {
    run = probe::maddubs_madd_add_ymm;
    peak.method = "vpmaddubsw+vpmaddwd+vpaddd ymm, 6 chains";
    peak.saturating = true;
  }
  peak.gops_per_thread = 2 * probe_rate(run) / 1e9;
  peak.gops = peak.gops_per_thread * threads;
  return peak;
}

std::optional<Peak> measure_acc16_peak(inst_set_t isa, int threads) {
  const detail::IsaTraits* t = detail::find_traits(isa);
  if (t == nullptr || !t->acc16_saturates) return std::nullopt;
  Peak peak{};
  int64_t (*run)(int64_t) = nullptr;
  if (t->zmm()) {
    run = probe::maddubs_adds_zmm;
    peak.method = "vpmaddubsw+vpaddsw zmm, 14 chains";
  } else {
    run = probe::maddubs_adds_ymm;
    peak.method = "vpmaddubsw+vpaddsw ymm, 6 chains";
  }
  peak.saturating = true;
  peak.gops_per_thread = 2 * probe_rate(run) / 1e9;
  peak.gops = peak.gops_per_thread * threads;
  return peak;
}

double probe_rate(int64_t (*run)(int64_t)) {
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
  // ~0.2 s of the same loop first: a core that was idle reaches its sustained vector
  // clock only after tens of ms (a Zen 5 guest measured 167 GOPS cold and 209-223 warm in
  // three runs a minute apart, against kernels at 199), and every shape is timed warm.
  for (int r = 0; r < 10; ++r) run(iterations);
  double best = 0;
  for (int r = 0; r < 5; ++r) {
    const double t0 = now_seconds();
    const int64_t ops = run(iterations);
    best = std::max(best, static_cast<double>(ops) / (now_seconds() - t0));
  }
  return best;
}

}  // namespace quire::bench
