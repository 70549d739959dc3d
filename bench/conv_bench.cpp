#include "conv_bench.h"

#include <cpuinfo.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "conv_case.h"
#include "peak_probe.h"
#include "machine.h"
#include "progress.h"
#include "summary_column.h"
#include "summary_line.h"
#include "thread_pool.h"
#include "timing.h"

namespace quire::bench {
namespace {

struct Run {
  Timing timing;
  double gops = 0;
  int64_t mismatches = 0;
};

struct Row {
  ConvShape shape;
  optimized_conv_t path;
  int64_t m;
  int n, k;
  double bytes;
  Run conv;
  std::optional<Run> plain, unfused, as_gemm;  // comparisons (see conv_bench.h)
  std::optional<Run> symmetric;  // direct kernels with B zero points 0 (no row sums)
};

Run measure(ConvCase& c, void (ConvCase::*call)(), const Options& opt, CacheFlusher* flusher) {
  Run r;
  r.timing = time_calls([&] { (c.*call)(); }, opt.min_time, flusher);
  r.gops = c.ops() / r.timing.median / 1e9;
  r.mismatches = c.check();
  return r;
}

// The summary's geomean (SummaryColumn), 0 for no values.
double geomean(const std::vector<double>& v) {
  SummaryColumn<> c;
  for (double x : v) c.add(x);
  return c.geomean().value_or(0);
}

std::string check_text(const Row& r) {
  int64_t bad = r.conv.mismatches;
  for (const auto& x : {r.plain, r.unfused, r.as_gemm, r.symmetric})
    if (x) bad += x->mismatches;
  return bad == 0 ? "ok" : "FAIL (" + std::to_string(bad) + " bytes)";
}

void print_row(const Row& r, const std::optional<Peak>& peak) {
  const auto pct = [&](double gops) { return peak ? 100 * gops / peak->gops : 0.0; };
  char gemm[48];
  std::snprintf(gemm, sizeof gemm, "%lldx%dx%d", static_cast<long long>(r.m), r.n, r.k);
  std::printf("%-34s %-9s %-15s %9.1f %8.1f %6.1f %7.2f  %s\n", r.shape.name.c_str(),
              optimizedConvName(r.path), gemm, r.conv.timing.median * 1e6, r.conv.gops,
              pct(r.conv.gops), r.bytes / r.conv.timing.median / 1e9, check_text(r).c_str());
  const auto sub = [&](const char* what, const Run& x, const char* ratio_name, double ratio) {
    std::printf("  %-57s %9.1f %8.1f %6.1f          %s %.2f\n", what, x.timing.median * 1e6, x.gops,
                pct(x.gops), ratio_name, ratio);
  };
  if (r.plain)
    sub("plain GEMM, same M N K (im2col matrix prebuilt)", *r.plain, "conv/plain time",
        r.conv.timing.median / r.plain->timing.median);
  if (r.unfused)
    sub("unfused: explicit im2col + plain GEMM", *r.unfused, "fused speedup",
        r.unfused->timing.median / r.conv.timing.median);
  if (r.symmetric)
    sub("symmetric B (zero points 0: no row sums)", *r.symmetric, "GB/s",
        r.bytes / r.symmetric->timing.median / 1e9);
  if (r.as_gemm)
    sub("as fused-im2col GEMM (per group)", *r.as_gemm, "direct speedup",
        r.as_gemm->timing.median / r.conv.timing.median);
}

void write_json(const std::string& path, const std::string& cpu, const Options& opt,
                const std::optional<Peak>& peak, double bandwidth, const std::vector<Row>& rows) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write " + path);
  const auto run = [&](const char* name, const std::optional<Run>& x) {
    if (!x) return;
    f << ", \"" << name << "\": {\"median_s\": " << x->timing.median << ", \"min_s\": "
      << x->timing.min << ", \"max_s\": " << x->timing.max << ", \"gops\": " << x->gops
      << ", \"mismatches\": " << x->mismatches << "}";
  };
  f << "{\"bench\": \"conv\", \"cpu\": \"" << cpu << "\", \"isa\": \""
    << instSetName(fbgemmInstructionSet()) << "\", \"threads\": " << opt.threads
    << ", \"activation_max\": " << opt.activation_max << ", \"peak_gops\": " << (peak ? peak->gops : 0) << ", \"copy_bandwidth_gbs\": " << bandwidth
    << ", \"shapes\": [";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    f << (i ? ", " : "") << "{\"name\": \"" << r.shape.name << "\", \"conv_param\": \""
      << r.shape.p.toString() << "\", \"path\": \"" << optimizedConvName(r.path)
      << "\", \"M\": " << r.m << ", \"N\": " << r.n << ", \"K\": " << r.k
      << ", \"bytes\": " << r.bytes;
    run("conv", r.conv);
    run("plain_gemm", r.plain);
    run("unfused", r.unfused);
    run("as_fused_im2col_gemm", r.as_gemm);
    run("symmetric_b", r.symmetric);
    f << "}";
  }
  f << "]}\n";
}

