// The bench's pool: quire::ThreadPool with a long spin, so that back-to-back timed calls
// (down to ~1 us each) never pay a futex wake-up, while a pool the bench leaves alone
// (baselines running, cache flushes) sleeps after 20 ms and does not steal their cores.
#pragma once

#include "quire/ThreadPool.h"

namespace quire::bench {

class ThreadPool : public quire::ThreadPool {
 public:
  explicit ThreadPool(int threads) : quire::ThreadPool(threads, 0.02) {}
};

}  // namespace quire::bench
