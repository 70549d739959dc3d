#include <chrono>
#include <string>
#include <thread>

#include "quire/ThreadPool.h"
#include "quire/detail/Check.h"

namespace quire {
namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline void cpu_pause() { __builtin_ia32_pause(); }

// A spinning thread offers its CPU now and then (every 1024 pauses, some microseconds):
// with more threads than free CPUs (a pool of 2 pinned to one core, a loaded server) the
// thread it waits for may need that very CPU, and pure spinning would hold it for a whole
// scheduler time slice per call (measured: 8 ms per call, against microseconds). On an
// idle CPU the yield returns at once.
inline void give_way() { std::this_thread::yield(); }

}  // namespace

ThreadPool::ThreadPool(int threads, double spin_seconds)
    : threads_(threads), spin_seconds_(spin_seconds) {
  detail::check_arg(threads >= 1 && threads <= 1024, "ThreadPool", "threads", threads,
                    "must be in [1, 1024]");
  errors_.resize(static_cast<size_t>(threads));
  helpers_.reserve(static_cast<size_t>(threads - 1));
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
    errors_[static_cast<size_t>(thread_id)] = std::current_exception();
  }
}

void ThreadPool::worker(int thread_id) {
  uint32_t seen = 0;
  for (;;) {
    uint32_t g = generation_.load(std::memory_order_acquire);
    if (g == seen) {
      const double spin_start = now_seconds();
      for (int i = 0; g == seen; ++i) {
        cpu_pause();
        // Read the clock only now and then: it costs far more than a pause.
        if (i % 1024 == 1023) {
          if (now_seconds() - spin_start > spin_seconds_)
            generation_.wait(seen, std::memory_order_acquire);
          else
            give_way();
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
  for (int i = 0; pending_.load(std::memory_order_acquire) != 0; ++i) {
    cpu_pause();
    if (i % 1024 == 1023) give_way();
  }
  std::exception_ptr first;
  for (std::exception_ptr& e : errors_) {
    if (e && !first) first = e;
    e = nullptr;
  }
  if (first) std::rethrow_exception(first);
}

}  // namespace quire