// The stride-2 depthwise layers have their own geomean, so that the stride-1 one stays
// comparable with runs from before they joined the set.
bool stride2(const Row& r) {
  return r.path == optimized_conv_t::depthwise && r.shape.p.stride[0] == 2;
}

// Geomeans over each kind of shape, next to the figures the convolution issue quotes
// for FBGEMM (measured on a machine with about twice this one's vpdpbusd peak).
void print_summary(const std::vector<Row>& rows, double bandwidth) {
  std::vector<double> fused, plain, fused_ratio, dw, dw_sym, dw_gbs, gw, gw_sym, gw_gemm;
  std::vector<double> dw2, dw2_sym;
  std::printf("\nsummary (geomeans)\n");
  for (const Row& r : rows) {
    switch (r.path) {
      case optimized_conv_t::depthwise:
        if (stride2(r)) {
          dw2.push_back(r.conv.gops);
          if (r.symmetric) dw2_sym.push_back(r.symmetric->gops);
          break;
        }
        dw.push_back(r.conv.gops);
        dw_gbs.push_back(r.bytes / r.conv.timing.median / 1e9);
        if (r.symmetric) dw_sym.push_back(r.symmetric->gops);
        break;
      case optimized_conv_t::groupwise:
        gw.push_back(r.conv.gops);
        if (r.symmetric) gw_sym.push_back(r.symmetric->gops);
        if (r.as_gemm) gw_gemm.push_back(r.as_gemm->gops);
        break;
      default:
        if (r.plain) {
          fused.push_back(r.conv.gops);
          plain.push_back(r.plain->gops);
          fused_ratio.push_back(r.conv.timing.median / r.plain->timing.median);
        }
        break;
    }
  }
  if (!fused.empty())
    std::printf("  fused im2col      %7.1f GOPS; plain GEMM %.1f GOPS; conv/plain time %.3f "
                "(target <= 1.05)\n",
                geomean(fused), geomean(plain), geomean(fused_ratio));
  if (!dw.empty())
    std::printf("  depthwise         %7.1f GOPS, symmetric B %.1f (FBGEMM: ~40 on Zen 4 avx512_vnni, "
                "~17 on Zen 3 avx2); %.1f "
                "GB/s = %.0f%% of the %.1f GB/s memcpy bandwidth\n",
                geomean(dw), geomean(dw_sym), geomean(dw_gbs), 100 * geomean(dw_gbs) / bandwidth,
                bandwidth);
  if (!dw2.empty())
    std::printf("  depthwise stride 2 %6.1f GOPS, symmetric B %.1f\n", geomean(dw2),
                geomean(dw2_sym));
  if (!gw.empty())
    std::printf("  groupwise         %7.1f GOPS, symmetric B %.1f (FBGEMM direct: ~66 on Zen 4 "
                "avx512_vnni, ~40 on Zen 3 avx2); as GEMM %.1f GOPS (FBGEMM 3..13)\n",
                geomean(gw), geomean(gw_sym), geomean(gw_gemm));
}

void print_summary_line(const std::vector<Row>& rows, const Options& opt, int failed) {
  auto class_geomean = [&](bool (*in_class)(const Row&)) -> std::optional<double> {
    std::vector<double> gops;
    for (const Row& r : rows)
      if (in_class(r)) gops.push_back(r.conv.gops);
    if (gops.empty()) return std::nullopt;
    return geomean(gops);
  };
  SummaryLine()
      .add("mode", std::string("conv"))
      .add("isa", std::string(instSetName(fbgemmInstructionSet())))
      .add("threads", static_cast<long long>(opt.threads))
      .add("activations", std::string(opt.activation_max == 255 ? "8bit" : "7bit"))
      .add("shapes", static_cast<long long>(rows.size()))
      .add("dense_gops", class_geomean([](const Row& r) {
             return r.path == optimized_conv_t::im2col || r.path == optimized_conv_t::pointwise;
           }), 1)
      .add("depthwise_gops", class_geomean([](const Row& r) {
             return r.path == optimized_conv_t::depthwise && !stride2(r);
           }), 1)
      .add("depthwise_s2_gops", class_geomean(stride2), 1)
      .add("groupwise_gops",
           class_geomean([](const Row& r) { return r.path == optimized_conv_t::groupwise; }), 1)
      .add("checks", std::string(failed ? "FAILED" : "exact"))
      .print(stdout);
}

}  // namespace

