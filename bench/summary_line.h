// The last line of every bench mode: one line of key=value pairs that a script can grep
// ("grep '^quire-bench summary:'") whatever the rest of the output looks like.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "format.h"

namespace quire::bench {

class SummaryLine {
 public:
  SummaryLine& add(const char* key, const std::string& value) {
    fields_.emplace_back(key, value.empty() ? "n/a" : value);
    return *this;
  }
  SummaryLine& add(const char* key, std::optional<double> value, int decimals) {
    return add(key, format_number(value, decimals));
  }
  SummaryLine& add(const char* key, long long value) { return add(key, std::to_string(value)); }

  void print(std::FILE* out) const {
    std::fprintf(out, "quire-bench summary:");
    for (const auto& [key, value] : fields_) std::fprintf(out, " %s=%s", key, value.c_str());
    std::fprintf(out, "\n");
    std::fflush(out);
  }

 private:
  std::vector<std::pair<const char*, std::string>> fields_;
};

}  // namespace quire::bench
