// The libraries quire is compared with. Each is compiled in only when its package was
// found at configure time; otherwise its factory returns nullptr and the bench prints
// "n/a" in its columns.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "gemm_data.h"

namespace quire::bench {

// One library's GEMM on one shape, with everything an engine does once (weights
// reordered, primitive created) done before the timing.
class BaselineGemm {
 public:
  virtual ~BaselineGemm() = default;
  virtual void call() = 0;  // one timed call
  // What the library chose for this shape (kernel, weights layout); may be empty.
  virtual std::string detail() const { return {}; }
  // Bytes of the weights in the layout the library runs from; 0 when it uses B as is.
  virtual int64_t packed_weights_bytes() const { return 0; }
  // Mismatching elements of the sampled rows after a call; -1 when the result is not
  // exact by design (fp32).
  virtual int64_t check(const ReferenceRows& ref) const = 0;
};

class Baseline {
 public:
  virtual ~Baseline() = default;
  virtual std::string name() const = 0;         // column title: "oneDNN", "OpenBLAS"
  virtual std::string description() const = 0;  // version, threading, kernel family
  virtual std::unique_ptr<BaselineGemm> prepare(const GemmData& data) = 0;
};

// Both set the library's thread count to `threads` for the whole run.
// oneDNN's matmul primitive, u8 x s8 -> s32 (baseline_onednn.cpp).
std::unique_ptr<Baseline> make_onednn_baseline(int threads);
// OpenBLAS cblas_sgemm in fp32 on the same shape (baseline_openblas.cpp).
std::unique_ptr<Baseline> make_openblas_baseline(int threads);

}  // namespace quire::bench
