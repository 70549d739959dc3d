// quire-bench --precision acc16 (acc16_bench.h). Per shape, acc16 and acc32 make the same
// call on the same path, the way an engine makes it: B packed once (PackBMatrix<int8_t,
// accT>), then per call and thread a PackAWithRowOffset<uint8_t, accT>, fbgemmPacked and
// memCopy to int32. Only accT differs, so acc16 / acc32 is the speed-up of 16-bit
// accumulation alone.
#include "acc16_bench.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <utility>

#include "baseline.h"
#include "gemm_data.h"
#include "progress.h"
#include "quire/Acc16.h"
#include "quire/Utils.h"
#include "quire/quire.h"
#include "thread_pool.h"
#include "timing.h"

namespace quire::bench {
namespace {

// quire with accumulation accT and int32 output on one shape's data (which must outlive it).
template <class accT>
class Int32Gemm {
 public:
  Int32Gemm(const GemmData& data, ThreadPool& pool)
      : pool_(pool), c_(static_cast<size_t>(data.shape.M) * data.shape.N) {
    const auto [M, N, K] = data.shape;
    const double t0 = now_seconds();
    packed_b_ = std::make_unique<PackBMatrix<int8_t, accT>>(matrix_op_t::NoTranspose, K, N,
                                                            data.B.data(), N);
    pack_b_seconds_ = now_seconds() - t0;
    row_offsets_.assign(pool.size(), std::vector<int32_t>(
                                         PackAWithRowOffset<uint8_t, accT>::rowOffsetBufferSize()));
    // C doubles as the int32 scratch, as in QuireGemm::call_int32.
    job_ = [this, &data, M, N, K](int thread_id, int num_threads) {
      PackAWithRowOffset<uint8_t, accT> packed_a(matrix_op_t::NoTranspose, M, K, data.A.data(),
                                                 K, nullptr, 1, row_offsets_[thread_id].data());
      DoNothing<int32_t, int32_t> done;
      memCopy<> copy(done);
      fbgemmPacked(packed_a, *packed_b_, c_.data(), c_.data(), N, copy, thread_id, num_threads);
    };
  }

  void call() { pool_.run(job_); }
  const int32_t* output() const { return c_.data(); }
  double pack_b_seconds() const { return pack_b_seconds_; }
  int64_t packed_b_bytes() const { return packed_b_->packedBufferSizeBytes(); }

