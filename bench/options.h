// quire-bench's command line.
#pragma once

#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "quire/Types.h"
#include "shapes.h"
#include "weight_kind.h"

namespace quire::bench {

enum class OutputKind { u8, int32 };

struct Options {
  std::string shape_set = "inference";  // inference | square | conv | all | half | llm | decode | quick
  std::string precision = "int8";       // int8 | acc16 (acc16_bench.h) | fp16 | bf16 | fp32 (half_bench.h) | int4 (int4_bench.h)
  std::vector<Shape> shapes;            // from --shape; replaces the set when non-empty
  int threads = 1;
  bool threads_given = false;  // embedding: only this thread count (else 1 and 2)
  // embedding only: the tables (big, L3, 2000), row formats (fp32, fp16, int8, int4,
  // int2) and dimensions to run; empty: all.
  std::vector<std::string> tables, formats;
  std::vector<int> dims;
  std::optional<inst_set_t> isa;  // --isa: forced path; otherwise the library's choice
  std::string json_path;
  bool csv = false;
  bool flush = false;
  OutputKind output = OutputKind::u8;
  WeightKind weights = WeightKind::trained;
  int activation_max = 255;  // --activations 8bit (default) | 7bit (127: PyTorch's reduce_range)
  double min_time = 0.2;  // seconds of timed calls per shape and library
};

// A malformed command line; main prints the message and the usage, exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Parses the command line. Returns nullopt when --help was asked (usage printed).
std::optional<Options> parse_options(int argc, char** argv);

void print_usage(std::FILE* out, const char* argv0);

}  // namespace quire::bench