int run_conv_bench(const Options& opt) {
  const std::string cpu = cpu_name();
  const std::optional<Peak> peak = measure_peak(fbgemmInstructionSet(), opt.threads);
  const double bandwidth = copy_bandwidth_gbs();
  std::printf("CPU       %s\n", cpu.c_str());
  std::printf("path      %s%s, %d thread(s)\n", instSetName(fbgemmInstructionSet()),
              opt.isa ? " (forced by --isa)" : "", opt.threads);
  if (peak)
    std::printf("peak      %.1f GOPS (%s)\n", peak->gops, peak->method.c_str());
  std::printf("memory    %.1f GB/s (memcpy of 256 MiB, bytes read + written)\n", bandwidth);
  std::printf("call      fbgemmConv to uint8: ReQuantizeOutput, per-channel B zero points, bias; "
              "weights packed once\n");
  std::printf("data      %s\n", opt.activation_max == 255
                                     ? "A in 0..255 (zero point 128), B in -128..127"
                                     : "A in 0..127 (reduce_range, zero point 64), B in -128..127");
  std::printf("timing    median per call, >= %.3g s per shape and variant, %s\n", opt.min_time,
              opt.flush ? "caches flushed before each call" : "warm caches");
  std::printf("GB/s      (activations + output + weights) / time\n\n");
  std::printf("%-34s %-9s %-15s %9s %8s %6s %7s  %s\n", "shape", "path", "GEMM MxNxK", "us",
              "GOPS", "%peak", "GB/s", "check");

  ThreadPool pool(opt.threads);
  std::optional<CacheFlusher> flusher;
  if (opt.flush) flusher.emplace();
  CacheFlusher* flush = flusher ? &*flusher : nullptr;
  Progress progress;
  std::vector<Row> rows;
  const std::vector<ConvShape> shapes = conv_shapes();
  for (size_t i = 0; i < shapes.size(); ++i) {
    const int index = static_cast<int>(i) + 1, total = static_cast<int>(shapes.size());
    progress.update(index, total, shapes[i].name, "data");
    ConvCase c(shapes[i], pool, opt.activation_max);
    Row r{shapes[i], c.path(), c.gemm_m(), c.gemm_n(), c.gemm_k(), c.bytes(), {}, {}, {}, {}, {}};
    progress.update(index, total, shapes[i].name, "fbgemmConv");
    r.conv = measure(c, &ConvCase::run_conv, opt, flush);
    if (r.path == optimized_conv_t::im2col || r.path == optimized_conv_t::pointwise) {
      progress.update(index, total, shapes[i].name, "plain GEMM");
      r.plain = measure(c, &ConvCase::run_plain_gemm, opt, flush);
      progress.update(index, total, shapes[i].name, "unfused");
      r.unfused = measure(c, &ConvCase::run_unfused, opt, flush);
    } else {
      progress.update(index, total, shapes[i].name, "symmetric B");
      c.set_symmetric_weights(true);
      r.symmetric = measure(c, &ConvCase::run_conv, opt, flush);
      c.set_symmetric_weights(false);
      progress.update(index, total, shapes[i].name, "as GEMM");
      r.as_gemm = measure(c, &ConvCase::run_im2col_gemm, opt, flush);
    }
    progress.clear();
    print_row(r, peak);
    rows.push_back(std::move(r));
  }
  print_summary(rows, bandwidth);
  if (!opt.json_path.empty()) write_json(opt.json_path, cpu, opt, peak, bandwidth, rows);
  int failed = 0;
  for (const Row& r : rows) failed += check_text(r) != "ok";
  print_summary_line(rows, opt, failed);
  return failed ? 1 : 0;
}

}  // namespace quire::bench
