// OpenBLAS cblas_sgemm on the same M, N, K in fp32: what users run when they do not
// quantize. Inputs are the same values converted to float once, before the timing.
#include <cblas.h>

#include "baseline.h"

namespace quire::bench {
namespace {

class OpenBlasGemm final : public BaselineGemm {
 public:
  explicit OpenBlasGemm(const GemmData& data)
      : shape_(data.shape),
        a_(data.A.size()),
        b_(data.B.size()),
        c_(static_cast<size_t>(data.shape.M) * data.shape.N) {
    for (size_t i = 0; i < a_.size(); ++i) a_[i] = data.A[i];
    for (size_t i = 0; i < b_.size(); ++i) b_[i] = data.B[i];
  }

  void call() override {
    const auto [M, N, K] = shape_;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, a_.data(), K,
                b_.data(), N, 0.0f, c_.data(), N);
  }

  // fp32 sums of K products up to 255 * 128 are not exact past 2^24: nothing to check.
  int64_t check(const ReferenceRows&) const override { return -1; }

 private:
  Shape shape_;
  AlignedArray<float> a_, b_, c_;
};

class OpenBlas final : public Baseline {
 public:
  explicit OpenBlas(int threads) : threads_(threads) { openblas_set_num_threads(threads); }

  std::string name() const override { return "OpenBLAS"; }

  std::string description() const override {
    // The config string starts with "OpenBLAS <version>".
    return std::string(openblas_get_config()) + ", core " +
           openblas_get_corename() + ", sgemm fp32, " + std::to_string(threads_) +
           " thread(s)";
  }

  std::unique_ptr<BaselineGemm> prepare(const GemmData& data) override {
    return std::make_unique<OpenBlasGemm>(data);
  }

 private:
  int threads_;
};

}  // namespace

std::unique_ptr<Baseline> make_openblas_baseline(int threads) {
  return std::make_unique<OpenBlas>(threads);
}

}  // namespace quire::bench
