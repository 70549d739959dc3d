#include "thread_pool.h"

#include <immintrin.h>

#include "timing.h"

namespace quire::bench {
namespace {

// After a job, a worker spins this long for the next one before it sleeps: back-to-back
// timed calls (down to ~1 us each) must not pay a futex wake-up, while a pool that the
// bench leaves alone (baselines running, cache flushes) must not steal their cores.
constexpr double kSpinSeconds = 0.02;

}  // namespace

ThreadPool::ThreadPool(int threads) : threads_(threads), errors_(threads) {
  helpers_.reserve(threads - 1);
  for (int t = 1; t < threads; ++t) helpers_.emplace_back([this, t] { worker(t); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  for (std::thread& t : helpers_) t.join();
}

void ThreadPool::run_job(int thread_id) {
  try {
    (*job_)(thread_id, threads_);
  } catch (...) {
    errors_[thread_id] = std::current_exception();
  }
}

void ThreadPool::worker(int thread_id) {
  uint32_t seen = 0;
  for (;;) {
    uint32_t g = generation_.load(std::memory_order_acquire);
    if (g == seen) {
      const double spin_start = now_seconds();
      for (int i = 0; g == seen; ++i) {
        _mm_pause();
        // Read the clock only now and then: it costs far more than a pause.
        if (i % 1024 == 1023 && now_seconds() - spin_start > kSpinSeconds) {
          generation_.wait(seen, std::memory_order_acquire);
        }
        g = generation_.load(std::memory_order_acquire);
      }
    }
    seen = g;
    if (stop_.load(std::memory_order_relaxed)) return;
    run_job(thread_id);
    pending_.fetch_sub(1, std::memory_order_release);
  }
}

void ThreadPool::run(const std::function<void(int, int)>& job) {
  job_ = &job;
  pending_.store(threads_ - 1, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  run_job(0);
  while (pending_.load(std::memory_order_acquire) != 0) _mm_pause();
  std::exception_ptr first;
  for (std::exception_ptr& e : errors_) {
    if (e && !first) first = e;
    e = nullptr;
  }
  if (first) std::rethrow_exception(first);
}

}  // namespace quire::bench
