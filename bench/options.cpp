#include "options.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "../src/cpu/isa_traits.h"
#include "quire/Utils.h"

namespace quire::bench {
namespace {

template <class T>
T parse_number(const std::string& flag, std::string_view text) {
  T value{};
  const auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (err != std::errc() || end != text.data() + text.size()) {
    throw UsageError(flag + ": not a number: '" + std::string(text) + "'");
  }
  return value;
}

// A comma-separated list, each item one of `allowed` (empty: any).
std::vector<std::string> parse_list(const std::string& flag, const std::string& text,
                                    const std::vector<std::string>& allowed) {
  std::vector<std::string> items;
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    std::string item = text.substr(pos, comma - pos);
    bool ok = !item.empty();
    if (ok && !allowed.empty()) {
      ok = false;
      for (const std::string& a : allowed) ok = ok || a == item;
    }
    if (!ok) throw UsageError(flag + ": unknown item '" + item + "' in '" + text + "'");
    items.push_back(std::move(item));
    pos = comma + 1;
  }
  return items;
}

Shape parse_shape(const std::string& text) {
  int dims[3];
  size_t pos = 0;
  for (int d = 0; d < 3; ++d) {
    const size_t comma = d < 2 ? text.find(',', pos) : text.size();
    if (comma == std::string::npos) throw UsageError("--shape wants M,N,K, got '" + text + "'");
    dims[d] = parse_number<int>("--shape", std::string_view(text).substr(pos, comma - pos));
    if (dims[d] <= 0) throw UsageError("--shape: sizes must be positive, got '" + text + "'");
    pos = comma + 1;
  }
  return {dims[0], dims[1], dims[2]};
}

// The names --isa takes: every path of src/cpu/isa_traits.h and the aliases of one.
std::vector<inst_set_t> isa_names() {
  std::vector<inst_set_t> isas;
  for (const detail::IsaTraits& t : detail::kIsaTraits) isas.push_back(t.inst_set);
  for (const detail::InstSetAlias& a : detail::kInstSetAliases)
    if (a.has_path) isas.push_back(a.inst_set);
  return isas;
}

std::string isa_list(const char* separator) {
  std::string list;
  for (inst_set_t isa : isa_names()) list += (list.empty() ? "" : separator) + std::string(instSetName(isa));
  return list;
}

inst_set_t parse_isa(const std::string& name) {
  for (inst_set_t isa : isa_names())
    if (name == instSetName(isa)) return isa;
  throw UsageError("--isa: unknown instruction set '" + name + "' (" + isa_list(", ") + ")");
}

}  // namespace