 private:
  ThreadPool& pool_;
  AlignedArray<int32_t> c_;
  double pack_b_seconds_ = 0;
  std::unique_ptr<PackBMatrix<int8_t, accT>> packed_b_;
  std::vector<std::vector<int32_t>> row_offsets_;  // per thread
  std::function<void(int, int)> job_;
};

Differing count_differing(const int32_t* acc16, const int32_t* exact, const Shape& s) {
  Differing d;
  d.outputs = int64_t{s.M} * s.N;
  for (int64_t i = 0; i < d.outputs; ++i) d.count += acc16[i] != exact[i];
  return d;
}

// Times `first` and `second` in alternating rounds of min_time / rounds each, so that a
// burst of load on a shared machine slows both sides of their ratio alike. A side's
// median is the median of its round medians; min, max and calls span every round.
std::pair<Timing, Timing> time_alternating(const std::function<void()>& first,
                                           const std::function<void()>& second, int rounds,
                                           double min_time, CacheFlusher* flusher) {
  std::vector<Timing> runs[2];
  for (int r = 0; r < rounds; ++r) {
    runs[0].push_back(time_calls(first, min_time / rounds, flusher));
    runs[1].push_back(time_calls(second, min_time / rounds, flusher));
  }
  auto combine = [](const std::vector<Timing>& parts) {
    Timing t = parts.front();
    std::vector<double> medians;
    t.calls = 0;
    for (const Timing& p : parts) {
      medians.push_back(p.median);
      t.min = std::min(t.min, p.min);
      t.max = std::max(t.max, p.max);
      t.calls += p.calls;
    }
    t.median = median(std::move(medians));
    return t;
  };
  return {combine(runs[0]), combine(runs[1])};
}

Measurement measurement(const Timing& t, const Shape& s) {
  Measurement m;
  m.timing = t;
  m.gops = 2.0 * s.M * s.N * s.K / t.median / 1e9;
  return m;
}

// The sampled rows acc16 must reproduce on this path: the acc16 model where it saturates,
// the exact product elsewhere.
ReferenceRows acc16_reference(const GemmData& data, const Acc16RunInfo& info) {
  return ReferenceRows(data, info.saturates ? info.block_depth : 0);
}

// One untimed call of each on the small-weights data: how often acc16 differs there,
// and the same checks as on the timed data.
void run_small_weights(const Shape& shape, const Acc16RunInfo& info, ThreadPool& pool,
                       Acc16ShapeResult& r) {
  const GemmData data(shape, kSmallWeightLo, kSmallWeightHi);
  Int32Gemm<int16_t> acc16(data, pool);
  Int32Gemm<int32_t> acc32(data, pool);
  acc16.call();
  acc32.call();
  r.small_mismatches = acc16_reference(data, info).mismatches(acc16.output()) +
                       ReferenceRows(data).mismatches(acc32.output());
  r.differs_small = count_differing(acc16.output(), acc32.output(), shape);
}

}  // namespace

int run_acc16_bench(const Options& opt, const std::vector<Shape>& shapes, const std::string& cpu) {
  Acc16RunInfo info;
  info.cpu = cpu;
  info.isa = instSetName(fbgemmInstructionSet());
  info.isa_forced = opt.isa.has_value();
  info.shape_set = opt.shapes.empty() ? opt.shape_set : "custom";
  info.flush = opt.flush;
  info.threads = opt.threads;
  info.min_time = opt.min_time;
  info.saturates = acc16Saturates();
  info.block_depth = acc16BlockDepth();
  info.peak = measure_peak(fbgemmInstructionSet(), opt.threads);
  if (info.saturates) info.acc16_peak = measure_acc16_peak(fbgemmInstructionSet(), opt.threads);
  std::unique_ptr<Baseline> openblas = make_openblas_baseline(opt.threads);
  if (openblas) info.openblas = openblas->description();

  // In CSV mode stdout carries only the CSV; the header goes to stderr.
  print_acc16_header(opt.csv ? stderr : stdout, info);
  if (opt.csv) {
    print_acc16_csv_head(stdout);
  } else {
    print_acc16_table_head(stdout);
  }

  ThreadPool pool(opt.threads);
  std::optional<CacheFlusher> flusher;
  if (opt.flush) flusher.emplace();
  CacheFlusher* flush = flusher ? &*flusher : nullptr;
  Progress progress;
  std::vector<Acc16ShapeResult> results;
  const int total = static_cast<int>(shapes.size());
  for (int i = 0; i < total; ++i) {
    const Shape& shape = shapes[i];
    const std::string name = to_string(shape);
    Acc16ShapeResult r;
    r.shape = shape;

    progress.update(i + 1, total, name, "data");
    const GemmData data(shape);
    progress.update(i + 1, total, name, "pack B");
    Int32Gemm<int16_t> acc16(data, pool);
    Int32Gemm<int32_t> acc32(data, pool);
    r.pack_b_acc16_s = acc16.pack_b_seconds();
    r.pack_b_acc32_s = acc32.pack_b_seconds();
    r.packed_b_acc16_bytes = acc16.packed_b_bytes();
    r.packed_b_acc32_bytes = acc32.packed_b_bytes();

    progress.update(i + 1, total, name, "acc16 / acc32");
    const auto [t16, t32] = time_alternating([&] { acc16.call(); }, [&] { acc32.call(); },
                                             info.rounds, opt.min_time, flush);
    r.acc16 = measurement(t16, shape);
    r.acc32 = measurement(t32, shape);
    progress.update(i + 1, total, name, "check");
    r.acc16.mismatches = acc16_reference(data, info).mismatches(acc16.output());
    r.acc32.mismatches = ReferenceRows(data).mismatches(acc32.output());
    r.differs_full = count_differing(acc16.output(), acc32.output(), shape);

    if (openblas) {
      progress.update(i + 1, total, name, "OpenBLAS");
      std::unique_ptr<BaselineGemm> gemm = openblas->prepare(data);
      r.openblas = measurement(time_calls([&] { gemm->call(); }, opt.min_time, flush), shape);
    }
    progress.update(i + 1, total, name, "small weights");
    run_small_weights(shape, info, pool, r);

    progress.clear();
    if (opt.csv) {
      print_acc16_csv_row(stdout, info, r);
    } else {
      print_acc16_row(stdout, info, r);
    }
    results.push_back(r);
  }

  if (!opt.csv) print_acc16_summary(stdout, info, results);
  if (!opt.json_path.empty()) write_acc16_json(opt.json_path, info, results);
  for (const Acc16ShapeResult& r : results)
    if (acc16_check_string(r) != "ok") return 1;
  return 0;
}

}  // namespace quire::bench
