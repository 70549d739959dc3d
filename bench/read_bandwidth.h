// Read bandwidth of the level a working set sits in, for the int4 bench's "% of
// bandwidth" column: what a kernel that only streams its weights can hope for.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "quire/ThreadPool.h"

namespace quire::bench {

struct CacheSizes {
  int64_t l2 = 0;  // per core
  int64_t l3 = 0;  // shared by the cores of one package (or CCD), as reported
  const char* source = "none";  // "cpuinfo", "sysconf" or "none" (both 0)
};
// The caches as cpuinfo reads them from the OS; where it finds none (a VM that hides the
// cache topology from sysfs: cpuinfo's 2022 snapshot then reports no caches at all), as
// glibc's sysconf gives them from CPUID. A hypervisor may report its host's whole L3
// there (seen: 508 MiB on a 2-vCPU Zen 5 guest), so the bench prints the source.
CacheSizes cache_sizes();

// Bytes read per second (GB/s) when `threads` threads each read their own `bytes /
// threads` part of a buffer (in 2 MiB pages where the OS grants them, as the int4
// weights are) over and over with 32-byte loads (AVX2 when the CPU has it),
// with and without software prefetch: the best of 8 runs of ~20 ms each, after a
// warm-up pass that puts the data where it will stay (L2, L3) or shows it cannot (more
// than the L3: memory). Best, not median: on a shared machine others only slow a run.
double read_bandwidth_gbs(int64_t bytes, int threads);

// A probe buffer of n bytes (a multiple of 128), set to 1, in 2 MiB pages where the OS
// grants them; release with std::free.
uint8_t* probe_buffer(int64_t n);

// Reads n bytes (a multiple of 128) once, as read_bandwidth_gbs does; returns their sum.
uint64_t read_once(const uint8_t* p, int64_t n);

// GB/s of a plain read of `bytes`, split over the pool's threads in one contiguous part
// each (as the int4 decode plan and the int8 small-M split give them their weights),
// timed by `time` like the call it is compared with (same warm-up or flush, median):
// the bandwidth a stream of that size gets in the same cache state and under the same
// load, measured right after the call. (The fixed-size probes of read_bandwidth_gbs are
// best-of-runs of repeated passes: on a shared machine they swing by 2x from run to run,
// a single 8 MiB pass reads faster from L3 than their average, and a short stream from
// memory never reaches the 256 MiB probe's rate.)
double same_bytes_read_gbs(int64_t bytes, quire::ThreadPool& pool,
                           const std::function<double(const std::function<void()>&)>& time);

// The level a warm working set of `bytes` sits in: "L2", "L3" or "DRAM".
std::string level_of(int64_t bytes, const CacheSizes& caches, int threads);

}  // namespace quire::bench