void print_usage(std::FILE* out, const char* argv0) {
  std::fprintf(
      out,
      "usage: %s [options]\n"
      "  --shapes SET       inference (default) | square | conv | all (inference + square)\n"
      "                     | half (M = 1..119, N = K = 512; the default for fp16, bf16, fp32)\n"
      "                     | llm (int4's default: 7B-class layers, M = 1, 4, 16, 64, 256)\n"
      "                     | decode (llm with M = 1, 4) | quick (4096x4096, M = 1, 64)\n"
      "                     conv: the convolution bench (fbgemmConv on ResNet-50, MobileNet-v2\n"
      "                     and ResNeXt layers, against plain and unfused GEMMs)\n"
      "  --precision P      int8 (default) | acc16: 16-bit accumulation against quire's\n"
      "                     exact int8 on the same path, int32 output | fp16 | bf16 | fp32:\n"
      "                     fp32 activations x fp16 / bf16 / fp32 packed weights\n"
      "                     (cblas_gemm_compute; bf16 and fp32 next to fp16) against\n"
      "                     OpenBLAS sgemm | int4: fp32 activations x 4-bit\n"
      "                     weights (int4Gemm) against quire's int8 and bf16 paths and sgemm\n"
      "                     | embedding: embedding bags (FBGEMM's configurations) against a\n"
      "                     plain gather of the same rows\n"
      "  --shape M,N,K      run this shape instead of a set (repeatable)\n"
      "  --threads T        threads per call (default 1), for quire and the baselines;\n"
      "                     embedding: only T (1 or 2; default both)\n"
      "  --tables LIST      embedding only: big,L3,2000 (default all)\n"
      "  --formats LIST     embedding only: fp32,fp16,int8,int4,int2 (default all)\n"
      "  --dims LIST        embedding only: row dimensions (default 32,64,128,256,512,1024)\n"
      "  --isa NAME         force quire's path: %s\n"
      "                     (exit 2 if the CPU lacks it)\n"
      "  --weights KIND     int8 only: trained (default: per output channel, normal-like\n"
      "                     weights scaled so that max |w| = 127) | full (B in -128..127)\n"
      "                     | typical (B in -64..64, pair-safe on the avx2 / avx512 paths)\n"
      "  --activations A    int8 and conv: 8bit (default: A in 0..255) | 7bit (A in 0..127,\n"
      "                     reduce_range: certified pair-safe for any weights)\n"
      "  --output KIND      int8 only: u8 (default: requantized, per-channel) | int32 (raw);\n"
      "                     acc16 always measures int32\n"
      "  --min-time S       seconds of timed calls per shape and library (default 0.2);\n"
      "                     with --flush the flushes count too\n"
      "  --flush            evict the caches (64 MiB written) before every timed call\n"
      "  --csv              CSV on stdout instead of the table (header info on stderr)\n"
      "  --json FILE        also write every number to FILE (plots: bench/plot_bench.py)\n"
      "  --help\n"
      "\n"
      "modes, with an example each:\n"
      "  int8 GEMM, inference shapes, u8 output     quire-bench\n"
      "  int8 GEMM, raw int32 (against oneDNN)      quire-bench --output int32\n"
      "  square shapes, 2 threads                   quire-bench --shapes square --threads 2\n"
      "  one shape, caches flushed                  quire-bench --shape 1,4096,1024 --flush\n"
      "  a path forced                              quire-bench --isa avx2\n"
      "  convolution layers                         quire-bench --shapes conv\n"
      "  acc16 against exact int8                   quire-bench --precision acc16\n"
      "  fp16 / bf16 weights against sgemm          quire-bench --precision bf16\n"
      "  4-bit weights, LLM layers from DRAM        quire-bench --precision int4 --flush\n"
      "  4-bit weights, a short run                 quire-bench --precision int4 --shapes quick\n"
      "  embedding bags against a plain gather      quire-bench --precision embedding\n"
      "  machine-readable                           quire-bench --csv > run.csv; quire-bench --json run.json\n"
      "  plots from JSON runs (python3-matplotlib)  python3 bench/plot_bench.py --out plots "
      "run.json\n"
      "The last line of every run is 'quire-bench summary: key=value ...'.\n",
      argv0, isa_list(" | ").c_str());
}

