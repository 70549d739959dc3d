// The half-precision bench's renderings: header, table rows and summary, CSV, JSON.
#include <cmath>
#include <fstream>
#include <stdexcept>

#include "format.h"
#include "half_bench.h"
#include "summary_column.h"
#include "summary_line.h"

namespace quire::bench {
namespace {

std::string num(std::optional<double> v, int decimals) { return format_number(v, decimals, "n/a"); }

bool bf16_run(const HalfRunInfo& info) { return info.precision == "bf16"; }
// Runs that also time the fp16 path.
bool fp16_columns(const HalfRunInfo& info) { return info.precision != "fp16"; }

std::optional<double> percent_of_peak(const HalfRunInfo& info, const HalfShapeResult& r) {
  const std::optional<FlopsPeak> peak = info.path_peak();
  if (!peak) return std::nullopt;
  return 100 * r.quire.gflops / (peak->gflops_per_thread * info.threads);
}

std::optional<double> gflops(const std::optional<HalfRun>& run) {
  if (!run) return std::nullopt;
  return run->gflops;
}

std::optional<double> ratio(double x, const std::optional<HalfRun>& base) {
  if (!base) return std::nullopt;
  return x / base->gflops;
}

// The columns of one row, shared by the table, the summary, CSV and JSON.
struct Columns {
  std::optional<double> gflops, pct_peak, bf16_act, fp16, x_fp16, openblas, x_openblas;
};

Columns columns(const HalfRunInfo& info, const HalfShapeResult& r) {
  return {r.quire.gflops,        percent_of_peak(info, r),
          gflops(r.bf16_act),    gflops(r.fp16),
          ratio(r.quire.gflops, r.fp16), gflops(r.openblas),
          ratio(r.quire.gflops, r.openblas)};
}

void print_columns(std::FILE* out, const HalfRunInfo& info, const Columns& c) {
  std::fprintf(out, " %8s %6s", num(c.gflops, 1).c_str(), num(c.pct_peak, 1).c_str());
  if (bf16_run(info)) std::fprintf(out, " %9s", num(c.bf16_act, 1).c_str());
  if (fp16_columns(info))
    std::fprintf(out, " | %8s %7s", num(c.fp16, 1).c_str(), num(c.x_fp16, 2).c_str());
  std::fprintf(out, " | %8s %7s", num(c.openblas, 1).c_str(), num(c.x_openblas, 2).c_str());
}

}  // namespace

std::optional<FlopsPeak> HalfRunInfo::path_peak() const { return dpbf16_peak ? dpbf16_peak : fma_peak; }

void print_half_header(std::FILE* out, const HalfRunInfo& info) {
  std::fprintf(out, "CPU       %s\n", info.cpu.c_str());
  std::fprintf(out, "path      %s%s, kernels %s, %d thread(s)\n", info.isa.c_str(),
               info.isa_forced ? " (forced by --isa)" : "", info.kernels.c_str(), info.threads);
  for (const auto& [name, peak] : {std::pair{"fp32 FMA", info.fma_peak},
                                   std::pair{"vdpbf16ps", info.dpbf16_peak}}) {
    if (!peak) continue;
    std::fprintf(out, "peak      %s %.1f GFLOPS = %d x %.1f (%s, best of 5 x 20 ms)\n", name,
                 peak->gflops_per_thread * info.threads, info.threads, peak->gflops_per_thread,
                 peak->method.c_str());
  }
  if (!info.fma_peak) std::fprintf(out, "peak      n/a (portable C++ path)\n");
  std::fprintf(out, "call      cblas_gemm_compute, fp32 A x %s weights -> fp32, beta 0; B packed once\n",
               info.precision.c_str());
  std::fprintf(out, "timing    median per call, >= %.3g s per shape and library, %s\n",
               info.min_time, info.flush ? "caches flushed before each call" : "warm caches");
  std::fprintf(out, "OpenBLAS  %s\n", info.openblas.empty() ? "n/a (not found at configure time)"
                                                           : info.openblas.c_str());
}

void print_half_table_head(std::FILE* out, const HalfRunInfo& info) {
  std::fprintf(out, "\n%-14s %8s %9s %8s %6s", "shape MxNxK", "pack ms", "us/call", "GFLOPS",
               "%peak");
  if (bf16_run(info)) std::fprintf(out, " %9s", "bf16 A");
  if (fp16_columns(info)) std::fprintf(out, " | %8s %7s", "fp16", "x fp16");
  std::fprintf(out, " | %8s %7s | %s\n", "OpenBLAS", "x OBLAS", "err/bound");
}

void print_half_row(std::FILE* out, const HalfRunInfo& info, const HalfShapeResult& r) {
  std::fprintf(out, "%-14s %8.2f %9.2f", to_string(r.shape).c_str(), r.pack_ms,
               r.quire.timing.median * 1e6);
  print_columns(out, info, columns(info, r));
  std::fprintf(out, " | %.2f%s\n", r.worst_error, r.worst_error <= 1 ? "" : " FAIL");
}

void print_half_summary(std::FILE* out, const HalfRunInfo& info,
                        const std::vector<HalfShapeResult>& results) {
  SummaryColumn<> g[7];
  std::optional<double> worst_x_openblas;
  int failed = 0;
  for (const HalfShapeResult& r : results) {
    const Columns c = columns(info, r);
    const std::optional<double>* v[] = {&c.gflops, &c.pct_peak, &c.bf16_act, &c.fp16,
                                        &c.x_fp16, &c.openblas, &c.x_openblas};
    for (int i = 0; i < 7; ++i) g[i].add(*v[i]);
    if (c.x_openblas && (!worst_x_openblas || *c.x_openblas < *worst_x_openblas))
      worst_x_openblas = c.x_openblas;
    if (!(r.worst_error <= 1)) ++failed;
  }
  std::fprintf(out, "%-14s %8s %9s", "geomean", "", "");
  print_columns(out, info,
                {g[0].geomean(), g[1].geomean(), g[2].geomean(), g[3].geomean(), g[4].geomean(),
                 g[5].geomean(), g[6].geomean()});
  std::fprintf(out, "\n");
  if (worst_x_openblas) std::fprintf(out, "worst x OpenBLAS %.2f\n", *worst_x_openblas);
  if (failed) {
    std::fprintf(out, "RESULT CHECK FAILED on %d shape(s): error above the bound\n", failed);
  } else {
    std::fprintf(out, "results checked on sampled rows: within the fp32 error bound\n");
  }
  SummaryLine()
      .add("mode", info.precision)
      .add("kernels", info.kernels)
      .add("threads", static_cast<long long>(info.threads))
      .add("shapes", static_cast<long long>(results.size()))
      .add("geomean_gflops", g[0].geomean(), 1)
      .add("pct_peak", g[1].geomean(), 1)
      .add("x_openblas", g[6].geomean(), 2)
      .add("worst_x_openblas", worst_x_openblas, 2)
      .add("checks", std::string(failed ? "FAILED" : "within_bound"))
      .print(out);
}

void print_half_csv(std::FILE* out, const HalfRunInfo& info,
                    const std::vector<HalfShapeResult>& results) {
  std::fprintf(out, "precision,kernels,threads,M,N,K,pack_ms,median_us,min_us,max_us,gflops,"
                    "pct_peak,bf16_act_gflops,fp16_gflops,x_fp16,openblas_gflops,x_openblas,"
                    "err_over_bound\n");
  for (const HalfShapeResult& r : results) {
    const Columns c = columns(info, r);
    std::fprintf(out, "%s,%s,%d,%d,%d,%d,%.4f,%.3f,%.3f,%.3f,%s,%s,%s,%s,%s,%s,%s,%.4f\n",
                 info.precision.c_str(), info.kernels.c_str(), info.threads, r.shape.M,
                 r.shape.N, r.shape.K, r.pack_ms, r.quire.timing.median * 1e6,
                 r.quire.timing.min * 1e6, r.quire.timing.max * 1e6, num(c.gflops, 3).c_str(),
                 num(c.pct_peak, 2).c_str(), num(c.bf16_act, 3).c_str(), num(c.fp16, 3).c_str(),
                 num(c.x_fp16, 4).c_str(), num(c.openblas, 3).c_str(),
                 num(c.x_openblas, 4).c_str(), r.worst_error);
  }
}

void write_half_json(const std::string& path, const HalfRunInfo& info,
                     const std::vector<HalfShapeResult>& results) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write " + path);
  auto field = [](std::optional<double> v) { return v ? num(v, 4) : std::string("null"); };
  const std::optional<FlopsPeak> peak = info.path_peak();
  f << "{\n  \"cpu\": \"" << info.cpu << "\",\n  \"isa\": \"" << info.isa
    << "\",\n  \"precision\": \"" << info.precision << "\",\n  \"kernels\": \"" << info.kernels
    << "\",\n  \"threads\": " << info.threads << ",\n  \"flush\": " << (info.flush ? "true" : "false")
    << ",\n  \"peak_gflops_per_thread\": "
    << field(peak ? std::optional<double>(peak->gflops_per_thread) : std::nullopt)
    << ",\n  \"shapes\": [";
  for (size_t i = 0; i < results.size(); ++i) {
    const HalfShapeResult& r = results[i];
    const Columns c = columns(info, r);
    f << (i ? "," : "") << "\n    {\"M\": " << r.shape.M << ", \"N\": " << r.shape.N
      << ", \"K\": " << r.shape.K << ", \"median_us\": " << r.quire.timing.median * 1e6
      << ", \"gflops\": " << field(c.gflops) << ", \"pct_peak\": " << field(c.pct_peak)
      << ", \"bf16_act_gflops\": " << field(c.bf16_act) << ", \"fp16_gflops\": " << field(c.fp16)
      << ", \"openblas_gflops\": " << field(c.openblas)
      << ", \"err_over_bound\": " << r.worst_error << "}";
  }
  f << "\n  ]\n}\n";
}

}  // namespace quire::bench
