// FBGEMM's work splits, reproduced exactly: callers that mix quire and FBGEMM code (or
// port tests) get the same ranges for the same arguments.
#include <algorithm>
#include <cmath>
#include <string>

#include "quire/Utils.h"
#include "quire/detail/Check.h"

namespace quire {

void fbgemmPartition1D(int thread_id, int num_threads, int64_t total_work, int64_t& start,
                       int64_t& end) {
  const char* where = "fbgemmPartition1D";
  detail::check_arg(num_threads >= 0, where, "num_threads", num_threads, "must be >= 0");
  detail::check_arg(thread_id >= 0, where, "thread_id", thread_id, "must be >= 0");
  detail::check_arg(total_work >= 0, where, "total_work", total_work, "must be >= 0");
  if (num_threads == 0) {  // FBGEMM: such a thread does no work
    start = end = 0;
    return;
  }
  const int64_t per_thread = (total_work + num_threads - 1) / num_threads;
  start = std::min(thread_id * per_thread, total_work);
  end = std::min((thread_id + 1) * per_thread, total_work);
}

void fbgemmPartition1DBlocked(int thread_id, int num_threads, int64_t total_work, int block_size,
                              int64_t& start, int64_t& end) {
  detail::check_arg(block_size >= 1, "fbgemmPartition1DBlocked", "block_size", block_size,
                    "must be >= 1");
  if (block_size == 1) return fbgemmPartition1D(thread_id, num_threads, total_work, start, end);
  int64_t first_block = 0, end_block = 0;
  fbgemmPartition1D(thread_id, num_threads, total_work / block_size, first_block, end_block);
  start = std::min(first_block * block_size, total_work);
  end = thread_id == num_threads - 1 ? std::max(end_block * block_size, total_work)
                                     : std::min(end_block * block_size, total_work);
}

int fbgemmGet2DPartition(int m, int n, int nthreads, int n_align, double aspect_ratio) {
  const char* where = "fbgemmGet2DPartition";
  detail::check_arg(m >= 0, where, "m", m, "must be >= 0");
  detail::check_arg(n >= 0, where, "n", n, "must be >= 0");
  detail::check_arg(nthreads >= 1, where, "nthreads", nthreads, "must be >= 1");
  detail::check_arg(n_align >= 1, where, "n_align", n_align, "must be >= 1");
  // Short, wide problems on many threads favour splitting m.
  if (nthreads > 16 && static_cast<double>(m) / n < 0.2) aspect_ratio = 0.2;
  // Block shape for mb row blocks: ceil(m / mb) rows x (n in n_align units, split over
  // nthreads / mb column blocks) columns; |rows / cols - aspect_ratio| is minimized.
  const auto delta = [&](int mb) {
    const int nb = nthreads / mb;
    const int bm = (m + mb - 1) / mb;
    const int bn = ((n + n_align - 1) / n_align + nb - 1) / nb * n_align;
    return std::abs(static_cast<double>(bm) / bn - aspect_ratio);
  };
  int mb = 1;
  double best = delta(1);
  for (int cand = 2; cand <= nthreads; ++cand) {
    if (nthreads <= 16 && nthreads % cand != 0) continue;
    const double d = delta(cand);
    if (!(d < best)) break;  // the first candidate that does not improve ends the search
    best = d;
    mb = cand;
  }
  return mb;
}

thread_type_t fbgemmGetThreadPartition(int g, int m, int n, int thread_id, int num_threads,
                                       int n_align) {
  const char* where = "fbgemmGetThreadPartition";
  detail::check_arg(num_threads >= 1, where, "num_threads", num_threads, "must be >= 1");
  detail::check_arg(thread_id >= 0, where, "thread_id", thread_id, "must be >= 0");
  detail::check_arg(g >= 0, where, "g", g, "must be >= 0");
  if (num_threads == 1) return thread_type_t{1, 1, 1, 0, 0, 0};
  thread_type_t t{};
  t.g_num_threads = g > num_threads ? num_threads : (g != 0 && num_threads % g == 0 ? g : 1);
  const int rest = num_threads / t.g_num_threads;
  t.m_num_threads = fbgemmGet2DPartition(m, n, rest, n_align, 0.5);
  t.n_num_threads = rest / t.m_num_threads;
  if (thread_id >= t.g_num_threads * t.m_num_threads * t.n_num_threads) return thread_type_t{};
  t.n_thread_id = thread_id % t.n_num_threads;
  t.m_thread_id = thread_id / t.n_num_threads % t.m_num_threads;
  t.g_thread_id = thread_id / t.n_num_threads / t.m_num_threads % t.g_num_threads;
  return t;
}

}  // namespace quire
