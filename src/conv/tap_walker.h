// Walks the output pixels of a direct convolution and keeps, for the current one, a
// pointer per kernel tap to the input pixel it reads (channel 0), or to the zero-point
// row when it reads padding. Inside a row of output pixels whose windows lie wholly
// inside the input width, moving one pixel right moves every in-bounds tap by
// stride_w * IC bytes, so the pointers are advanced rather than recomputed.
// Included by the per-ISA kernels: internal linkage, compiled once per ISA.
#pragma once

#include <cstdint>
#include <vector>

#include "quire/detail/ConvGeometry.h"

namespace quire::conv {
namespace {

class TapWalker {
 public:
  // Starts at output pixel `pixel` of the batch. slots >= kernel_prod pointers are
  // kept; those past the kernel point at spare_row (and never move).
  TapWalker(const detail::ConvGeometry& g, const uint8_t* A, const uint8_t* zp_row,
            int64_t pixel, int slots, const uint8_t* spare_row = nullptr)
      : g_(g), A_(A), zp_(zp_row), rows_(g.kernel[0] * g.kernel[1]),
        row_ptr_(rows_), delta_(slots, 0), taps_(slots, spare_row) {
    ow_ = static_cast<int>(pixel % g.out[2]);
    pixel /= g.out[2];
    oh_ = static_cast<int>(pixel % g.out[1]);
    pixel /= g.out[1];
    ot_ = static_cast<int>(pixel % g.out[0]);
    n_ = pixel / g.out[0];
    start_row();
    compute_taps();
  }

  const uint8_t* const* taps() const { return taps_.data(); }

  void next() {
    const bool was_interior = interior();
    if (++ow_ == g_.out[2]) {
      ow_ = 0;
      if (++oh_ == g_.out[1]) {
        oh_ = 0;
        if (++ot_ == g_.out[0]) {
          ot_ = 0;
          ++n_;
        }
      }
      start_row();
      compute_taps();
      return;
    }
    if (was_interior && interior()) {
      const int taps = rows_ * g_.kernel[2];
      for (int t = 0; t < taps; ++t) taps_[t] += delta_[t];
    } else {
      compute_taps();
    }
  }

 private:
  // Every tap of the current pixel is inside the input width.
  bool interior() const {
    const int iw0 = ow_ * g_.stride[2] - g_.pad_begin[2];
    return iw0 >= 0 && iw0 + (g_.kernel[2] - 1) * g_.dilation[2] < g_.in[2];
  }

  // The input rows each kernel row (kt, kh) reads for output row (n, ot, oh).
  void start_row() {
    const int64_t pixel_bytes = g_.in_channels;
    for (int r = 0; r < rows_; ++r) {
      const int it = detail::conv_input_index(g_, 0, ot_, r / g_.kernel[1]);
      const int ih = detail::conv_input_index(g_, 1, oh_, r % g_.kernel[1]);
      row_ptr_[r] = it < 0 || ih < 0
                        ? nullptr
                        : A_ + ((n_ * g_.in[0] + it) * g_.in[1] + ih) * g_.in[2] * pixel_bytes;
      for (int kw = 0; kw < g_.kernel[2]; ++kw)
        delta_[r * g_.kernel[2] + kw] = row_ptr_[r] != nullptr ? g_.stride[2] * pixel_bytes : 0;
    }
  }

  void compute_taps() {
    const int64_t pixel_bytes = g_.in_channels;
    for (int r = 0; r < rows_; ++r) {
      for (int kw = 0; kw < g_.kernel[2]; ++kw) {
        const int iw = detail::conv_input_index(g_, 2, ow_, kw);
        taps_[r * g_.kernel[2] + kw] =
            row_ptr_[r] != nullptr && iw >= 0 ? row_ptr_[r] + iw * pixel_bytes : zp_;
      }
    }
  }

  const detail::ConvGeometry& g_;
  const uint8_t* A_;
  const uint8_t* zp_;
  int rows_;
  std::vector<const uint8_t*> row_ptr_;
  std::vector<int64_t> delta_;
  std::vector<const uint8_t*> taps_;
  int64_t n_;
  int ot_, oh_, ow_;
};

}  // namespace
}  // namespace quire::conv
