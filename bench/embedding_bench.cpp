// quire-bench --precision embedding (embedding_bench.h). Each call takes the next window
// of a long random index stream, so a table beyond L3 is read from memory and not from
// the rows the previous calls left in cache; the gather baseline walks the same windows.
// With 2 threads each calls the kernel on its own windows and output at once (a timed
// call is one call per thread).
#include "embedding_bench.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "quire/EmbeddingBag.h"
#include "read_bandwidth.h"
#include "quire/Utils.h"
#include "summary_line.h"
#include "thread_pool.h"
#include "timing.h"

namespace quire::bench {
namespace {

constexpr int kBatch = 10;
constexpr int kAverageBag = 100;
constexpr int kPrefetch = 16;
constexpr int64_t kBigRows = 4'000'000;
constexpr int64_t kBigBytesCap = int64_t{2} << 30;
constexpr int64_t kSmallRows = 2'000;
constexpr int kWindows = 4096;  // calls before an index window repeats

// A table in L3 but far beyond L2: an eighth of the L3 the OS reports (the L3 is shared
// with other cores and, on a cloud machine, other tenants), 32 MiB if it reports none.
int64_t l3_table_bytes() {
  const int64_t l3 = cache_sizes().l3;
  return l3 > 0 ? l3 / 8 : int64_t{32} << 20;
}

struct Format {
  const char* name;
  int bits;  // 32 float, 16 fp16, 8, 4, 2
  int64_t row_bytes(int64_t dim) const {
    const int64_t data = (dim * bits + 7) / 8;
    return bits == 8 ? data + 8 : bits < 8 ? data + 4 : data;
  }
};
const Format kFormats[] = {{"fp32", 32}, {"fp16", 16}, {"int8", 8}, {"int4", 4}, {"int2", 2}};
const int64_t kDims[] = {32, 64, 128, 256, 512, 1024};

using Kernel = std::function<bool(const uint8_t* table, int64_t rows, const int64_t* idx,
                                  const float* weights, float* out)>;

Kernel make_kernel(const Format& f, int64_t dim, bool weighted, const std::vector<int32_t>& offsets,
                   int64_t index_size) {
  const int32_t* ol = offsets.data();
  auto wrap = [=](auto k, auto* in_type) {
    using In = std::remove_pointer_t<decltype(in_type)>;
    return Kernel([=](const uint8_t* t, int64_t rows, const int64_t* idx, const float* w,
                      float* out) {
      return k(kBatch, index_size, rows, reinterpret_cast<const In*>(t), idx, ol, w, out);
    });
  };
  if (f.bits == 32)
    return wrap(GenerateEmbeddingSpMDM<float, int64_t>(dim, weighted, false, kPrefetch),
                static_cast<float*>(nullptr));
  if (f.bits == 16)
    return wrap(GenerateEmbeddingSpMDM<uint16_t, int64_t>(dim, weighted, false, kPrefetch),
                static_cast<uint16_t*>(nullptr));
  if (f.bits == 8)
    return wrap(GenerateEmbeddingSpMDM<uint8_t, int64_t>(dim, weighted, false, kPrefetch),
                static_cast<uint8_t*>(nullptr));
  return wrap(GenerateEmbeddingSpMDMNBit<int64_t>(f.bits, dim, weighted, false, kPrefetch),
              static_cast<uint8_t*>(nullptr));
}

struct Result {
  double s = 0, gather_s = 0;
};

Result measure(ThreadPool& pool, const Kernel& kernel, const uint8_t* table, int64_t rows,
               int64_t row_bytes, int64_t dim, const std::vector<int64_t>& stream,
               int64_t index_size, const float* weights, double min_time) {
  const int threads = pool.size();
  std::vector<std::vector<float>> out(static_cast<size_t>(threads),
                                      std::vector<float>(static_cast<size_t>(kBatch * dim)));
  // Thread t walks windows t, t + threads, ...
  std::vector<int> window(static_cast<size_t>(threads));
  auto next = [&](int t) {
    int& w = window[static_cast<size_t>(t)];
    const int64_t* idx = stream.data() + static_cast<int64_t>(w) * index_size;
    w = (w + threads) % kWindows;
    return idx;
  };
  auto restart = [&] {
    for (int t = 0; t < threads; ++t) window[static_cast<size_t>(t)] = t;
  };
  std::vector<uint64_t> sink(static_cast<size_t>(threads) * 8);  // a line per thread
  Result r;
  restart();
  r.s = time_calls([&] {
          pool.run([&](int t, int) {
            sink[static_cast<size_t>(t) * 8] +=
                kernel(table, rows, next(t), weights, out[static_cast<size_t>(t)].data());
          });
        },
        min_time, nullptr).median;
  restart();
  r.gather_s = time_calls([&] {
                 pool.run([&](int t, int) {
                   sink[static_cast<size_t>(t) * 8] += gather_row_words(
                       table, row_bytes, row_bytes, next(t), index_size, kPrefetch);
                 });
               },
               min_time, nullptr).median;
  if (sink[0] == 42) std::printf(" ");  // keeps the gather's sum alive
  return r;
}

}  // namespace

int run_embedding_bench(const Options& opt) {
  std::mt19937_64 gen(2026);
  std::vector<int32_t> offsets(kBatch + 1, 0);
  std::uniform_int_distribution<int> len(1, 2 * kAverageBag - 1);
  for (int b = 0; b < kBatch; ++b) offsets[b + 1] = offsets[b] + len(gen);
  const int64_t index_size = offsets[kBatch];
  std::vector<float> weights(static_cast<size_t>(index_size));
  for (float& w : weights) w = std::uniform_real_distribution<float>(0.5f, 1.5f)(gen);

  // --tables, --formats, --dims and --threads pick a part of the run (empty: all).
  auto wanted = [](const std::vector<std::string>& list, const char* name) {
    return list.empty() || std::find(list.begin(), list.end(), name) != list.end();
  };
  std::vector<int64_t> dims(std::begin(kDims), std::end(kDims));
  if (!opt.dims.empty()) dims.assign(opt.dims.begin(), opt.dims.end());
  const int64_t l3_bytes = l3_table_bytes();

  // One buffer for every table: filled with 0x3c bytes, which are ordinary values in
  // every format (float 0.0115, fp16 1.06, code 60), so no denormal slows the sums.
  int64_t table_bytes = wanted(opt.tables, "big") ? kBigBytesCap : l3_bytes;
  for (const int64_t dim : dims) table_bytes = std::max(table_bytes, kSmallRows * 4 * dim);
  // 64-byte aligned, as the tensors of PyTorch's allocator are (a std::vector's large
  // buffer starts 16 bytes into its mapping: every row of a 64-byte multiple stride would
  // then straddle one more cache line than the engine's).
  std::vector<uint8_t> buffer(static_cast<size_t>(table_bytes) + 64, 0x3c);
  const uintptr_t misalign = reinterpret_cast<uintptr_t>(buffer.data()) % 64;
  uint8_t* const table_data = buffer.data() + (misalign ? 64 - misalign : 0);

  std::printf("quire-bench --precision embedding: batch %d, %lld indices (average bag %d), "
              "prefetch %d, %s threads, path %s\n",
              kBatch, static_cast<long long>(index_size), kAverageBag, kPrefetch,
              !opt.threads_given ? "1 and 2" : opt.threads == 1 ? "1" : "2", instSetName(fbgemmInstructionSet()));
  std::printf("tables: big = 4,000,000 rows (at most 2 GiB), L3 = %lld MiB (an eighth of "
              "the L3), 2000 = 2,000 rows\n",
              static_cast<long long>(l3_bytes >> 20));
  std::printf("GB/s: row bytes gathered (scale and bias included) per second, all threads; "
              "gather: a plain sum of the same rows' bytes, same indices and prefetch\n\n");
  std::printf("%-6s %5s %-3s %6s %2s %9s %9s %8s %8s %8s %6s\n", "rows", "dim", "w", "table",
              "T", "rows", "us/call", "Mrows/s", "GB/s", "gather", "ratio");
  std::optional<double> worst_big[2];  // by threads - 1; none where not run
  ThreadPool pool1(1), pool2(2);
  std::vector<ThreadPool*> pools{&pool1, &pool2};
  if (opt.threads_given) pools = {opt.threads == 1 ? &pool1 : &pool2};
  enum class Table { big, l3, small };
  for (const Table which : {Table::big, Table::l3, Table::small})
    for (const Format& f : kFormats)
      for (const int64_t dim : dims) {
        const char* table_name = which == Table::big ? "big" : which == Table::l3 ? "L3" : "2000";
        if (!wanted(opt.tables, table_name) || !wanted(opt.formats, f.name)) continue;
        const int64_t row_bytes = f.row_bytes(dim);
        const int64_t rows = which == Table::big  ? std::min(kBigRows, kBigBytesCap / row_bytes)
                             : which == Table::l3 ? l3_bytes / row_bytes
                                                  : kSmallRows;
        std::vector<int64_t> stream(static_cast<size_t>(index_size) * kWindows);
        std::uniform_int_distribution<int64_t> pick(0, rows - 1);
        for (int64_t& i : stream) i = pick(gen);
        for (ThreadPool* pool : pools)
          for (const bool weighted : {false, true}) {
            const Kernel k = make_kernel(f, dim, weighted, offsets, index_size);
            const Result r = measure(*pool, k, table_data, rows, row_bytes, dim, stream, index_size,
                                     weighted ? weights.data() : nullptr, opt.min_time);
            const double bytes = static_cast<double>(pool->size() * index_size * row_bytes);
            const double gbs = bytes / r.s / 1e9, gather = bytes / r.gather_s / 1e9;
            std::printf("%-6s %5lld %-3s %6s %2d %9lld %9.2f %8.1f %8.2f %8.2f %6.2f\n", f.name,
                        static_cast<long long>(dim), weighted ? "yes" : "no", table_name,
                        pool->size(), static_cast<long long>(rows), r.s * 1e6,
                        static_cast<double>(pool->size() * index_size) / r.s / 1e6, gbs, gather,
                        gbs / gather);
            std::fflush(stdout);
            if (which == Table::big) {
              std::optional<double>& worst = worst_big[pool->size() - 1];
              worst = std::min(worst.value_or(gbs / gather), gbs / gather);
            }
          }
      }
  SummaryLine()
      .add("mode", std::string("embedding"))
      .add("isa", std::string(instSetName(fbgemmInstructionSet())))
      .add("worst_big_table_ratio_to_gather", worst_big[0], 2)
      .add("worst_big_table_ratio_to_gather_2_threads", worst_big[1], 2)
      .print(stdout);
  return 0;
}

}  // namespace quire::bench
