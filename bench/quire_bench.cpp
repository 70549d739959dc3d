// quire-bench: what quire does on this CPU, next to the baselines available in the same
// run (see /work/shared/BENCH.md for what is measured and why).
#include <cpuinfo.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "acc16_bench.h"
#include "baseline.h"
#include "conv_bench.h"
#include "gemm_data.h"
#include "half_bench.h"
#include "int4_bench.h"
#include "options.h"
#include "peak_probe.h"
#include "machine.h"
#include "progress.h"
#include "quire/KernelFormCounts.h"
#include "quire/Utils.h"
#include "quire_gemm.h"
#include "report.h"
#include "summary_line.h"
#include "b_streaming.h"
#include "embedding_bench.h"
#include "read_bandwidth.h"
#include "thread_pool.h"
#include "timing.h"

namespace quire::bench {
namespace {

std::vector<Shape> select_shapes(const Options& opt) {
  if (!opt.shapes.empty()) return opt.shapes;
  if (opt.precision == "int4") return int4_shapes(opt.shape_set);
  std::vector<Shape> shapes;
  if (opt.shape_set == "inference" || opt.shape_set == "all") shapes = inference_shapes();
  if (opt.shape_set == "half") shapes = half_shapes();
  if (opt.shape_set == "square" || opt.shape_set == "all") {
    for (const Shape& s : square_shapes()) shapes.push_back(s);
  }
  return shapes;
}

// The share of A block x column slice steps that ran one form (pair-safe or corrected),
// or nullopt on a path that does not choose (VNNI, portable).
std::optional<double> form_share(const KernelFormCounts& c, int64_t KernelFormCounts::*form) {
  const int64_t total = c.pair_safe + c.exact + c.corrected;
  if (total == 0) return std::nullopt;
  return static_cast<double>(c.*form) / static_cast<double>(total);
}

void record_forms(ShapeResult& r) {
  const KernelFormCounts c = kernelFormCounts();
  r.pair_safe_share = form_share(c, &KernelFormCounts::pair_safe);
  r.corrected_share = form_share(c, &KernelFormCounts::corrected);
}

// The share of B's K pairs (rows 2t, 2t + 1 of a column; K x N row-major) whose sum can
// leave int16 for some A in 0..255: P > 128 or N < -128 (docs/kernel-contract.md).
double unsafe_pair_share(const GemmData& d) {
  const int K = d.shape.K, N = d.shape.N;
  int64_t unsafe = 0;
  for (int k = 0; k < K; k += 2)
    for (int j = 0; j < N; ++j) {
      const int b0 = d.B[int64_t{k} * N + j], b1 = k + 1 < K ? d.B[int64_t{k + 1} * N + j] : 0;
      const int positive = std::max(b0, 0) + std::max(b1, 0);
      const int negative = std::min(b0, 0) + std::min(b1, 0);
      unsafe += positive > 128 || negative < -128;
    }
  const int64_t pairs = int64_t{(K + 1) / 2} * N;
  return pairs > 0 ? static_cast<double>(unsafe) / static_cast<double>(pairs) : 0;
}

Measurement measure(const std::function<void()>& call, const Shape& s, const Options& opt,
                    CacheFlusher* flusher) {
  Measurement m;
  m.timing = time_calls(call, opt.min_time, flusher);
  m.gops = 2.0 * s.M * s.N * s.K / m.timing.median / 1e9;
  return m;
}

int run(const Options& opt) {
  const std::vector<Shape> shapes = select_shapes(opt);
  if (opt.precision == "acc16") return run_acc16_bench(opt, shapes, cpu_name());
  if (opt.precision == "int4") return run_int4_bench(opt, shapes);
  if (opt.precision == "embedding") return run_embedding_bench(opt);
  if (opt.precision != "int8") return run_half_bench(opt, shapes);

  RunInfo info;
  info.cpu = cpu_name();
  info.isa = instSetName(fbgemmInstructionSet());
  info.isa_forced = opt.isa.has_value();
  info.threads = opt.threads;
  info.output = opt.output;
  info.min_time = opt.min_time;
  info.flush = opt.flush;
  info.shape_set = opt.shapes.empty() ? opt.shape_set : "custom";
  info.weights = opt.weights;
  info.activation_max = opt.activation_max;
  info.peak = measure_peak(fbgemmInstructionSet(), opt.threads);
  info.copy_bandwidth_gbs = copy_bandwidth_gbs();

  std::unique_ptr<Baseline> onednn = make_onednn_baseline(opt.threads);
  std::unique_ptr<Baseline> openblas = make_openblas_baseline(opt.threads);
  if (onednn) info.onednn = onednn->description();
  if (openblas) info.openblas = openblas->description();

  // In CSV mode stdout carries only the CSV; the header goes to stderr.
  print_header(opt.csv ? stderr : stdout, info);
  std::optional<TablePrinter> table;
  std::optional<CsvPrinter> csv;
  if (opt.csv) {
    csv.emplace(stdout, info);
  } else {
    table.emplace(stdout, info);
  }

  ThreadPool pool(opt.threads);
  std::optional<CacheFlusher> flusher;
  if (opt.flush) flusher.emplace();
  CacheFlusher* flush = flusher ? &*flusher : nullptr;
  Progress progress;
  std::vector<ShapeResult> results;

  const int total = static_cast<int>(shapes.size());
  for (int i = 0; i < total; ++i) {
    const Shape& shape = shapes[i];
    const std::string name = to_string(shape);
    progress.update(i + 1, total, name, "data");
    const GemmData data(shape, opt.weights, opt.activation_max);
    const ReferenceRows ref(data);

    ShapeResult r;
    r.shape = shape;
    progress.update(i + 1, total, name, "pack B");
    QuireGemm quire(data, pool);
    r.pack_b_seconds = quire.pack_b_seconds();
    r.packed_b_bytes = quire.packed_b_bytes();
    r.unsafe_pair_share = unsafe_pair_share(data);

    if (opt.output == OutputKind::u8) {
      progress.update(i + 1, total, name, "quire u8");
      resetKernelFormCounts();
      r.quire = measure([&] { quire.call_u8(); }, shape, opt, flush);
      record_forms(r);
      r.quire.mismatches = quire.check_u8(ref);
      progress.update(i + 1, total, name, "quire int32");
      r.quire_int32 = measure([&] { quire.call_int32(); }, shape, opt, flush);
      r.quire_int32->mismatches = quire.check_int32(ref);
    } else {
      progress.update(i + 1, total, name, "quire int32");
      resetKernelFormCounts();
      r.quire = measure([&] { quire.call_int32(); }, shape, opt, flush);
      record_forms(r);
      r.quire.mismatches = quire.check_int32(ref);
    }

    if (shape.M <= 4) {  // the small-M table's yardstick (b_streaming.h)
      progress.update(i + 1, total, name, "read B");
      r.b_read_gbs = same_bytes_read_gbs(r.packed_b_bytes, pool, [&](const std::function<void()>& call) {
        return time_calls(call, opt.min_time, flush).median;
      });
    }
    if (onednn) {
      progress.update(i + 1, total, name, "oneDNN");
      std::unique_ptr<BaselineGemm> gemm = onednn->prepare(data);
      r.onednn = measure([&] { gemm->call(); }, shape, opt, flush);
      r.onednn->mismatches = gemm->check(ref);
      r.onednn_detail = gemm->detail();
      r.onednn_weights_bytes = gemm->packed_weights_bytes();
    }
    if (openblas) {
      progress.update(i + 1, total, name, "OpenBLAS");
      std::unique_ptr<BaselineGemm> gemm = openblas->prepare(data);
      r.openblas = measure([&] { gemm->call(); }, shape, opt, flush);
      r.openblas->mismatches = gemm->check(ref);
    }

    progress.clear();
    if (table) table->row(r);
    if (csv) csv->row(r);
    results.push_back(std::move(r));
  }

  if (table) table->summary(results);
  print_b_streaming(opt.csv ? stderr : stdout, results, opt.threads, opt.flush);
  if (!opt.json_path.empty()) write_json(opt.json_path, info, results);
  const Summary s = summarize(info, results);
  SummaryLine()
      .add("mode", std::string("int8"))
      .add("output", std::string(opt.output == OutputKind::u8 ? "u8" : "int32"))
      .add("isa", info.isa)
      .add("threads", static_cast<long long>(opt.threads))
      .add("shapes", static_cast<long long>(results.size()))
      .add("geomean_gops", s.quire_gops, 1)
      .add("pct_peak", s.pct_peak, 1)
      .add("x_onednn_int32", s.ratio_onednn, 2)
      .add("x_openblas", s.ratio_openblas, 2)
      .add("worst_pct_peak", s.worst_pct_peak ? std::optional(s.worst_pct_peak->value) : std::nullopt, 1)
      .add("weights", std::string(weights_name(opt.weights)))
      .add("activations", std::string(opt.activation_max == 255 ? "8bit" : "7bit"))
      .add("pair_safe_share", s.pair_safe_share, 3)
      .add("checks", std::string(s.failed_checks ? "FAILED" : "exact"))
      .add("baseline_wrong", static_cast<long long>(s.baseline_wrong))
      .print(opt.csv ? stderr : stdout);
  // Only quire's own results decide the exit status: a baseline that saturates (oneDNN on
  // AVX2) is reported as such, not as a failed run.
  return s.failed_checks ? 1 : 0;
}

}  // namespace
}  // namespace quire::bench

int main(int argc, char** argv) {
  using namespace quire::bench;
  std::optional<Options> opt;
  try {
    opt = parse_options(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "quire-bench: %s\n\n", e.what());
    print_usage(stderr, argv[0]);
    return 2;
  }
  if (!opt) return 0;

  if (opt->shapes.empty() && opt->shape_set == "all") {
    std::fprintf(stderr,
                 "quire-bench: --shapes all runs inference + square; the conv bench is "
                 "--shapes conv\n");
  }

  if (opt->isa) {
    try {
      quire::forceIsa(*opt->isa);
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "quire-bench: --isa %s: %s\n", quire::instSetName(*opt->isa),
                   e.what());
      return 2;
    }
  }

  try {
    if (opt->shapes.empty() && opt->shape_set == "conv") return run_conv_bench(*opt);
    return run(*opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "quire-bench: error: %s\n", e.what());
    return 1;
  }
}
