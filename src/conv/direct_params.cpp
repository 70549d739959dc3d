// Argument checks of the direct kernels' requantization, and its resolution per output
// channel (ChannelRequant).
#include "conv/direct_params.h"

#include <algorithm>
#include <string>

#include "quire/detail/Check.h"

namespace quire::detail {

void check_direct_requant(const DirectRequant& r, const char* where) {
  check_not_null(r.b_zero_point, where, "B_zero_point");
  check_not_null(r.c_multiplier, where, "C_multiplier");
  check_arg(r.a_zero_point >= 0 && r.a_zero_point <= 255, where, "A_zero_point", r.a_zero_point,
            "must be in [0, 255]");
  check_arg(r.c_zero_point >= 0 && r.c_zero_point <= 255, where, "C_zero_point", r.c_zero_point,
            "must be in [0, 255]");
  if (r.bias_kind == BiasKind::float32) check_not_null(r.act_times_w_scale, where, "act_times_w_scale");
}

void check_direct_call(const ConvGeometry& g, const uint8_t* A, const int8_t* packed,
                       const DirectRequant& r, const uint8_t* C, int thread_id,
                       int num_threads, const char* where) {
  // An empty batch reads and writes nothing: its data pointers may be null.
  if (g.batch > 0) {
    check_not_null(A, where, "A");
    check_not_null(C, where, "C");
  }
  check_not_null(packed, where, "packed weights");
  check_direct_requant(r, where);
  check_arg(num_threads >= 1, where, "num_threads", num_threads, "must be >= 1");
  check_arg(thread_id >= 0 && thread_id < num_threads, where, "thread_id", thread_id,
            "must be in [0, num_threads)");
  check_arg(!g.transposed, where, "transposed", 1, "is not supported by the direct kernels");
}

}  // namespace quire::detail

namespace quire::conv {

ChannelParams::ChannelParams(const detail::DirectRequant& r, int channels) {
  const int padded = (channels + 63) / 64 * 64;
  col_term.assign(padded, 0);
  b_zp.assign(padded, 0);
  mult.assign(padded, 0.0f);
  if (r.bias_kind == detail::BiasKind::float32) fbias.assign(padded, 0.0f);
  // One pass per array, each a loop the compiler vectorizes: one loop over the channels
  // with every array's case inside ran 5.5 cycles a channel (Zen 3, a 7x7x960 depthwise
  // layer: 8% of the call).
  // col_term = bias - a_zero_point * col_offsets, modulo 2^32 (as the epilogue).
  uint32_t* term = reinterpret_cast<uint32_t*>(col_term.data());
  if (r.bias_kind == detail::BiasKind::int32)
    for (int c = 0; c < channels; ++c) term[c] = static_cast<uint32_t>(r.bias_i32[c]);
  if (r.col_offsets != nullptr) {
    const uint32_t a_zp = static_cast<uint32_t>(r.a_zero_point);
    for (int c = 0; c < channels; ++c) term[c] -= a_zp * static_cast<uint32_t>(r.col_offsets[c]);
  }
  // The quantization groups' values over their channels: copied where a group is one
  // channel, else repeated over each group's channels [c0, c1).
  bool any_b_zp = false;
  if (r.channels_per_q == 1) {
    std::copy_n(r.b_zero_point, channels, b_zp.begin());
    std::copy_n(r.c_multiplier, channels, mult.begin());
    any_b_zp = std::any_of(b_zp.begin(), b_zp.begin() + channels, [](int32_t z) { return z != 0; });
    for (int c = 0; c < static_cast<int>(fbias.size()) && c < channels; ++c)
      fbias[c] = r.bias_f32[c] / r.act_times_w_scale[c];
  } else {
    for (int q = 0, c0 = 0; c0 < channels; ++q) {
      const int c1 = channels - c0 <= r.channels_per_q ? channels : c0 + r.channels_per_q;
      any_b_zp = any_b_zp || r.b_zero_point[q] != 0;
      std::fill(b_zp.begin() + c0, b_zp.begin() + c1, r.b_zero_point[q]);
      std::fill(mult.begin() + c0, mult.begin() + c1, r.c_multiplier[q]);
      if (!fbias.empty()) {
        const float scale = r.act_times_w_scale[q];
        for (int c = c0; c < c1; ++c) fbias[c] = r.bias_f32[c] / scale;
      }
      c0 = c1;
    }
  }
  requant.col_term = col_term.data();
  requant.b_zp = any_b_zp ? b_zp.data() : nullptr;
  requant.mult = mult.data();
  requant.fbias = fbias.empty() ? nullptr : fbias.data();
  requant.c_zero_point = r.c_zero_point;
  requant.x_lo = static_cast<float>((r.fuse_relu ? r.c_zero_point : 0) - r.c_zero_point);
  requant.x_hi = static_cast<float>(255 - r.c_zero_point);
}

}  // namespace quire::conv
