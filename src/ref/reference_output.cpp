#include "quire/ref/ReferenceOutput.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace quire::ref {

int quant_group(const QuantParams& p, int j) {
  switch (p.granularity) {
    case QuantizationGranularity::TENSOR:
      return 0;
    case QuantizationGranularity::GROUP:
      return j / static_cast<int>(p.nCol / static_cast<uint32_t>(p.groups));
    case QuantizationGranularity::OUT_CHANNEL:
      break;
  }
  return j;
}

int32_t corrected_raw(const QuantParams& p, int32_t inp, int r, int j) {
  // Unsigned arithmetic wraps modulo 2^32 (signed overflow would be undefined), and the
  // conversion back to int32_t is modular in C++20.
  uint32_t raw = static_cast<uint32_t>(inp);
  if (p.Aq_zero_point != 0)
    raw -= static_cast<uint32_t>(p.Aq_zero_point) * static_cast<uint32_t>(p.col_offsets[j]);
  const int32_t b_zp = p.Bq_zero_point[quant_group(p, j)];
  if (b_zp != 0) raw -= static_cast<uint32_t>(b_zp) * static_cast<uint32_t>(p.row_offsets[r]);
  return static_cast<int32_t>(raw);
}

template <class BiasT>
void requantize_u8(uint8_t* out, const int32_t* inp, const block_type_t& block, int ld_out,
                   int ld_in, const QuantParams& p, const float* C_multiplier,
                   int32_t C_zero_point, const BiasT* bias, const float* act_times_w_scale,
                   bool fuse_relu) {
  for (int r = 0; r < block.row_size; ++r) {
    for (int c = 0; c < block.col_size; ++c) {
      const int j = block.col_start + c;
      const int q = quant_group(p, j);
      const int32_t raw = corrected_raw(p, inp[int64_t{r} * ld_in + c], r, j);
      float x;
      if (bias == nullptr) {
        x = static_cast<float>(raw) * C_multiplier[q];
      } else if constexpr (std::is_same_v<BiasT, float>) {
        x = (static_cast<float>(raw) + bias[j] / act_times_w_scale[q]) * C_multiplier[q];
      } else {
        const auto sum = static_cast<uint32_t>(raw) + static_cast<uint32_t>(bias[j]);
        x = static_cast<float>(static_cast<int32_t>(sum)) * C_multiplier[q];
      }
      // nearbyint of a float that large is still exact in double; clamping in double
      // keeps the conversion to an integer defined for any finite x. NaN (a NaN or
      // infinite multiplier) maps to 255, as in every vector routine and kernel.
      const double rounded =
          std::isnan(x) ? 255.0 : std::nearbyint(static_cast<double>(x)) + C_zero_point;
      const double lo = fuse_relu ? C_zero_point : 0;
      out[int64_t{block.row_start + r} * ld_out + j] =
          static_cast<uint8_t>(std::clamp(rounded, lo, 255.0));
    }
  }
}

template void requantize_u8<int32_t>(uint8_t*, const int32_t*, const block_type_t&, int, int,
                                     const QuantParams&, const float*, int32_t,
                                     const int32_t*, const float*, bool);
template void requantize_u8<float>(uint8_t*, const int32_t*, const block_type_t&, int, int,
                                   const QuantParams&, const float*, int32_t, const float*,
                                   const float*, bool);

void requantize_f32(float* out, const int32_t* inp, const block_type_t& block, int ld_out,
                    int ld_in, const QuantParams& p, float Aq_scale, const float* Bq_scale,
                    const float* bias, bool fuse_relu) {
  for (int r = 0; r < block.row_size; ++r) {
    for (int c = 0; c < block.col_size; ++c) {
      const int j = block.col_start + c;
      const float scale = Aq_scale * Bq_scale[quant_group(p, j)];
      float res = static_cast<float>(corrected_raw(p, inp[int64_t{r} * ld_in + c], r, j)) * scale;
      if (bias != nullptr) res = res + bias[j];
      if (fuse_relu) res = std::max(0.0f, res);
      out[int64_t{block.row_start + r} * ld_out + j] = res;
    }
  }
}

void scale_i32(int32_t* out, const int32_t* inp, const block_type_t& block, int ld_out,
               int ld_in, int32_t scale) {
  for (int r = 0; r < block.row_size; ++r) {
    for (int c = 0; c < block.col_size; ++c) {
      const uint32_t v =
          static_cast<uint32_t>(inp[int64_t{r} * ld_in + c]) * static_cast<uint32_t>(scale);
      out[int64_t{block.row_start + r} * ld_out + block.col_start + c] = static_cast<int32_t>(v);
    }
  }
}

void relu_i32(int32_t* out, const int32_t* inp, const block_type_t& block, int ld_out,
              int ld_in, int32_t zero_pt) {
  for (int r = 0; r < block.row_size; ++r)
    for (int c = 0; c < block.col_size; ++c)
      out[int64_t{block.row_start + r} * ld_out + block.col_start + c] =
          std::max(zero_pt, inp[int64_t{r} * ld_in + c]);
}

}  // namespace quire::ref
