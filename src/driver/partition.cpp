#include <algorithm>
#include <cstdint>

#include "driver/driver.h"

namespace quire::detail {
namespace {

// [start, end) of part `id` of `total` units split `parts` ways as evenly as possible:
// the first total % parts parts get one unit more. (fbgemmPartition1D's ceil-sized
// chunks can leave threads idle: 5 units over 4 threads give 2, 2, 1, 0.)
void balanced_split(int id, int parts, int64_t total, int64_t& start, int64_t& end) {
  const int64_t base = total / parts, extra = total % parts;
  start = id * base + std::min<int64_t>(id, extra);
  end = start + base + (id < extra ? 1 : 0);
}

}  // namespace

ThreadTile partition_tiles(int32_t M, int32_t N, int mr, int panel_width, int thread_id,
                           int num_threads) {
  if (num_threads == 1) return ThreadTile{0, M, 0, N};  // no divisions on the small-call path
  const int64_t m_units = (M + mr - 1) / mr, n_units = (N + panel_width - 1) / panel_width;
  int best_mt = num_threads;
  int64_t best_cost = INT64_MAX;
  for (int mt = num_threads; mt >= 1; --mt) {  // descending: ties keep the larger M split
    if (num_threads % mt != 0) continue;
    const int nt = num_threads / mt;
    const int64_t cost = ((m_units + mt - 1) / mt) * mr * ((n_units + nt - 1) / nt) * panel_width;
    if (cost < best_cost) {
      best_cost = cost;
      best_mt = mt;
    }
  }
  const int nt = num_threads / best_mt;
  int64_t m_begin, m_end, n_begin, n_end;
  balanced_split(thread_id / nt, best_mt, m_units, m_begin, m_end);
  balanced_split(thread_id % nt, nt, n_units, n_begin, n_end);
  return ThreadTile{static_cast<int32_t>(std::min<int64_t>(m_begin * mr, M)),
                    static_cast<int32_t>(std::min<int64_t>(m_end * mr, M)),
                    static_cast<int32_t>(std::min<int64_t>(n_begin * panel_width, N)),
                    static_cast<int32_t>(std::min<int64_t>(n_end * panel_width, N))};
}

}  // namespace quire::detail
