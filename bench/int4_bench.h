// quire-bench --precision int4: the W4A8 GEMM (quire/Int4Gemm.h) on LLM layer shapes,
// next to quire's int8 path (dynamic quantization, float output), its bf16-weight path
// and OpenBLAS sgemm on the same shapes; weight bandwidth against the measured read
// bandwidth of the level the weights sit in, GOPS against the vpdpbusd peak.
// int4_bench.cpp measures, int4_report.cpp prints.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "options.h"
#include "peak_probe.h"
#include "read_bandwidth.h"
#include "shapes.h"

namespace quire::bench {

// K x N of a 7B-class model's layers (4096x4096, 4096x11008, 11008x4096, 4096x32000)
// times M = 1, 4, 16, 64, 256 ("llm"); only M = 1 and 4 ("decode"); 4096x4096 with
// M = 1 and 64 ("quick").
std::vector<Shape> int4_shapes(const std::string& set);

int run_int4_bench(const Options& opt, const std::vector<Shape>& shapes);

// The weights the bench quantizes: symmetric, groups of kInt4BenchGroup, fp16 scales.
inline constexpr int kInt4BenchGroup = 128;

struct Int4RunInfo {
  std::string cpu, isa, openblas;
  bool isa_forced = false, flush = false;
  int threads = 1;
  double min_time = 0;
  CacheSizes caches;
  double l2_gbs = 0, l3_gbs = 0, dram_gbs = 0, memcpy_gbs = 0;
  std::optional<Peak> peak;
};

struct Int4ShapeResult {
  Shape shape;
  int64_t weight_bytes = 0;      // what one int4 call streams (codes + scales)
  std::string level;             // where those bytes are read from: L2, L3 or DRAM
  double level_gbs = 0;          // a plain read of as many bytes, same threads and flush
  double int4_s = 0, int8_s = 0, bf16_s = 0;  // median seconds per call
  std::optional<double> sgemm_s;
  double int4_err = 0, int8_err = 0;  // max |C - C_float| / max |C_float| on row 0
  double int4_check_err = 0;  // the same against the product with the 4-bit weights
};

void print_int4_header(std::FILE* out, const Int4RunInfo& info);
void print_int4_table_head(std::FILE* out);
void print_int4_row(std::FILE* out, const Int4RunInfo& info, const Int4ShapeResult& r);
void print_int4_csv(std::FILE* out, const Int4RunInfo& info, const std::vector<Int4ShapeResult>& rs);
// The summary and the 'quire-bench summary:' line; returns the exit code.
int print_int4_summary(std::FILE* out, const Int4RunInfo& info,
                       const std::vector<Int4ShapeResult>& rs);

}  // namespace quire::bench
