// The int4 bench's renderings (int4_bench.h): header, table rows, CSV, summary.
#include <cmath>

#include "format.h"
#include "int4_bench.h"
#include "summary_column.h"
#include "summary_line.h"

namespace quire::bench {
namespace {

double gops(const Shape& s, double seconds) { return 2.0 * s.M * s.N * s.K / seconds / 1e9; }

struct Columns {
  double gops, weight_gbs, pct_bw;
  std::optional<double> pct_peak, x_int8, x_bf16, x_sgemm;
};

Columns columns(const Int4RunInfo& info, const Int4ShapeResult& r) {
  Columns c{};
  c.gops = gops(r.shape, r.int4_s);
  c.weight_gbs = r.weight_bytes / r.int4_s / 1e9;
  c.pct_bw = 100 * c.weight_gbs / r.level_gbs;
  if (info.peak) c.pct_peak = 100 * c.gops / info.peak->gops;
  c.x_int8 = r.int8_s / r.int4_s;
  c.x_bf16 = r.bf16_s / r.int4_s;
  if (r.sgemm_s) c.x_sgemm = *r.sgemm_s / r.int4_s;
  return c;
}

// The int4 result against the product with the 4-bit weights themselves (so only the
// int8 activations are off, by ~1%): further than this means a broken kernel.
constexpr double kMaxRelError = 0.05;

}  // namespace

void print_int4_header(std::FILE* out, const Int4RunInfo& info) {
  std::fprintf(out, "quire-bench --precision int4: W4A8 GEMM, float activations x 4-bit weights\n");
  std::fprintf(out, "cpu: %s; path: %s%s; threads: %d; %s; min time %.2f s per library\n",
               info.cpu.c_str(), info.isa.c_str(), info.isa_forced ? " (forced)" : "", info.threads,
               info.flush ? "caches flushed before every call (weights from DRAM)" : "warm caches",
               info.min_time);
  std::fprintf(out,
               "weights: symmetric 4-bit, groups of %d along K, fp16 scales; int8 path: per-channel "
               "int8, dynamic u8 activations, ReQuantizeForFloat\n",
               kInt4BenchGroup);
  std::fprintf(out,
               "read bandwidth (%d thread(s)): L2 %.1f GB/s, L3 (8 MiB) %.1f GB/s, DRAM (256 MiB) "
               "%.1f GB/s; memcpy (1 thread, read + write) %.1f GB/s; L2 %lld KiB, L3 %lld MiB (from %s)\n",
               info.threads, info.l2_gbs, info.l3_gbs, info.dram_gbs, info.memcpy_gbs,
               static_cast<long long>(info.caches.l2 >> 10), static_cast<long long>(info.caches.l3 >> 20),
               info.caches.source);
  std::fprintf(out,
               "%%bw: w GB/s over rd GB/s, a plain read of the same bytes on the same threads, "
               "timed like the call right before it\n");
  if (info.peak) {
    std::fprintf(out, "peak: %.1f GOPS (%s, %d thread(s))\n", info.peak->gops, info.peak->method.c_str(),
                 info.threads);
  }
  std::fprintf(out, "OpenBLAS: %s\n", info.openblas.empty() ? "not found" : info.openblas.c_str());
}

void print_int4_table_head(std::FILE* out) {
  std::fprintf(out,
               "%5s %6s %6s | %9s %7s %7s %5s %7s %6s %6s | %9s %6s | %9s %6s | %9s %6s | %6s %6s\n",
               "M", "K", "N", "int4 us", "GOPS", "w GB/s", "level", "rd GB/s", "%bw", "%peak", "int8 us",
               "x int8", "bf16 us", "x bf16", "sgemm us", "x sgemm", "err4%", "err8%");
}

void print_int4_row(std::FILE* out, const Int4RunInfo& info, const Int4ShapeResult& r) {
  const Columns c = columns(info, r);
  std::fprintf(out,
               "%5d %6d %6d | %9s %7.1f %7.1f %5s %7.1f %6.1f %6s | %9s %6.2f | %9s %6.2f | %9s %6s | "
               "%6.2f %6.2f\n",
               r.shape.M, r.shape.K, r.shape.N, format_micros(r.int4_s).c_str(), c.gops, c.weight_gbs,
               r.level.c_str(), r.level_gbs, c.pct_bw, format_number(c.pct_peak, 1).c_str(),
               format_micros(r.int8_s).c_str(), *c.x_int8, format_micros(r.bf16_s).c_str(), *c.x_bf16,
               r.sgemm_s ? format_micros(*r.sgemm_s).c_str() : "n/a", format_number(c.x_sgemm, 2).c_str(),
               100 * r.int4_err, 100 * r.int8_err);
  std::fflush(out);
}

void print_int4_csv(std::FILE* out, const Int4RunInfo& info, const std::vector<Int4ShapeResult>& rs) {
  std::fprintf(out,
               "M,K,N,threads,flush,int4_s,int4_gops,weight_bytes,weight_gbs,level,level_gbs,pct_bw,"
               "pct_peak,int8_s,bf16_s,sgemm_s,int4_rel_err,int8_rel_err\n");
  for (const Int4ShapeResult& r : rs) {
    const Columns c = columns(info, r);
    std::fprintf(out, "%d,%d,%d,%d,%d,%.9f,%.3f,%lld,%.3f,%s,%.3f,%.2f,%s,%.9f,%.9f,%s,%.6f,%.6f\n",
                 r.shape.M, r.shape.K, r.shape.N, info.threads, info.flush ? 1 : 0, r.int4_s, c.gops,
                 static_cast<long long>(r.weight_bytes), c.weight_gbs, r.level.c_str(), r.level_gbs,
                 c.pct_bw, format_number(c.pct_peak, 2, "").c_str(), r.int8_s, r.bf16_s,
                 r.sgemm_s ? format_number(*r.sgemm_s, 9).c_str() : "", r.int4_err, r.int8_err);
  }
}

int print_int4_summary(std::FILE* out, const Int4RunInfo& info, const std::vector<Int4ShapeResult>& rs) {
  SummaryColumn<> all_gops, m1_bw, m1_x_int8, big_peak;
  bool failed = false;
  for (const Int4ShapeResult& r : rs) {
    const Columns c = columns(info, r);
    all_gops.add(c.gops);
    if (r.shape.M == 1) {
      m1_bw.add(c.pct_bw);
      m1_x_int8.add(c.x_int8);
    }
    if (r.shape.M >= 64) big_peak.add(c.pct_peak);
    failed = failed || !(r.int4_check_err <= kMaxRelError);
  }
  std::fprintf(out,
               "\nM = 1: %s%% of a plain read of the same bytes, %sx quire's int8 path (geomean); "
               "M >= 64: %s%% of the vpdpbusd peak\n",
               format_number(m1_bw.geomean(), 1).c_str(), format_number(m1_x_int8.geomean(), 2).c_str(),
               format_number(big_peak.geomean(), 1).c_str());
  SummaryLine()
      .add("mode", std::string("int4"))
      .add("isa", info.isa)
      .add("threads", static_cast<long long>(info.threads))
      .add("flush", std::string(info.flush ? "yes" : "no"))
      .add("shapes", static_cast<long long>(rs.size()))
      .add("geomean_gops", all_gops.geomean(), 1)
      .add("m1_pct_bw", m1_bw.geomean(), 1)
      .add("m1_x_int8", m1_x_int8.geomean(), 2)
      .add("m64_pct_peak", big_peak.geomean(), 1)
      .add("checks", std::string(failed ? "FAILED" : "ok"))
      .print(out);
  return failed ? 1 : 0;
}

}  // namespace quire::bench
