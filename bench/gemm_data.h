// One shape's inputs, shared by quire and every baseline, and the exact int32 results
// of a few of its rows to check every library's output against.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "shapes.h"
#include "weight_kind.h"

namespace quire::bench {

// n elements on a 64-byte boundary (whole cache lines, as engines allocate tensors).
template <class T>
class AlignedArray {
 public:
  explicit AlignedArray(size_t n)
      : size_(n), data_(static_cast<T*>(std::aligned_alloc(64, (n * sizeof(T) + 63) / 64 * 64))) {
    if (!data_) throw std::bad_alloc();
  }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  size_t size() const { return size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }

 private:
  struct Free {
    void operator()(T* p) const { std::free(p); }
  };
  size_t size_;
  std::unique_ptr<T[], Free> data_;
};

struct GemmData {
  // Full-range random data (A in 0..255, B in -128..127): nothing shaped to dodge
  // the int16 saturation of the pre-VNNI instructions. A narrower B range (b_lo..b_hi)
  // is for showing how often acc16 saturates on small weights.
  explicit GemmData(const Shape& shape, int b_lo = -128, int b_hi = 127);
  // The data a scenario asks for (--weights, --activations): B of that kind, A in 0..a_max (a_max is
  // reached). Exactness is checked on every kind.
  GemmData(const Shape& shape, WeightKind weights, int a_max);

  Shape shape;
  AlignedArray<uint8_t> A;  // M x K, row-major
  AlignedArray<int8_t> B;   // K x N, row-major
};

// Exact C = A * B on a handful of rows spread over M (first, last, between), from
// quire's plain-loop reference: cheap enough to check every shape. With an
// acc16_block_depth > 0 the rows hold C as the saturating acc16 kernels compute it
// (ref::matmul_u8s8s32_acc16 with that block depth) instead.
class ReferenceRows {
 public:
  explicit ReferenceRows(const GemmData& data, int acc16_block_depth = 0);

  const std::vector<int>& rows() const { return rows_; }
  // C's sampled row number idx (N values) and the sum of A's row over K.
  const int32_t* c_row(size_t idx) const { return &c_[idx * n_]; }
  int32_t a_row_sum(size_t idx) const { return a_row_sums_[idx]; }

  // Mismatching elements of an int32 C (M x N, row-major) in the sampled rows.
  int64_t mismatches(const int32_t* C) const;

 private:
  int n_;
  std::vector<int> rows_;
  std::vector<int32_t> c_;
  std::vector<int32_t> a_row_sums_;
};

}  // namespace quire::bench
