// A minimal streaming JSON writer for the bench's reports (report_json.cpp,
// acc16_report.cpp): it tracks whether a comma is due at each nesting level.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace quire::bench {

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

}  // namespace quire::bench
