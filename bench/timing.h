// Repeated timing of one call: warm-up, then repeat until a time budget is spent.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace quire::bench {

// Seconds since an arbitrary origin (steady clock).
double now_seconds();

// Evicts the caches by writing a 64 MiB buffer (larger than any L3 it is meant for).
class CacheFlusher {
 public:
  CacheFlusher();
  void flush();

 private:
  std::vector<uint8_t> buffer_;
};

// Seconds per call.
struct Timing {
  double median = 0;
  double min = 0;
  double max = 0;
  int64_t calls = 0;  // timed calls behind the statistics
};

// Times `call`: warm-up calls first (the first call pays page faults, JIT compilation,
// thread wake-up), then at least 5 timed calls and until min_time seconds of timed
// calls have run. With a flusher, the caches are flushed before every call, outside
// the timing, and the wall clock (flushes included) is what must reach min_time, so
// a 1 us call does not need 200,000 flushes.
Timing time_calls(const std::function<void()>& call, double min_time, CacheFlusher* flusher);

double median(std::vector<double> values);

}  // namespace quire::bench
