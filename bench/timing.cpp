#include "timing.h"

#include <algorithm>
#include <chrono>

namespace quire::bench {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

CacheFlusher::CacheFlusher() : buffer_(64u << 20, 1) {}

void CacheFlusher::flush() {
  // A read-modify-write per 64-byte line, so every line is fetched and left dirty: the
  // hardware has to evict the old contents, including the matrices' lines.
  volatile uint8_t* p = buffer_.data();
  for (size_t i = 0; i < buffer_.size(); i += 64) p[i] = static_cast<uint8_t>(p[i] + 1);
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  double m = values[mid];
  if (values.size() % 2 == 0) {
    m = (m + *std::max_element(values.begin(), values.begin() + mid)) / 2;
  }
  return m;
}

Timing time_calls(const std::function<void()>& call, double min_time, CacheFlusher* flusher) {
  constexpr int kMinWarmupCalls = 2;
  constexpr int kMinTimedCalls = 5;
  // A tenth of the budget warms up: enough for the CPU to leave a low-power state and
  // for another library's spinning threads (OpenMP, OpenBLAS) to go to sleep.
  const double warmup_time = min_time / 10;

  const double warmup_start = now_seconds();
  for (int i = 0; i < kMinWarmupCalls || now_seconds() - warmup_start < warmup_time; ++i) {
    if (flusher) flusher->flush();
    call();
  }

  std::vector<double> samples;
  double timed = 0;
  const double wall_start = now_seconds();
  while (static_cast<int>(samples.size()) < kMinTimedCalls ||
         (flusher ? now_seconds() - wall_start : timed) < min_time) {
    if (flusher) flusher->flush();
    const auto t0 = std::chrono::steady_clock::now();
    call();
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    samples.push_back(t);
    timed += t;
  }

  Timing result;
  result.calls = static_cast<int64_t>(samples.size());
  result.min = *std::min_element(samples.begin(), samples.end());
  result.max = *std::max_element(samples.begin(), samples.end());
  result.median = median(std::move(samples));
  return result;
}

}  // namespace quire::bench
