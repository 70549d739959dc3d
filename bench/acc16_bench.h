// quire-bench --precision acc16: 16-bit accumulation (PackBMatrix<int8_t, int16_t>)
// against quire's exact 32-bit accumulation on the same path and OpenBLAS sgemm, with
// int32 output. acc16_bench.cpp measures, acc16_report.cpp prints.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "options.h"
#include "peak_probe.h"
#include "report.h"
#include "shapes.h"

namespace quire::bench {

// Runs the bench; `cpu` names the processor for the header. Returns the exit code: 1 when
// a sampled row of acc16 differs from the acc16 model (or acc32 from the exact product).
int run_acc16_bench(const Options& opt, const std::vector<Shape>& shapes, const std::string& cpu);

// B's range in the small-weights data set; A stays full range (0..255).
inline constexpr int kSmallWeightLo = -8;
inline constexpr int kSmallWeightHi = 7;

// Outputs where acc16 differs from the exact product, over the whole M x N.
struct Differing {
  int64_t count = 0;
  int64_t outputs = 0;
  double fraction() const { return outputs ? static_cast<double>(count) / outputs : 0; }
};

struct Acc16ShapeResult {
  Shape shape;
  // int32 output; mismatches: sampled rows against the acc16 model (acc16) or the exact
  // product (acc32), full-range data.
  Measurement acc16, acc32;
  std::optional<Measurement> openblas;
  double pack_b_acc16_s = 0, pack_b_acc32_s = 0;
  int64_t packed_b_acc16_bytes = 0, packed_b_acc32_bytes = 0;
  Differing differs_full;   // the timed data: A 0..255, B -128..127
  Differing differs_small;  // A 0..255, B kSmallWeightLo..kSmallWeightHi (untimed)
  int64_t small_mismatches = 0;  // the same sampled-row checks on the small-weights data
};

struct Acc16RunInfo {
  std::string cpu, isa, shape_set, openblas;
  bool isa_forced = false, flush = false;
  int threads = 1;
  double min_time = 0;
  int rounds = 3;           // alternating acc16 / acc32 timing rounds per shape
  bool saturates = false;   // quire::acc16Saturates() on the path
  int block_depth = 0;      // quire::acc16BlockDepth()
  std::optional<Peak> peak;        // the int8 mode's probe for the path
  std::optional<Peak> acc16_peak;  // acc16's own step, where it saturates (its ceiling):
                                   // "% of peak" divides by it, else by peak
};

// The per-shape numbers every rendering shows; nullopt where a column is absent.
struct Acc16Columns {
  std::optional<double> acc16_gops, pct_peak, acc32_gops, ratio_acc32, openblas_gflops,
      ratio_openblas;
};
Acc16Columns acc16_columns(const Acc16RunInfo& info, const Acc16ShapeResult& r);

// "ok" or "FAIL" with the mismatch counts of each check.
std::string acc16_check_string(const Acc16ShapeResult& r);

void print_acc16_header(std::FILE* out, const Acc16RunInfo& info);
void print_acc16_table_head(std::FILE* out);
void print_acc16_row(std::FILE* out, const Acc16RunInfo& info, const Acc16ShapeResult& r);
// Geomean row, worst shapes, the result of the checks.
void print_acc16_summary(std::FILE* out, const Acc16RunInfo& info,
                         const std::vector<Acc16ShapeResult>& results);
void print_acc16_csv_head(std::FILE* out);
void print_acc16_csv_row(std::FILE* out, const Acc16RunInfo& info, const Acc16ShapeResult& r);
// Throws std::runtime_error if the file cannot be written.
void write_acc16_json(const std::string& path, const Acc16RunInfo& info,
                      const std::vector<Acc16ShapeResult>& results);

}  // namespace quire::bench
