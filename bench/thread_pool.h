// The bench's persistent pool: one call of a job on T threads, timed from the release
// of all threads to the completion of all, the way an inference engine runs quire
// inside its own parallel region (one fbgemmPacked per thread).
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <thread>
#include <vector>

namespace quire::bench {

class ThreadPool {
 public:
  // The calling thread is worker 0 and `threads - 1` std::threads the others, so T
  // threads keep exactly T cores busy (no extra thread spinning while it waits).
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return threads_; }

  // Runs job(thread_id, num_threads) on every worker and returns when all are done.
  // An exception thrown by any worker is rethrown here.
  void run(const std::function<void(int, int)>& job);

 private:
  void worker(int thread_id);
  void run_job(int thread_id);

  const int threads_;
  const std::function<void(int, int)>* job_ = nullptr;
  // Bumped once per job (and once to stop); workers wait for it to change. 32 bits so
  // that waiting is a plain futex on it (wrap-around is harmless: only change matters).
  std::atomic<uint32_t> generation_{0};
  std::atomic<int> pending_{0};  // helper threads still running the current job
  std::atomic<bool> stop_{false};
  std::vector<std::exception_ptr> errors_;  // one slot per worker
  std::vector<std::thread> helpers_;
};

}  // namespace quire::bench
