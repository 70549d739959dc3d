#include "read_bandwidth.h"

#include <cpuinfo.h>
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <thread>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include "timing.h"

namespace quire::bench {
namespace {

// Sum of 64-bit lanes of n bytes (n a multiple of 128), `passes` times: 4 independent
// adds per 128 bytes keep the loads, not the adds, the limit. With kPrefetch, the lines
// 2 KiB ahead are prefetched as the int4 kernels do (more reads in flight than the
// hardware prefetcher keeps); the probe reports the better of the two.
template <bool kPrefetch>
__attribute__((target("avx2"))) uint64_t read_avx2(const uint8_t* p, int64_t n, int64_t passes) {
  __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
  for (int64_t r = 0; r < passes; ++r) {
    for (int64_t i = 0; i < n; i += 128) {
      if (kPrefetch) {
        _mm_prefetch(reinterpret_cast<const char*>(p + i + 2048), _MM_HINT_T0);
        _mm_prefetch(reinterpret_cast<const char*>(p + i + 2048 + 64), _MM_HINT_T0);
      }
      s0 = _mm256_add_epi64(s0, _mm256_load_si256(reinterpret_cast<const __m256i*>(p + i)));
      s1 = _mm256_add_epi64(s1, _mm256_load_si256(reinterpret_cast<const __m256i*>(p + i + 32)));
      s2 = _mm256_add_epi64(s2, _mm256_load_si256(reinterpret_cast<const __m256i*>(p + i + 64)));
      s3 = _mm256_add_epi64(s3, _mm256_load_si256(reinterpret_cast<const __m256i*>(p + i + 96)));
    }
  }
  alignas(32) uint64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes),
                     _mm256_add_epi64(_mm256_add_epi64(s0, s1), _mm256_add_epi64(s2, s3)));
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}

uint64_t read_portable(const uint8_t* p, int64_t n, int64_t passes) {
  uint64_t s = 0;
  for (int64_t r = 0; r < passes; ++r)
    for (int64_t i = 0; i < n; i += 8) {
      uint64_t v;
      std::memcpy(&v, p + i, 8);
      s += v;
    }
  return s;
}

uint64_t read_bytes(const uint8_t* p, int64_t n, int64_t passes, bool prefetch) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (!avx2) return read_portable(p, n, passes);
  return prefetch ? read_avx2<true>(p, n, passes) : read_avx2<false>(p, n, passes);
}

std::atomic<uint64_t> g_sink{0};

}  // namespace

// In 2 MiB pages, as PackedInt4Weights keeps its codes: in 4 KiB pages a stream from
// memory pays a TLB miss per 4 KiB, and the probe would read slower (12-19 against 28-30
// GB/s here) than a kernel streaming the same bytes from huge pages.
uint8_t* probe_buffer(int64_t n) {
  constexpr size_t kHugePage = size_t{2} << 20;
  const size_t alloc = (static_cast<size_t>(n) + kHugePage - 1) / kHugePage * kHugePage;
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(kHugePage, alloc));
  if (p == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  madvise(p, alloc, MADV_HUGEPAGE);
#endif
  std::memset(p, 1, static_cast<size_t>(n));
  return p;
}

uint64_t read_once(const uint8_t* p, int64_t n) { return read_bytes(p, n, 1, false); }

CacheSizes cache_sizes() {
  CacheSizes c;
  if (cpuinfo_initialize()) {
    if (const cpuinfo_cache* l2 = cpuinfo_get_l2_cache(0)) c.l2 = l2->size;
    if (const cpuinfo_cache* l3 = cpuinfo_get_l3_cache(0)) c.l3 = l3->size;
    if (c.l2 > 0 || c.l3 > 0) {
      c.source = "cpuinfo";
      return c;
    }
  }
  c.l2 = std::max<long>(0, sysconf(_SC_LEVEL2_CACHE_SIZE));
  c.l3 = std::max<long>(0, sysconf(_SC_LEVEL3_CACHE_SIZE));
  if (c.l2 > 0 || c.l3 > 0) c.source = "sysconf";
  return c;
}

double read_bandwidth_gbs(int64_t bytes, int threads) {
  const int64_t part = std::max<int64_t>(128, bytes / threads / 128 * 128);
  std::vector<uint8_t*> bufs(threads);
  for (auto& b : bufs) b = probe_buffer(part);
  // Passes per run: ~20 ms at a first guess of 20 GB/s per thread, at least one.
  const int64_t passes = std::max<int64_t>(1, static_cast<int64_t>(0.02 * 20e9 / part));
  double best = 0;
  for (int run = 0; run < 10; ++run) {
    const bool prefetch = run % 2 == 1;
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<double> seconds(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        read_bytes(bufs[t], part, 1, false);  // warm-up: the data moves to its level
        ready.fetch_add(1);
        while (!go.load()) {
        }
        const double t0 = now_seconds();
        g_sink.fetch_add(read_bytes(bufs[t], part, passes, prefetch));
        seconds[t] = now_seconds() - t0;
      });
    }
    while (ready.load() < threads) {
    }
    go.store(true);
    for (auto& th : pool) th.join();
    const double slowest = *std::max_element(seconds.begin(), seconds.end());
    if (run > 1) best = std::max(best, static_cast<double>(part) * passes * threads / slowest / 1e9);
  }
  for (auto* b : bufs) std::free(b);
  return best;
}

std::string level_of(int64_t bytes, const CacheSizes& caches, int threads) {
  if (bytes <= caches.l2 * threads / 2) return "L2";
  if (bytes <= caches.l3 / 2) return "L3";  // the L3 is shared with whatever else runs
  return "DRAM";
}

double same_bytes_read_gbs(int64_t bytes, quire::ThreadPool& pool,
                           const std::function<double(const std::function<void()>&)>& time) {
  const int threads = pool.size();
  const int64_t part = (bytes / threads + 127) / 128 * 128;
  std::unique_ptr<uint8_t, decltype(&std::free)> buf(probe_buffer(part * threads), &std::free);
  std::atomic<uint64_t> sink{0};
  const double s = time([&] {
    pool.run([&](int t, int) { sink.fetch_add(read_once(buf.get() + t * part, part)); });
  });
  return static_cast<double>(part * threads) / s / 1e9;
}

}  // namespace quire::bench
