#include "b_streaming.h"

#include <cmath>
#include <map>
#include <string>

#include "read_bandwidth.h"

namespace quire::bench {

void print_b_streaming(std::FILE* out, const std::vector<ShapeResult>& results, int threads,
                       bool flushed) {
  const CacheSizes caches = cache_sizes();
  std::map<int64_t, double> probe_gbs;  // measured once per working-set size
  double log_sum = 0, log_sum_read = 0;
  int count = 0;
  for (const ShapeResult& r : results) {
    if (r.shape.M > 4 || r.packed_b_bytes <= 0) continue;
    if (count == 0) {
      std::fprintf(out, "\nsmall M (M <= 4): packed B streamed per call vs the read bandwidth of "
                        "its level (%d thread(s); L2 %lld KiB, L3 %lld MiB, from %s)\n",
                   threads, static_cast<long long>(caches.l2 >> 10),
                   static_cast<long long>(caches.l3 >> 20), caches.source);
      std::fprintf(out, "%-16s %9s %6s %9s %11s %7s %10s %7s\n", "shape", "B MiB", "level",
                   "B GB/s", "level GB/s", "% bw", "read GB/s", "% read");
    }
    // The probe reads a working set of B's size (or 256 MiB from DRAM when flushed): the
    // bandwidth a kernel that only streamed B could reach.
    const std::string level = flushed ? "DRAM" : level_of(r.packed_b_bytes, caches, threads);
    const int64_t probe = flushed ? int64_t{256} << 20 : r.packed_b_bytes;
    if (!probe_gbs.count(probe)) probe_gbs[probe] = read_bandwidth_gbs(probe, threads);
    const double bw = probe_gbs[probe];
    const double b_gbs = r.packed_b_bytes / r.quire.timing.median / 1e9;
    const double pct = 100.0 * b_gbs / bw;
    const double pct_read = 100.0 * b_gbs / r.b_read_gbs;
    std::fprintf(out, "%-16s %9.2f %6s %9.1f %11.1f %6.1f%% %10.1f %6.1f%%\n",
                 to_string(r.shape).c_str(), r.packed_b_bytes / 1048576.0, level.c_str(), b_gbs,
                 bw, pct, r.b_read_gbs, pct_read);
    log_sum += std::log(pct);
    log_sum_read += std::log(pct_read);
    ++count;
  }
  if (count > 0)
    std::fprintf(out, "geomean %% of the level's bandwidth: %.1f%%; of the same bytes' read: %.1f%%\n",
                 std::exp(log_sum / count), std::exp(log_sum_read / count));
}

}  // namespace quire::bench
