// quire-bench --precision fp16|bf16|fp32: the packed-weight GEMM (quire/FbgemmFP16.h,
// FbgemmBF16.h, FbgemmFP32.h) next to OpenBLAS sgemm on the same shapes, and against the
// fp32 peaks; bf16 and fp32 runs also time the fp16 path on each shape.
// half_bench.cpp measures, half_report.cpp prints.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "half_peak_probe.h"
#include "options.h"
#include "shapes.h"
#include "timing.h"

namespace quire::bench {

// m = 1, 2, 4, 8, 16, 32, 64, 96, 119 with n = k = 512 (FBGEMM's fp16 bench range).
std::vector<Shape> half_shapes();

// Runs the bench for opt.precision ("fp16", "bf16" or "fp32"); returns the exit code: 1 when a
// result falls outside its error bound.
int run_half_bench(const Options& opt, const std::vector<Shape>& shapes);

struct HalfRun {
  Timing timing;
  double gflops = 0;  // 2 * M * N * K / median
};

struct HalfShapeResult {
  Shape shape;
  double pack_ms = 0;         // packing B once
  int64_t packed_bytes = 0;
  HalfRun quire;              // fp32 A x the precision's weights
  std::optional<HalfRun> bf16_act;  // bf16 runs: bf16 A x bf16 weights
  std::optional<HalfRun> fp16;      // bf16, fp32 runs: the fp16 path on the same shape
  std::optional<HalfRun> openblas;  // sgemm fp32
  double worst_error = 0;     // max |C - C_ref| / bound over the checked rows (<= 1: ok)
};

struct HalfRunInfo {
  std::string cpu, isa, precision, kernels, openblas;
  bool isa_forced = false, flush = false;
  int threads = 1;
  double min_time = 0;
  std::optional<FlopsPeak> fma_peak, dpbf16_peak;
  // The peak "% of peak" divides by (per thread): vdpbf16ps for the bf16 kernels that
  // use it, else fp32 FMA.
  std::optional<FlopsPeak> path_peak() const;
};

void print_half_header(std::FILE* out, const HalfRunInfo& info);
void print_half_table_head(std::FILE* out, const HalfRunInfo& info);
void print_half_row(std::FILE* out, const HalfRunInfo& info, const HalfShapeResult& r);
void print_half_summary(std::FILE* out, const HalfRunInfo& info,
                        const std::vector<HalfShapeResult>& results);
void print_half_csv(std::FILE* out, const HalfRunInfo& info,
                    const std::vector<HalfShapeResult>& results);
void write_half_json(const std::string& path, const HalfRunInfo& info,
                     const std::vector<HalfShapeResult>& results);

}  // namespace quire::bench
