// The measured int8 peak of a quire path, so that "% of peak" means something on every
// CPU: a short probe of the path's multiply-accumulate instructions in many independent
// chains (no loads, no dependencies but the accumulators).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "quire/Types.h"

namespace quire::bench {

struct Peak {
  double gops_per_thread;  // 2 * u8*s8 multiply-accumulates per second, one thread
  double gops;             // gops_per_thread * threads
  std::string method;      // the instructions timed
  // True for the avx2 / avx512 paths: the probe times vpmaddubsw + vpmaddwd + vpaddd,
  // whose int16 step saturates; quire's exact kernels cannot run at that rate, so
  // "% of peak" there shows what exactness costs.
  bool saturating;
};

// The best of a few ~20 ms probe runs on the calling thread, scaled by `threads` (each
// core has its own units). nullopt for anyarch (portable C++ has no instruction peak).
std::optional<Peak> measure_peak(inst_set_t isa, int threads);

// The rate of acc16's saturating step (vpmaddubsw + vpaddsw) on the paths where acc16
// runs the saturating kernels (avx2, avx512), probed like measure_peak; nullopt
// elsewhere (acc16 runs the exact kernels there, whose peak measure_peak gives).
std::optional<Peak> measure_acc16_peak(inst_set_t isa, int threads);

// The operations per second of a probe (run returns the operations it did): the
// iteration count grows until one run takes ~2 ms (which also wakes the core up) and is
// scaled to ~20 ms; after ~0.2 s of warm-up runs, the best of 5 runs, not the median: on a shared machine another
// process can only slow a run down, and the peak is what the core can do.
double probe_rate(int64_t (*run)(int64_t));

namespace probe {
// Each runs `iterations` (>= 1) rounds of independent accumulator chains and returns
// the number of u8*s8 multiply-accumulates done. Call only on a CPU with the
// instructions. Operand values are whatever the registers hold: timing does not
// depend on them.
int64_t vpdpbusd_zmm(int64_t iterations);           // peak_probe_avx512vnni.cpp
int64_t vpdpbusd_vex_ymm(int64_t iterations);       // peak_probe_avxvnni.cpp
int64_t maddubs_madd_add_zmm(int64_t iterations);   // peak_probe_avx512.cpp
int64_t maddubs_madd_add_ymm(int64_t iterations);   // peak_probe_avx2.cpp
int64_t maddubs_adds_zmm(int64_t iterations);       // peak_probe_avx512.cpp (acc16)
int64_t maddubs_adds_ymm(int64_t iterations);       // peak_probe_avx2.cpp (acc16)
}  // namespace probe

}  // namespace quire::bench
