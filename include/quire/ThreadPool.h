// quire's addition: a persistent pool that runs one job on T threads, the way an
// inference engine calls quire inside its own parallel region (job(thread_id, T), one
// fbgemmPacked per thread). Used by the one-call GEMM (quire/SimpleGemm.h) and the bench.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <thread>
#include <vector>

#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

class ThreadPool {
 public:
  // The calling thread is worker 0 and `threads - 1` std::threads the others, so T
  // threads keep exactly T cores busy. After a job, helpers spin `spin_seconds` waiting
  // for the next one before they sleep: back-to-back calls of a few microseconds then
  // pay no wake-up, and an idle pool does not hold on to its cores.
  explicit ThreadPool(int threads, double spin_seconds = 0.0002);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return threads_; }

  // Runs job(thread_id, num_threads) on every worker and returns when all are done.
  // An exception thrown by any worker is rethrown here (the first by thread id).
  // Not reentrant: one run at a time.
  void run(const std::function<void(int, int)>& job);

 private:
  void worker(int thread_id);
  void run_job(int thread_id);

  const int threads_;
  const double spin_seconds_;
  const std::function<void(int, int)>* job_ = nullptr;
  // Bumped once per job (and once to stop); workers wait for it to change. 32 bits so
  // that waiting is a plain futex on it (wrap-around is harmless: only change matters).
  std::atomic<uint32_t> generation_{0};
  std::atomic<int> pending_{0};  // helper threads still running the current job
  std::atomic<bool> stop_{false};
  std::vector<std::exception_ptr> errors_;  // one slot per worker
  std::vector<std::thread> helpers_;
};

}  // namespace quire
QUIRE_API_END
