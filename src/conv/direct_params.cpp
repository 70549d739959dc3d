// Argument checks of the direct kernels' requantization, and its resolution per output
// channel (ChannelRequant).
#include "conv/direct_params.h"

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
  bool any_b_zp = false;
  // q = c / channels_per_q, counted: a division per channel was a tenth of a small
  // depthwise layer's call.
  int q = 0, q_end = r.channels_per_q;  // channels [.., q_end) are in group q
  for (int c = 0; c < channels; ++c) {
    if (c == q_end) {
      ++q;
      q_end += r.channels_per_q;
    }
    uint32_t term = 0;  // modulo 2^32, as the epilogue
    if (r.bias_kind == detail::BiasKind::int32) term += static_cast<uint32_t>(r.bias_i32[c]);
    if (r.col_offsets != nullptr)
      term -= static_cast<uint32_t>(r.a_zero_point) * static_cast<uint32_t>(r.col_offsets[c]);
    col_term[c] = static_cast<int32_t>(term);
    b_zp[c] = r.b_zero_point[q];
    any_b_zp = any_b_zp || b_zp[c] != 0;
    mult[c] = r.c_multiplier[q];
    if (!fbias.empty()) fbias[c] = r.bias_f32[c] / r.act_times_w_scale[q];
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
