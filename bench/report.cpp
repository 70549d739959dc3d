#include "report.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "format.h"
#include "summary_column.h"

namespace quire::bench {
namespace {

std::string num(std::optional<double> v, int decimals) { return format_number(v, decimals, "n/a"); }
std::string micros(double seconds) { return format_micros(seconds); }



std::optional<double> gops_of(const std::optional<Measurement>& m) {
  return m ? std::optional<double>(m->gops) : std::nullopt;
}

// The pair-safe share in percent, "-" where the path does not choose.
std::string pair_safe_percent(std::optional<double> share) {
  return share ? format_number(100 * *share, 0, "-") : "-";
}

// The kernel forms as pair-safe / corrected / exact percentages, e.g. "12/88/0".
std::string forms_percent(std::optional<double> pair_safe, std::optional<double> corrected) {
  if (!pair_safe || !corrected) return "-";
  const double exact = std::max(0.0, 1 - *pair_safe - *corrected);
  return pair_safe_percent(pair_safe) + "/" + pair_safe_percent(corrected) + "/" +
         pair_safe_percent(exact);
}

const char* quire_label(OutputKind k) { return k == OutputKind::u8 ? "u8" : "int32"; }

}  // namespace

const Measurement* int32_measurement(const ShapeResult& r) {
  return r.quire_int32 ? &*r.quire_int32 : &r.quire;
}

std::optional<double> ratio_onednn(const ShapeResult& r) {
  if (!r.onednn) return std::nullopt;
  return int32_measurement(r)->gops / r.onednn->gops;
}

std::optional<double> ratio_openblas(const ShapeResult& r) {
  if (!r.openblas) return std::nullopt;
  return r.quire.gops / r.openblas->gops;
}

std::optional<double> percent_of_peak(const RunInfo& info, const ShapeResult& r) {
  if (!info.peak) return std::nullopt;
  return 100 * r.quire.gops / info.peak->gops;
}

const char* weights_name(WeightKind w) {
  return w == WeightKind::trained ? "trained" : w == WeightKind::full ? "full" : "typical";
}

bool quire_failed(const ShapeResult& r) {
  return r.quire.mismatches > 0 || (r.quire_int32 && r.quire_int32->mismatches > 0);
}

bool baseline_wrong(const ShapeResult& r) { return r.onednn && r.onednn->mismatches > 0; }

std::string check_string(const ShapeResult& r) {
  std::string failed;
  bool checked = false;
  auto add = [&](const char* name, const std::optional<Measurement>& m) {
    if (!m || m->mismatches < 0) return;
    checked = true;
    if (m->mismatches > 0) failed += std::string(" ") + name + ":" + std::to_string(m->mismatches);
  };
  add("quire", r.quire);
  add("quire-int32", r.quire_int32);
  const std::string own = !failed.empty() ? "FAIL" + failed : checked ? "ok" : "-";
  if (!baseline_wrong(r)) return own;
  return own + " (oneDNN wrong:" + std::to_string(r.onednn->mismatches) + ")";
}

Summary summarize(const RunInfo& info, const std::vector<ShapeResult>& results) {
  Summary s;
  // A column's geomean over the shapes that have it, and its smallest value.
  auto column = [&](auto get, std::optional<double>& mean,
                    std::optional<Summary::Worst>* worst = nullptr) {
    SummaryColumn<Shape> c;
    for (const ShapeResult& r : results) c.add(get(r), r.shape);
    mean = c.geomean();
    if (worst && c.worst()) *worst = Summary::Worst{c.worst()->first, c.worst()->second};
  };
  column([](const ShapeResult& r) { return std::optional<double>(r.quire.gops); },
         s.quire_gops);
  column([](const ShapeResult& r) { return gops_of(r.quire_int32); }, s.quire_int32_gops);
  column([&](const ShapeResult& r) { return percent_of_peak(info, r); }, s.pct_peak,
         &s.worst_pct_peak);
  column([](const ShapeResult& r) { return gops_of(r.onednn); }, s.onednn_gops);
  column([](const ShapeResult& r) { return gops_of(r.openblas); }, s.openblas_gflops);
  column(ratio_onednn, s.ratio_onednn, &s.worst_ratio_onednn);
  column(ratio_openblas, s.ratio_openblas, &s.worst_ratio_openblas);
  double share_sum = 0, corrected_sum = 0;
  int shares = 0;
  for (const ShapeResult& r : results) {
    s.failed_checks += quire_failed(r);
    s.baseline_wrong += baseline_wrong(r);
    if (r.pair_safe_share) share_sum += *r.pair_safe_share, corrected_sum += r.corrected_share.value_or(0), ++shares;
  }
  s.pair_safe_share = shares > 0 ? std::optional<double>(share_sum / shares) : std::nullopt;
  s.corrected_share = shares > 0 ? std::optional<double>(corrected_sum / shares) : std::nullopt;
  return s;
}

void print_header(std::FILE* out, const RunInfo& info) {
  std::fprintf(out, "CPU       %s\n", info.cpu.c_str());
  std::fprintf(out, "path      %s%s, %d thread(s)\n", info.isa.c_str(),
               info.isa_forced ? " (forced by --isa)" : "", info.threads);
  if (info.peak) {
    std::fprintf(out, "peak      %.1f GOPS = %d x %.1f (%s, best of 5 x 20 ms)\n",
                 info.peak->gops, info.threads, info.peak->gops_per_thread,
                 info.peak->method.c_str());
    if (info.peak->saturating) {
      std::fprintf(out,
                   "          that is the rate of the saturating int16 instructions; this "
                   "path is exact, so %% of peak shows what exactness costs\n");
    }
  } else {
    std::fprintf(out, "peak      n/a (portable C++ path)\n");
  }
  std::fprintf(out, "memory    %.1f GB/s (memcpy of 256 MiB, bytes read + written)\n",
               info.copy_bandwidth_gbs);
  std::fprintf(out, "call      pack A with row offsets + fbgemmPacked + %s; B packed once\n",
               info.output == OutputKind::u8
                   ? "ReQuantizeOutput to u8 (per-channel, bias); i32 = memCopy output"
                   : "memCopy (int32 output)");
  std::fprintf(out, "data      A in 0..%d (%s), B %s; every shape checked for exactness\n",
               info.activation_max, info.activation_max == 255 ? "8-bit" : "7-bit, reduce_range",
               info.weights == WeightKind::trained
                   ? "trained (per output channel: normal-like, scaled to max |w| = 127)"
               : info.weights == WeightKind::full ? "full range (-128..127)"
                                                  : "typical (-64..64)");
  std::fprintf(out, "timing    median per call, >= %.3g s per shape and library, %s\n",
               info.min_time, info.flush ? "caches flushed before each call" : "warm caches");
  std::fprintf(out, "oneDNN    %s\n", info.onednn.empty() ? "n/a (not found at configure time)"
                                                         : info.onednn.c_str());
  std::fprintf(out, "OpenBLAS  %s\n", info.openblas.empty() ? "n/a (not found at configure time)"
                                                           : info.openblas.c_str());
}

TablePrinter::TablePrinter(std::FILE* out, const RunInfo& info) : out_(out), info_(info) {
  const bool u8 = info.output == OutputKind::u8;
  std::fprintf(out_, "\n%-14s %9s %9s %9s %8s %6s %8s | %9s %8s | %11s %8s | %9s %9s %11s %6s  %s\n",
               "M x N x K", "med us", "min us", "max us", u8 ? "u8 GOPS" : "i32 GOPS",
               "%peak", u8 ? "i32 GOPS" : "", "dnnl GOPS", "i32/dnnl", "blas GFLOPS",
               u8 ? "u8/blas" : "i32/blas", "packB us", "packB KiB", "ps/co/ex %", "uns %", "check");
}

void TablePrinter::row(const ShapeResult& r) {
  const Timing& t = r.quire.timing;
  std::fprintf(out_, "%-14s %9s %9s %9s %8s %6s %8s | %9s %8s | %11s %8s | %9s %9s %11s %6s  %s\n",
               to_string(r.shape).c_str(), micros(t.median).c_str(), micros(t.min).c_str(),
               micros(t.max).c_str(), num(r.quire.gops, 1).c_str(),
               num(percent_of_peak(info_, r), 1).c_str(),
               r.quire_int32 ? num(r.quire_int32->gops, 1).c_str() : "",
               num(gops_of(r.onednn), 1).c_str(), num(ratio_onednn(r), 2).c_str(),
               num(gops_of(r.openblas), 1).c_str(), num(ratio_openblas(r), 2).c_str(),
               micros(r.pack_b_seconds).c_str(),
               num(static_cast<double>(r.packed_b_bytes) / 1024, 0).c_str(),
               forms_percent(r.pair_safe_share, r.corrected_share).c_str(),
               format_number(100 * r.unsafe_pair_share, 1, "-").c_str(), check_string(r).c_str());
  std::fflush(out_);
}

void TablePrinter::summary(const std::vector<ShapeResult>& results) {
  if (results.empty()) return;
  const bool u8 = info_.output == OutputKind::u8;
  const Summary s = summarize(info_, results);
  std::fprintf(out_, "%-14s %9s %9s %9s %8s %6s %8s | %9s %8s | %11s %8s |\n", "geomean", "",
               "", "", num(s.quire_gops, 1).c_str(), num(s.pct_peak, 1).c_str(),
               u8 ? num(s.quire_int32_gops, 1).c_str() : "", num(s.onednn_gops, 1).c_str(),
               num(s.ratio_onednn, 2).c_str(), num(s.openblas_gflops, 1).c_str(),
               num(s.ratio_openblas, 2).c_str());

  std::fprintf(out_, "\n");
  auto worst = [&](const char* what, const std::optional<Summary::Worst>& w, int decimals) {
    if (w) {
      std::fprintf(out_, "worst %-13s %s at %s\n", what, num(w->value, decimals).c_str(),
                   to_string(w->shape).c_str());
    }
  };
  worst("% of peak", s.worst_pct_peak, 1);
  worst("i32/oneDNN", s.worst_ratio_onednn, 2);
  worst(u8 ? "u8/OpenBLAS" : "i32/OpenBLAS", s.worst_ratio_openblas, 2);

  std::map<std::string, int> onednn_choices;
  for (const ShapeResult& r : results) {
    if (r.onednn) ++onednn_choices[r.onednn_detail];
  }
  for (const auto& [detail, count] : onednn_choices) {
    std::fprintf(out_, "oneDNN picked %s on %d shape(s)\n", detail.c_str(), count);
  }

  if (s.pair_safe_share) {
    std::fprintf(out_, "kernel form: %s%% of A block x column slice steps pair-safe, %s%% "
                 "pair-safe + correction (mean over shapes; ps/co/ex %% column), the rest the "
                 "exact split\n",
                 pair_safe_percent(s.pair_safe_share).c_str(),
                 pair_safe_percent(s.corrected_share).c_str());
  }
  if (s.failed_checks) {
    std::fprintf(out_, "RESULT CHECK FAILED on %d shape(s): see the check column\n",
                 s.failed_checks);
  } else {
    std::fprintf(out_, "quire's results checked on sampled rows: exact\n");
  }
  if (s.baseline_wrong) {
    std::fprintf(out_,
                 "oneDNN's results wrong on %d shape(s) (its u8 x s8 kernels saturate int16 "
                 "without VNNI): a property of the baseline, not a failure of this run\n",
                 s.baseline_wrong);
  }
}

CsvPrinter::CsvPrinter(std::FILE* out, const RunInfo& info) : out_(out), info_(info) {
  std::fprintf(out_,
               "M,N,K,isa,threads,output,median_s,min_s,max_s,calls,gops,pct_peak,"
               "int32_median_s,int32_gops,onednn_median_s,onednn_gops,ratio_int32_onednn,"
               "openblas_median_s,openblas_gflops,ratio_openblas,pack_b_s,packed_b_bytes,"
               "onednn_weights_bytes,check,pair_safe_share,corrected_share,unsafe_pair_share\n");
}

void CsvPrinter::row(const ShapeResult& r) {
  // Empty fields where the table says n/a.
  auto field = [](std::optional<double> v) {
    if (!v) return std::string();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", *v);
    return std::string(buf);
  };
  auto median = [](const std::optional<Measurement>& m) {
    return m ? std::optional<double>(m->timing.median) : std::nullopt;
  };
  const Timing& t = r.quire.timing;
  std::fprintf(out_, "%d,%d,%d,%s,%d,%s,%s,%s,%s,%lld,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%lld,%lld,%s,%s,%s,%s\n",
               r.shape.M, r.shape.N, r.shape.K, info_.isa.c_str(), info_.threads,
               quire_label(info_.output), field(t.median).c_str(), field(t.min).c_str(),
               field(t.max).c_str(), static_cast<long long>(t.calls),
               field(r.quire.gops).c_str(), field(percent_of_peak(info_, r)).c_str(),
               field(median(r.quire_int32)).c_str(), field(gops_of(r.quire_int32)).c_str(),
               field(median(r.onednn)).c_str(), field(gops_of(r.onednn)).c_str(),
               field(ratio_onednn(r)).c_str(), field(median(r.openblas)).c_str(),
               field(gops_of(r.openblas)).c_str(), field(ratio_openblas(r)).c_str(),
               field(r.pack_b_seconds).c_str(), static_cast<long long>(r.packed_b_bytes),
               static_cast<long long>(r.onednn_weights_bytes), check_string(r).c_str(),
               field(r.pair_safe_share).c_str(), field(r.corrected_share).c_str(),
               field(r.unsafe_pair_share).c_str());
  std::fflush(out_);
}

}  // namespace quire::bench