std::optional<Options> parse_options(int argc, char** argv) {
  Options opt;
  bool shape_set_given = false, output_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(flag + " needs a value");
      return argv[++i];
    };
    if (flag == "--help" || flag == "-h") {
      print_usage(stdout, argv[0]);
      return std::nullopt;
    } else if (flag == "--shapes") {
      opt.shape_set = value();
      shape_set_given = true;
      if (opt.shape_set != "inference" && opt.shape_set != "square" &&
          opt.shape_set != "conv" && opt.shape_set != "all" && opt.shape_set != "half" &&
          opt.shape_set != "llm" && opt.shape_set != "decode" && opt.shape_set != "quick") {
        throw UsageError("--shapes: unknown set '" + opt.shape_set + "'");
      }
    } else if (flag == "--precision") {
      opt.precision = value();
      if (opt.precision != "int8" && opt.precision != "acc16" && opt.precision != "fp16" &&
          opt.precision != "bf16" && opt.precision != "fp32" && opt.precision != "int4" &&
          opt.precision != "embedding") {
        throw UsageError("--precision: want int8, acc16, fp16, bf16, fp32, int4 or embedding, got '" +
                         opt.precision + "'");
      }
    } else if (flag == "--shape") {
      opt.shapes.push_back(parse_shape(value()));
    } else if (flag == "--threads") {
      opt.threads = parse_number<int>(flag, value());
      opt.threads_given = true;
      if (opt.threads < 1) throw UsageError("--threads must be at least 1");
    } else if (flag == "--tables") {
      opt.tables = parse_list(flag, value(), {"big", "L3", "2000"});
    } else if (flag == "--formats") {
      opt.formats = parse_list(flag, value(), {"fp32", "fp16", "int8", "int4", "int2"});
    } else if (flag == "--dims") {
      for (const std::string& d : parse_list(flag, value(), {})) {
        opt.dims.push_back(parse_number<int>(flag, d));
        if (opt.dims.back() <= 0) throw UsageError("--dims: dimensions must be positive");
      }
    } else if (flag == "--isa") {
      opt.isa = parse_isa(value());
    } else if (flag == "--output") {
      const std::string kind = value();
      output_given = true;
      if (kind == "u8") {
        opt.output = OutputKind::u8;
      } else if (kind == "int32") {
        opt.output = OutputKind::int32;
      } else {
        throw UsageError("--output: want u8 or int32, got '" + kind + "'");
      }
    } else if (flag == "--weights") {
      const std::string kind = value();
      if (kind == "full") opt.weights = WeightKind::full;
      else if (kind == "typical") opt.weights = WeightKind::typical;
      else if (kind == "trained") opt.weights = WeightKind::trained;
      else throw UsageError("--weights: want trained, full or typical, got '" + kind + "'");
    } else if (flag == "--activations") {
      const std::string kind = value();
      if (kind == "8bit") opt.activation_max = 255;
      else if (kind == "7bit") opt.activation_max = 127;
      else throw UsageError("--activations: want 8bit or 7bit, got '" + kind + "'");
    } else if (flag == "--min-time") {
      opt.min_time = parse_number<double>(flag, value());
      if (!(opt.min_time > 0)) throw UsageError("--min-time must be positive");
    } else if (flag == "--flush") {
      opt.flush = true;
    } else if (flag == "--csv") {
      opt.csv = true;
    } else if (flag == "--json") {
      opt.json_path = value();
    } else {
      throw UsageError("unknown option '" + flag + "'");
    }
  }
  const bool half = opt.precision == "fp16" || opt.precision == "bf16" || opt.precision == "fp32";
  if (half && !shape_set_given) opt.shape_set = "half";
  if (opt.precision == "int4" && !shape_set_given) opt.shape_set = "llm";
  const bool llm_set = opt.shape_set == "llm" || opt.shape_set == "decode" || opt.shape_set == "quick";
  if (opt.precision == "int4") {
    if (!llm_set) throw UsageError("--precision int4 runs --shapes llm, decode or quick (or --shape)");
    if (!opt.json_path.empty()) throw UsageError("--precision int4 has no JSON output; use --csv");
  } else if (llm_set) {
    throw UsageError("--shapes " + opt.shape_set + " is for --precision int4");
  }
  const bool emb_filter = !opt.tables.empty() || !opt.formats.empty() || !opt.dims.empty();
  if (emb_filter && opt.precision != "embedding") {
    throw UsageError("--tables, --formats and --dims are for --precision embedding");
  }
  if (opt.precision == "embedding" && opt.threads_given && opt.threads > 2) {
    throw UsageError("--precision embedding runs 1 or 2 threads");
  }
  if (opt.precision != "int8" && opt.shape_set == "conv") {
    throw UsageError("--precision " + opt.precision + " runs GEMM shapes; --shapes conv is int8");
  }
  if (opt.precision == "acc16") {
    if (output_given && opt.output != OutputKind::int32) {
      throw UsageError("--precision acc16 measures int32 output (memCopy); --output u8 is int8 only");
    }
    opt.output = OutputKind::int32;
  }
  return opt;
}

}  // namespace quire::bench
