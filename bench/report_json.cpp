// JSON output: every number of the run, with seconds as the time unit.
#include <fstream>
#include <stdexcept>

#include "json_writer.h"
#include "report.h"

namespace quire::bench {

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
  json.field("copy_bandwidth_gbs", info.copy_bandwidth_gbs);
  json.field("output", info.output == OutputKind::u8 ? "u8" : "int32");
  json.field("min_time_s", info.min_time);
  json.field("flush", info.flush);
  json.field("shape_set", info.shape_set);
  json.field("weights", weights_name(info.weights));
  json.field("activation_max", info.activation_max);
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
    json.field("pair_safe_share", r.pair_safe_share);
    json.field("corrected_share", r.corrected_share);
    json.field("unsafe_pair_share", r.unsafe_pair_share);
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
  json.field("pair_safe_share", s.pair_safe_share);  // a mean, not a geomean
  json.field("corrected_share", s.corrected_share);
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
  json.field("baseline_wrong", s.baseline_wrong);
  json.end_object();
  file << '\n';
  if (!file) throw std::runtime_error("error writing '" + path + "'");
}

}  // namespace quire::bench
