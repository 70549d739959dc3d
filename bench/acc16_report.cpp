// The acc16 bench's renderings (acc16_bench.h): header, table rows and summary, CSV, JSON.
#include <cmath>
#include <fstream>
#include <stdexcept>

#include "acc16_bench.h"
#include "json_writer.h"

#include "format.h"
#include "summary_column.h"
#include "summary_line.h"

namespace quire::bench {
namespace {

std::string num(std::optional<double> v, int decimals) { return format_number(v, decimals, "-"); }
std::string micros(double seconds) { return format_micros(seconds); }



// A fraction as a percentage with 2 decimals; "0" and "100%" only when exact.
std::string percent(const Differing& d) {
  if (d.count == 0) return "0";
  if (d.count == d.outputs) return "100%";
  const double pct = 100 * d.fraction();
  if (pct < 0.01) return "<0.01%";
  if (pct > 99.99) return ">99.99%";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f%%", pct);
  return buf;
}

std::optional<double> ratio(double x, std::optional<double> base) {
  if (!base || !(*base > 0)) return std::nullopt;
  return x / *base;
}

using Column = SummaryColumn<Shape>;

struct Acc16Summary {
  Column acc16_gops, pct_peak, acc32_gops, ratio_acc32, openblas_gflops, ratio_openblas;
  int failed_checks = 0;
};

Acc16Summary summarize(const Acc16RunInfo& info, const std::vector<Acc16ShapeResult>& results) {
  Acc16Summary s;
  for (const Acc16ShapeResult& r : results) {
    const Acc16Columns c = acc16_columns(info, r);
    s.acc16_gops.add(c.acc16_gops, r.shape);
    s.pct_peak.add(c.pct_peak, r.shape);
    s.acc32_gops.add(c.acc32_gops, r.shape);
    s.ratio_acc32.add(c.ratio_acc32, r.shape);
    s.openblas_gflops.add(c.openblas_gflops, r.shape);
    s.ratio_openblas.add(c.ratio_openblas, r.shape);
    s.failed_checks += acc16_check_string(r) != "ok";
  }
  return s;
}

constexpr const char* kRowFormat = "%-16s %9s %9s %6s | %9s %9s %8s | %11s %8s | %12s %13s | %s\n";

}  // namespace

Acc16Columns acc16_columns(const Acc16RunInfo& info, const Acc16ShapeResult& r) {
  Acc16Columns c;
  c.acc16_gops = r.acc16.gops;
  // % of the ceiling of the instructions acc16 runs: its own step where it saturates,
  // the int8 probe (the same kernels) elsewhere.
  if (const std::optional<Peak>& ceiling = info.acc16_peak ? info.acc16_peak : info.peak)
    c.pct_peak = 100 * r.acc16.gops / ceiling->gops;
  c.acc32_gops = r.acc32.gops;
  c.ratio_acc32 = ratio(r.acc16.gops, c.acc32_gops);
  if (r.openblas) c.openblas_gflops = r.openblas->gops;
  c.ratio_openblas = ratio(r.acc16.gops, c.openblas_gflops);
  return c;
}

std::string acc16_check_string(const Acc16ShapeResult& r) {
  std::string failed;
  auto add = [&](const char* name, int64_t mismatches) {
    if (mismatches != 0) failed += std::string(" ") + name + ":" + std::to_string(mismatches);
  };
  add("acc16", r.acc16.mismatches);
  add("acc32", r.acc32.mismatches);
  add("small-weights", r.small_mismatches);
  return failed.empty() ? "ok" : "FAIL" + failed;
}

void print_acc16_header(std::FILE* out, const Acc16RunInfo& info) {
  std::fprintf(out, "CPU       %s\n", info.cpu.c_str());
  std::fprintf(out, "path      %s%s, %d thread(s)\n", info.isa.c_str(),
               info.isa_forced ? " (forced by --isa)" : "", info.threads);
  if (info.saturates) {
    std::fprintf(out,
                 "acc16     saturates (acc16Saturates() = true): vpmaddubsw + vpaddsw int16 "
                 "sums, block depth %d (acc16BlockDepth())\n",
                 info.block_depth);
  } else {
    std::fprintf(out,
                 "acc16     exact (acc16Saturates() = false): runs the path's 32-bit kernels, "
                 "block depth %d (acc16BlockDepth())\n",
                 info.block_depth);
  }
  if (info.peak) {
    std::fprintf(out, "peak      %.1f GOPS = %d x %.1f (int8 probe: %s, best of 5 x 20 ms)\n",
                 info.peak->gops, info.threads, info.peak->gops_per_thread,
                 info.peak->method.c_str());
    if (info.acc16_peak) {
      std::fprintf(out,
                   "          acc16's own step: %.1f GOPS (%s), %.2f x the int8 probe: acc16's "
                   "ceiling on this CPU, what %%peak divides by\n",
                   info.acc16_peak->gops, info.acc16_peak->method.c_str(),
                   info.acc16_peak->gops / info.peak->gops);
    }
  } else {
    std::fprintf(out, "peak      n/a (portable C++ path)\n");
  }
  std::fprintf(out,
               "call      PackAWithRowOffset<uint8_t, accT> + fbgemmPacked + memCopy (int32); B "
               "packed once as PackBMatrix<int8_t, accT>; acc16: accT = int16_t, acc32: int32_t\n");
  std::fprintf(out,
               "timing    median per call, %s; acc16 and acc32 alternate in %d rounds of >= "
               "%.3g s (median of the round medians), OpenBLAS >= %.3g s\n",
               info.flush ? "caches flushed before each call" : "warm caches", info.rounds,
               info.min_time / info.rounds, info.min_time);
  std::fprintf(out,
               "data      timed and checked: A uniform 0..255, B uniform -128..127 (full range, "
               "as --precision int8); small: same A, B uniform %d..%d, untimed\n",
               kSmallWeightLo, kSmallWeightHi);
  std::fprintf(out,
               "check     8 sampled rows: acc16 against %s, acc32 against the exact product, on "
               "both data sets\n",
               info.saturates ? "ref::matmul_u8s8s32_acc16 (the path's block depth)"
                              : "the exact product");
  std::fprintf(out,
               "differs   outputs (of all M x N) where acc16 != acc32, the exact product\n");
  std::fprintf(out, "OpenBLAS  %s\n", info.openblas.empty() ? "n/a (not found at configure time)"
                                                           : info.openblas.c_str());
}

void print_acc16_table_head(std::FILE* out) {
  std::fprintf(out, "\n");
  std::fprintf(out, kRowFormat, "M x N x K", "a16 us", "a16 GOPS", "%peak", "a32 us",
               "a32 GOPS", "a16/a32", "blas GFLOPS", "a16/blas", "differs full",
               "differs small", "check");
}

void print_acc16_row(std::FILE* out, const Acc16RunInfo& info, const Acc16ShapeResult& r) {
  const Acc16Columns c = acc16_columns(info, r);
  std::fprintf(out, kRowFormat, to_string(r.shape).c_str(), micros(r.acc16.timing.median).c_str(),
               num(c.acc16_gops, 1).c_str(), num(c.pct_peak, 1).c_str(),
               micros(r.acc32.timing.median).c_str(), num(c.acc32_gops, 1).c_str(),
               num(c.ratio_acc32, 2).c_str(), num(c.openblas_gflops, 1).c_str(),
               num(c.ratio_openblas, 2).c_str(), percent(r.differs_full).c_str(),
               percent(r.differs_small).c_str(), acc16_check_string(r).c_str());
  std::fflush(out);
}

void print_acc16_summary(std::FILE* out, const Acc16RunInfo& info,
                         const std::vector<Acc16ShapeResult>& results) {
  if (results.empty()) return;
  const Acc16Summary s = summarize(info, results);
  std::fprintf(out, kRowFormat, "geomean", "", num(s.acc16_gops.geomean(), 1).c_str(),
               num(s.pct_peak.geomean(), 1).c_str(), "", num(s.acc32_gops.geomean(), 1).c_str(),
               num(s.ratio_acc32.geomean(), 2).c_str(),
               num(s.openblas_gflops.geomean(), 1).c_str(),
               num(s.ratio_openblas.geomean(), 2).c_str(), "", "", "");
  std::fprintf(out, "\n");
  auto worst = [&](const char* what, const Column& column, int decimals) {
    if (const auto& w = column.worst()) {
      std::fprintf(out, "worst %-10s %s at %s\n", what, num(w->first, decimals).c_str(),
                   to_string(w->second).c_str());
    }
  };
  worst("a16/a32", s.ratio_acc32, 2);
  worst("% of peak", s.pct_peak, 1);
  worst("a16/blas", s.ratio_openblas, 2);
  if (s.failed_checks) {
    std::fprintf(out, "RESULT CHECK FAILED on %d shape(s): see the check column\n",
                 s.failed_checks);
  } else {
    std::fprintf(out, "results checked on sampled rows: acc16 = %s, acc32 = exact\n",
                 info.saturates ? "the acc16 model" : "exact");
  }
  SummaryLine()
      .add("mode", std::string("acc16"))
      .add("isa", info.isa)
      .add("threads", static_cast<long long>(info.threads))
      .add("shapes", static_cast<long long>(results.size()))
      .add("geomean_gops", s.acc16_gops.geomean(), 1)
      .add("pct_peak", s.pct_peak.geomean(), 1)
      .add("x_acc32", s.ratio_acc32.geomean(), 2)
      .add("x_openblas", s.ratio_openblas.geomean(), 2)
      .add("checks", std::string(s.failed_checks ? "FAILED" : "ok"))
      .print(out);
}

void print_acc16_csv_head(std::FILE* out) {
  std::fprintf(out,
               "M,N,K,isa,threads,acc16_saturates,acc16_block_depth,acc16_median_s,acc16_min_s,"
               "acc16_max_s,acc16_calls,acc16_gops,pct_peak,acc32_median_s,acc32_min_s,"
               "acc32_max_s,acc32_calls,acc32_gops,ratio_acc16_acc32,openblas_median_s,"
               "openblas_gflops,ratio_openblas,pack_b_acc16_s,packed_b_acc16_bytes,"
               "pack_b_acc32_s,packed_b_acc32_bytes,differs_full,differs_small,check\n");
}

void print_acc16_csv_row(std::FILE* out, const Acc16RunInfo& info, const Acc16ShapeResult& r) {
  // Empty fields where the table says n/a.
  auto field = [](std::optional<double> v) {
    if (!v) return std::string();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", *v);
    return std::string(buf);
  };
  auto timing = [&](const Measurement& m) {
    return field(m.timing.median) + "," + field(m.timing.min) + "," + field(m.timing.max) + "," +
           std::to_string(m.timing.calls);
  };
  const Acc16Columns c = acc16_columns(info, r);
  std::fprintf(out, "%d,%d,%d,%s,%d,%d,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%lld,%s,%lld,%s,%s,%s\n",
               r.shape.M, r.shape.N, r.shape.K, info.isa.c_str(), info.threads,
               info.saturates ? 1 : 0, info.block_depth, timing(r.acc16).c_str(),
               field(c.acc16_gops).c_str(), field(c.pct_peak).c_str(), timing(r.acc32).c_str(),
               field(c.acc32_gops).c_str(), field(c.ratio_acc32).c_str(),
               field(r.openblas ? std::optional(r.openblas->timing.median) : std::nullopt).c_str(),
               field(c.openblas_gflops).c_str(), field(c.ratio_openblas).c_str(),
               field(r.pack_b_acc16_s).c_str(), static_cast<long long>(r.packed_b_acc16_bytes),
               field(r.pack_b_acc32_s).c_str(), static_cast<long long>(r.packed_b_acc32_bytes),
               field(r.differs_full.fraction()).c_str(), field(r.differs_small.fraction()).c_str(),
               acc16_check_string(r).c_str());
  std::fflush(out);
}

void write_acc16_json(const std::string& path, const Acc16RunInfo& info,
                      const std::vector<Acc16ShapeResult>& results) {
  std::ofstream file(path);
  if (!file) throw std::runtime_error("cannot open '" + path + "' for writing");
  JsonWriter json(file);
  json.begin_object();
  json.field("cpu", info.cpu);
  json.field("isa", info.isa);
  json.field("isa_forced", info.isa_forced);
  json.field("threads", info.threads);
  json.field("precision", "acc16");
  json.field("acc16_saturates", info.saturates);
  json.field("acc16_block_depth", info.block_depth);
  if (info.peak) {
    json.begin_object("peak");
    json.field("gops", info.peak->gops);
    json.field("gops_per_thread", info.peak->gops_per_thread);
    json.field("method", info.peak->method);
    json.field("saturating", info.peak->saturating);
    json.end_object();
  } else {
    json.field("peak", std::optional<double>());
  }
  if (info.acc16_peak) {
    json.begin_object("acc16_peak");
    json.field("gops", info.acc16_peak->gops);
    json.field("gops_per_thread", info.acc16_peak->gops_per_thread);
    json.field("method", info.acc16_peak->method);
    json.end_object();
  } else {
    json.field("acc16_peak", std::optional<double>());
  }
  json.field("output", "int32");
  json.field("min_time_s", info.min_time);
  json.field("rounds", info.rounds);
  json.field("flush", info.flush);
  json.field("shape_set", info.shape_set);
  json.field("small_weights_b_lo", kSmallWeightLo);
  json.field("small_weights_b_hi", kSmallWeightHi);
  json.field("openblas", info.openblas);

  auto differing = [&](const char* key, const Differing& d) {
    json.begin_object(key);
    json.field("count", d.count);
    json.field("outputs", d.outputs);
    json.field("fraction", d.fraction());
    json.end_object();
  };
  json.begin_array("shapes");
  for (const Acc16ShapeResult& r : results) {
    const Acc16Columns c = acc16_columns(info, r);
    json.begin_object();
    json.field("M", r.shape.M);
    json.field("N", r.shape.N);
    json.field("K", r.shape.K);
    write_measurement(json, "acc16", r.acc16);
    json.field("pct_peak", c.pct_peak);
    write_measurement(json, "acc32", r.acc32);
    json.field("ratio_acc16_acc32", c.ratio_acc32);
    if (r.openblas) write_measurement(json, "openblas", *r.openblas);
    json.field("ratio_acc16_openblas", c.ratio_openblas);
    json.field("pack_b_acc16_s", r.pack_b_acc16_s);
    json.field("packed_b_acc16_bytes", r.packed_b_acc16_bytes);
    json.field("pack_b_acc32_s", r.pack_b_acc32_s);
    json.field("packed_b_acc32_bytes", r.packed_b_acc32_bytes);
    differing("differs_full", r.differs_full);
    differing("differs_small", r.differs_small);
    json.field("small_weights_mismatches", r.small_mismatches);
    json.field("check", acc16_check_string(r));
    json.end_object();
  }
  json.end_array();

  const Acc16Summary s = summarize(info, results);
  json.begin_object("geomean");
  json.field("acc16_gops", s.acc16_gops.geomean());
  json.field("pct_peak", s.pct_peak.geomean());
  json.field("acc32_gops", s.acc32_gops.geomean());
  json.field("ratio_acc16_acc32", s.ratio_acc32.geomean());
  json.field("openblas_gflops", s.openblas_gflops.geomean());
  json.field("ratio_acc16_openblas", s.ratio_openblas.geomean());
  json.end_object();
  json.begin_object("worst");
  auto worst = [&](const char* key, const Column& column) {
    if (!column.worst()) return;
    json.begin_object(key);
    json.field("value", column.worst()->first);
    json.field("shape", to_string(column.worst()->second));
    json.end_object();
  };
  worst("pct_peak", s.pct_peak);
  worst("ratio_acc16_acc32", s.ratio_acc32);
  worst("ratio_acc16_openblas", s.ratio_openblas);
  json.end_object();
  json.field("failed_checks", s.failed_checks);
  json.end_object();
  file << '\n';
  if (!file) throw std::runtime_error("error writing '" + path + "'");
}

}  // namespace quire::bench
