// Portable C++ output-pipeline routines: the path for CPUs without AVX2 and for
// inst_set_t::anyarch. Formulas in quire/detail/Epilogue.h.
#include <cstdint>

#include "epilogue/epilogue_table.h"

namespace quire::detail {
namespace {

// Walks the quantization groups of a row's columns without a division per element:
// q = (col_start + c) / cols_per_group.
class GroupCursor {
 public:
  explicit GroupCursor(const ZeroPointCorrection& zp)
      : q_(zp.col_start / zp.cols_per_group),
        pos_(zp.col_start % zp.cols_per_group),
        cols_per_group_(zp.cols_per_group) {}
  int q() const { return q_; }
  void next() {
    if (++pos_ == cols_per_group_) {
      pos_ = 0;
      ++q_;
    }
  }

 private:
  int q_;
  int pos_;
  int cols_per_group_;
};

// out[c] = value(raw, c, q) for every element of a requantization's block, in memory
// order, with raw the zero-point-corrected input and q the element's group.
template <class Args, class Value>
void for_each_raw(const Args& a, Value value) {
  for (int r = 0; r < a.rows; ++r) {
    const int32_t* in = a.in + r * a.ld_in;
    auto* out = a.out + r * a.ld_out;
    GroupCursor g(a.zp);
    for (int c = 0; c < a.cols; ++c, g.next()) {
      const int q = g.q();
      out[c] = value(corrected_raw(a.zp, in[c], r, c, q), c, q);
    }
  }
}

void requantize_u8(const RequantizeU8Args& a) {
  const int32_t lo = a.fuse_relu ? a.c_zero_point : 0;
  for_each_raw(a, [&](int32_t raw, int c, int q) {
    float x;
    switch (a.bias_kind) {
      case BiasKind::int32:
        x = static_cast<float>(wrapping_add(raw, a.bias_i32[c])) * a.multiplier[q];
        break;
      case BiasKind::float32:
        x = (static_cast<float>(raw) + a.bias_f32[c] / a.act_times_w_scale[q]) *
            a.multiplier[q];
        break;
      default:
        x = static_cast<float>(raw) * a.multiplier[q];
    }
    return round_to_u8(x, a.c_zero_point, lo);
  });
}

void requantize_f32(const RequantizeF32Args& a) {
  for_each_raw(a, [&](int32_t raw, int c, int q) {
    float res = static_cast<float>(raw) * (a.a_scale * a.b_scale[q]);
    if (a.bias != nullptr) res = res + a.bias[c];
    if (a.fuse_relu) res = relu_f32(res);
    return res;
  });
}

void copy_i32(const Int32MapArgs& a) {
  for (int r = 0; r < a.rows; ++r)
    for (int c = 0; c < a.cols; ++c) a.out[r * a.ld_out + c] = a.in[r * a.ld_in + c];
}

void scale_i32(const Int32MapArgs& a) {
  for (int r = 0; r < a.rows; ++r)
    for (int c = 0; c < a.cols; ++c)
      a.out[r * a.ld_out + c] = wrapping_mul(a.in[r * a.ld_in + c], a.value);
}

void relu_i32(const Int32MapArgs& a) {
  for (int r = 0; r < a.rows; ++r) {
    for (int c = 0; c < a.cols; ++c) {
      const int32_t v = a.in[r * a.ld_in + c];
      a.out[r * a.ld_out + c] = v > a.value ? v : a.value;
    }
  }
}

}  // namespace

const EpilogueTable kEpiloguePortable = {requantize_u8, requantize_f32, copy_i32, scale_i32,
                                         relu_i32};

}  // namespace quire::detail
