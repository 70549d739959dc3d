#include <algorithm>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>

#include "quire/Utils.h"

namespace quire {

void* fbgemmAlignedAlloc(size_t align, size_t size) {
  if (align == 0 || (align & (align - 1)) != 0 || align % sizeof(void*) != 0) {
    throw std::invalid_argument("fbgemmAlignedAlloc: align=" + std::to_string(align) +
                                " must be a power of two and a multiple of sizeof(void*)");
  }
  void* p = nullptr;
  // posix_memalign accepts size 0; ask for at least one byte so the pointer is unique.
  if (posix_memalign(&p, align, size == 0 ? 1 : size) != 0) throw std::bad_alloc();
  return p;
}

void fbgemmAlignedFree(void* p) { std::free(p); }

void fbgemmPartition1D(int thread_id, int num_threads, int64_t total, int64_t& start,
                       int64_t& end) {
  if (num_threads < 1) {
    throw std::invalid_argument("fbgemmPartition1D: num_threads=" + std::to_string(num_threads) +
                                " must be >= 1");
  }
  if (thread_id < 0 || thread_id >= num_threads) {
    throw std::invalid_argument("fbgemmPartition1D: thread_id=" + std::to_string(thread_id) +
                                " must be in [0, num_threads)");
  }
  if (total < 0) {
    throw std::invalid_argument("fbgemmPartition1D: total=" + std::to_string(total) +
                                " must be >= 0");
  }
  // The first (total % num_threads) threads get one extra element.
  const int64_t base = total / num_threads, extra = total % num_threads;
  start = thread_id * base + std::min<int64_t>(thread_id, extra);
  end = start + base + (thread_id < extra ? 1 : 0);
}

}  // namespace quire
