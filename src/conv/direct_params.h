// The per-channel requantization arrays of the direct kernels (see ChannelRequant in
// conv_kernels.h), resolved once per call from DirectRequant.
#pragma once

#include <cstdint>
#include <vector>

#include "conv/conv_kernels.h"
#include "epilogue/epilogue_table.h"
#include "quire/detail/ConvDirect.h"

namespace quire::detail {

// The checks shared by the direct kernels' entry points; throws std::invalid_argument.
void check_direct_call(const ConvGeometry& g, const uint8_t* A, const int8_t* packed,
                       const DirectRequant& r, const uint8_t* C, int thread_id,
                       int num_threads, const char* where);

}  // namespace quire::detail

namespace quire::conv {

// Owns the arrays requant points at, in natural channel order, padded with zeros to a
// multiple of 64 channels.
struct ChannelParams {
  ChannelParams(const detail::DirectRequant& r, int channels);
  ChannelParams(const ChannelParams&) = delete;
  ChannelParams& operator=(const ChannelParams&) = delete;

  std::vector<int32_t> col_term, b_zp;
  std::vector<float> mult, fbias;
  ChannelRequant requant;
};

// Scalar requantization of one channel's accumulator and row sum, exactly as the
// vector kernels do it.
inline uint8_t requantize_channel(const ChannelRequant& q, int c, int32_t acc, int32_t row_sum) {
  uint32_t raw = static_cast<uint32_t>(acc) + static_cast<uint32_t>(q.col_term[c]);
  if (q.b_zp != nullptr)
    raw -= static_cast<uint32_t>(q.b_zp[c]) * static_cast<uint32_t>(row_sum);
  float x = static_cast<float>(static_cast<int32_t>(raw));
  if (q.fbias != nullptr) x = x + q.fbias[c];
  x = x * q.mult[c];
  const int32_t lo = static_cast<int32_t>(q.x_lo) + q.c_zero_point;
  return detail::round_to_u8(x, q.c_zero_point, lo);
}

}  // namespace quire::conv
