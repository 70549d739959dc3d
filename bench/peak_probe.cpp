#include "peak_probe.h"

#include <algorithm>

#include "timing.h"

namespace quire::bench {

std::optional<Peak> measure_peak(inst_set_t isa, int threads) {
  int64_t (*run)(int64_t) = nullptr;
  Peak peak{};
  // The probe mirrors the instruction the path's kernel multiplies with.
  switch (isa) {
    case inst_set_t::avx512_vnni:
    case inst_set_t::avx512_vnni_ymm:  // runs the avx512_vnni path
      run = probe::vpdpbusd_zmm;
      peak.method = "vpdpbusd zmm, 24 chains";
      break;
    case inst_set_t::avx_vnni:
      run = probe::vpdpbusd_vex_ymm;
      peak.method = "{vex} vpdpbusd ymm, 12 chains";
      break;
    case inst_set_t::avx512:
    case inst_set_t::avx512_ymm:  // runs the avx512 path
      run = probe::maddubs_madd_add_zmm;
      peak.method = "vpmaddubsw+vpmaddwd+vpaddd zmm, 14 chains";
      peak.saturating = true;
      break;
    case inst_set_t::avx2:
      run = probe::maddubs_madd_add_ymm;
      peak.method = "vpmaddubsw+vpmaddwd+vpaddd ymm, 6 chains";
      peak.saturating = true;
      break;
    case inst_set_t::anyarch:
    case inst_set_t::sve:
      return std::nullopt;
  }

  peak.gops_per_thread = 2 * probe_rate(run) / 1e9;
  peak.gops = peak.gops_per_thread * threads;
  return peak;
}

std::optional<Peak> measure_acc16_peak(inst_set_t isa, int threads) {
  Peak peak{};
  int64_t (*run)(int64_t) = nullptr;
  switch (isa) {
    case inst_set_t::avx512:
    case inst_set_t::avx512_ymm:  // runs the avx512 path
      run = probe::maddubs_adds_zmm;
      peak.method = "vpmaddubsw+vpaddsw zmm, 14 chains";
      break;
    case inst_set_t::avx2:
      run = probe::maddubs_adds_ymm;
      peak.method = "vpmaddubsw+vpaddsw ymm, 6 chains";
      break;
    case inst_set_t::avx512_vnni:
    case inst_set_t::avx512_vnni_ymm:
    case inst_set_t::avx_vnni:
    case inst_set_t::anyarch:
    case inst_set_t::sve:
      return std::nullopt;
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
  double best = 0;
  for (int r = 0; r < 5; ++r) {
    const double t0 = now_seconds();
    const int64_t ops = run(iterations);
    best = std::max(best, static_cast<double>(ops) / (now_seconds() - t0));
  }
  return best;
}

}  // namespace quire::bench
