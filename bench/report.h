// What quire-bench measured, and its three renderings: the table (streamed one row per
// shape, then the summary), CSV and JSON.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "options.h"
#include "peak_probe.h"
#include "shapes.h"
#include "timing.h"

namespace quire::bench {

struct Measurement {
  Timing timing;             // seconds per call
  double gops = 0;           // 2 * M * N * K / median, in 1e9 per second
  int64_t mismatches = -1;   // in the sampled rows; -1 when not comparable (fp32)
};

struct ShapeResult {
  Shape shape;
  Measurement quire;                       // output as --output asks
  std::optional<Measurement> quire_int32;  // u8 runs also time int32 output
  double pack_b_seconds = 0;
  int64_t packed_b_bytes = 0;
  double b_read_gbs = 0;  // M <= 4: a plain read of packed_b_bytes timed like the call
  std::optional<Measurement> onednn;
  std::string onednn_detail;
  int64_t onednn_weights_bytes = 0;
  std::optional<Measurement> openblas;
  // quire's main measurement: the shares of A block x column slice steps that ran the
  // pair-safe kernels (the saturation certificate) and the pair-safe kernels plus the
  // unsafe pairs' correction (the rest ran the exact split); nullopt on paths that do not
  // choose.
  std::optional<double> pair_safe_share, corrected_share;
  // The correction's density: the share of B's K pairs (per column) that can saturate
  // vpmaddubsw for some A, whether or not a panel ran corrected.
  double unsafe_pair_share = 0;
};

struct RunInfo {
  std::string cpu;
  std::string isa;
  bool isa_forced = false;
  int threads = 1;
  std::optional<Peak> peak;
  double copy_bandwidth_gbs = 0;  // memcpy of 256 MiB: the roofline's memory line
  OutputKind output = OutputKind::u8;
  double min_time = 0;
  bool flush = false;
  std::string shape_set;
  WeightKind weights = WeightKind::trained;
  int activation_max = 255;
  std::string onednn;    // description; empty when not built in
  std::string openblas;  // likewise
};

// quire's int32-output GOPS: the main measurement in an int32 run, else the extra one.
const Measurement* int32_measurement(const ShapeResult& r);
// quire / oneDNN on the same int32 work, and quire / OpenBLAS fp32; nullopt when absent.
std::optional<double> ratio_onednn(const ShapeResult& r);
std::optional<double> ratio_openblas(const ShapeResult& r);
std::optional<double> percent_of_peak(const RunInfo& info, const ShapeResult& r);

// The headline numbers of a run: geomeans over the shapes that have a column, and the
// worst shape of each comparison (a geomean can hide one bad shape).
struct Summary {
  struct Worst {
    double value;
    Shape shape;
  };
  std::optional<double> quire_gops, quire_int32_gops, pct_peak, onednn_gops, openblas_gflops;
  std::optional<double> ratio_onednn, ratio_openblas;
  std::optional<Worst> worst_pct_peak, worst_ratio_onednn, worst_ratio_openblas;
  std::optional<double> pair_safe_share, corrected_share;  // means over the shapes that have one
  int failed_checks = 0;   // shapes where quire's result mismatches
  int baseline_wrong = 0;  // shapes where a baseline's exact result mismatches (oneDNN
                           // saturates on AVX2): the baseline's property, not a failure
};
const char* weights_name(WeightKind w);
Summary summarize(const RunInfo& info, const std::vector<ShapeResult>& results);

// quire's check: "ok", "-" (nothing exact to check) or "FAIL" and the mismatch counts;
// then, labelled apart, a baseline's wrong results ("ok (oneDNN wrong:N)").
std::string check_string(const ShapeResult& r);
bool quire_failed(const ShapeResult& r);
bool baseline_wrong(const ShapeResult& r);

// The run's header lines (CPU, path, peak, baselines).
void print_header(std::FILE* out, const RunInfo& info);

class TablePrinter {
 public:
  TablePrinter(std::FILE* out, const RunInfo& info);
  void row(const ShapeResult& r);
  // Geomean row, worst shapes, what oneDNN picked, failed checks.
  void summary(const std::vector<ShapeResult>& results);

 private:
  std::FILE* out_;
  const RunInfo& info_;
};

class CsvPrinter {
 public:
  CsvPrinter(std::FILE* out, const RunInfo& info);
  void row(const ShapeResult& r);

 private:
  std::FILE* out_;
  const RunInfo& info_;
};

// One measurement as a JSON object under `key`: median_s, min_s, max_s, calls, gops,
// mismatches (report_json.cpp).
class JsonWriter;
void write_measurement(JsonWriter& json, const char* key, const Measurement& m);

// Writes every number of the run; throws std::runtime_error if the file cannot be written.
void write_json(const std::string& path, const RunInfo& info,
                const std::vector<ShapeResult>& results);

}  // namespace quire::bench
