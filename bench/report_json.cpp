// JSON output: every number of the run, with seconds as the time unit.
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "report.h"

namespace quire::bench {
namespace {

// A minimal streaming writer: it tracks whether a comma is due at each nesting level.
class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& os) : os_(os) {}

  void begin_object(const char* key = nullptr) { open(key, '{'); }
  void end_object() { close('}'); }
  void begin_array(const char* key = nullptr) { open(key, '['); }
  void end_array() { close(']'); }

  void field(const char* key, const std::string& v) {
    prefix(key);
    os_ << '"';
    for (char c : v) {
      if (c == '"' || c == '\\') {
        os_ << '\\' << c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        os_ << buf;
      } else {
        os_ << c;
      }
    }
    os_ << '"';
  }
  void field(const char* key, const char* v) { field(key, std::string(v)); }
  void field(const char* key, double v) {
    prefix(key);
    if (!std::isfinite(v)) {
      os_ << "null";
      return;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    os_ << buf;
  }
  void field(const char* key, int64_t v) { prefix(key), os_ << v; }
  void field(const char* key, int v) { field(key, int64_t{v}); }
  void field(const char* key, bool v) { prefix(key), os_ << (v ? "true" : "false"); }
  void field(const char* key, std::optional<double> v) {
    if (v) {
      field(key, *v);
    } else {
      prefix(key), os_ << "null";
    }
  }

 private:
  void prefix(const char* key) {
    if (!first_.empty()) {
      if (!first_.back()) os_ << ',';
      first_.back() = false;
      os_ << '\n' << std::string(2 * first_.size(), ' ');
    }
    if (key) field_name(key);
  }
  void field_name(const char* key) { os_ << '"' << key << "\": "; }
  void open(const char* key, char bracket) {
    prefix(key);
    os_ << bracket;
    first_.push_back(true);
  }
  void close(char bracket) {
    const bool empty = first_.back();
    first_.pop_back();
    if (!empty) os_ << '\n' << std::string(2 * first_.size(), ' ');
    os_ << bracket;
  }

  std::ostream& os_;
  std::vector<bool> first_;  // per open level: nothing written in it yet
};

void write_measurement(JsonWriter& json, const char* key, const Measurement& m) {
  json.begin_object(key);
  json.field("median_s", m.timing.median);
  json.field("min_s", m.timing.min);
  json.field("max_s", m.timing.max);
  json.field("calls", m.timing.calls);
  json.field("gops", m.gops);
  json.field("mismatches", m.mismatches);  // -1: not checked (fp32)
  json.end_object();
}

}  // namespace

void write_json(const std::string& path, const RunInfo& info,
                const std::vector<ShapeResult>& results) {
  std::ofstream file(path);
  if (!file) throw std::runtime_error("cannot open '" + path + "' for writing");
  JsonWriter json(file);
  json.begin_object();
  json.field("cpu", info.cpu);
  json.field("isa", info.isa);
  json.field("isa_forced", info.isa_forced);
  json.field("threads", info.threads);
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
  json.field("output", info.output == OutputKind::u8 ? "u8" : "int32");
  json.field("min_time_s", info.min_time);
  json.field("flush", info.flush);
  json.field("shape_set", info.shape_set);
  json.field("onednn", info.onednn);
  json.field("openblas", info.openblas);

  json.begin_array("shapes");
  for (const ShapeResult& r : results) {
    json.begin_object();
    json.field("M", r.shape.M);
    json.field("N", r.shape.N);
    json.field("K", r.shape.K);
    write_measurement(json, "quire", r.quire);
    json.field("pct_peak", percent_of_peak(info, r));
    if (r.quire_int32) write_measurement(json, "quire_int32", *r.quire_int32);
    json.field("pack_b_s", r.pack_b_seconds);
    json.field("packed_b_bytes", r.packed_b_bytes);
    if (r.onednn) {
      write_measurement(json, "onednn", *r.onednn);
      json.field("onednn_detail", r.onednn_detail);
      json.field("onednn_weights_bytes", r.onednn_weights_bytes);
    }
    if (r.openblas) write_measurement(json, "openblas", *r.openblas);
    json.field("ratio_int32_onednn", ratio_onednn(r));
    json.field("ratio_quire_openblas", ratio_openblas(r));
    json.end_object();
  }
  json.end_array();

  const Summary s = summarize(info, results);
  json.begin_object("geomean");
  json.field("quire_gops", s.quire_gops);
  json.field("quire_int32_gops", s.quire_int32_gops);
  json.field("pct_peak", s.pct_peak);
  json.field("onednn_gops", s.onednn_gops);
  json.field("openblas_gflops", s.openblas_gflops);
  json.field("ratio_int32_onednn", s.ratio_onednn);
  json.field("ratio_quire_openblas", s.ratio_openblas);
  json.end_object();
  json.begin_object("worst");
  auto worst = [&](const char* key, const std::optional<Summary::Worst>& w) {
    if (!w) return;
    json.begin_object(key);
    json.field("value", w->value);
    json.field("shape", to_string(w->shape));
    json.end_object();
  };
  worst("pct_peak", s.worst_pct_peak);
  worst("ratio_int32_onednn", s.worst_ratio_onednn);
  worst("ratio_quire_openblas", s.worst_ratio_openblas);
  json.end_object();
  json.field("failed_checks", s.failed_checks);
  json.end_object();
  file << '\n';
  if (!file) throw std::runtime_error("error writing '" + path + "'");
}

}  // namespace quire::bench
