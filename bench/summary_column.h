// One column of a bench summary, shared by every report mode (gemm, conv, half, int4,
// acc16): the geometric mean of the values present, exp(sum(log v) / n) over the
// positive ones (absent and non-positive values are skipped: nothing was measured), and
// the smallest of them with the tag of its row (a shape; a geomean can hide one bad row).
#pragma once

#include <cmath>
#include <optional>
#include <utility>

namespace quire::bench {

template <class Tag = int>
class SummaryColumn {
 public:
  void add(std::optional<double> v, const Tag& tag = Tag{}) {
    if (!v || !(*v > 0)) return;
    log_sum_ += std::log(*v);
    ++count_;
    if (!worst_ || *v < worst_->first) worst_ = std::pair{*v, tag};
  }
  // nullopt when no value was added.
  std::optional<double> geomean() const {
    if (count_ == 0) return std::nullopt;
    return std::exp(log_sum_ / count_);
  }
  // The first smallest value and its tag.
  const std::optional<std::pair<double, Tag>>& worst() const { return worst_; }

 private:
  double log_sum_ = 0;
  int count_ = 0;
  std::optional<std::pair<double, Tag>> worst_;
};

}  // namespace quire::bench
