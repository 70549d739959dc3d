// Reference output-pipeline operations: plain per-element loops that spell out the
// formulas of quire/OutputProcessing.h, used by the tests as ground truth (bit for bit).
// Block indexing as the ops: out[i * ld_out + j] at absolute (i, j) of the block,
// inp[(i - row_start) * ld_in + (j - col_start)].
#pragma once

#include <cstdint>

#include "quire/Types.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire::ref {

// What both requantizations need to correct the raw int32 sums. Zero points of 0 skip
// their term, and then the matching offsets may be null.
struct QuantParams {
  QuantizationGranularity granularity = QuantizationGranularity::TENSOR;
  int groups = 1;
  uint32_t nCol = 0;
  int32_t Aq_zero_point = 0;
  const int32_t* Bq_zero_point = nullptr;  // per quantization group
  const int32_t* row_offsets = nullptr;    // per block row (i - row_start)
  const int32_t* col_offsets = nullptr;    // per absolute column
};

// q = 0 (TENSOR), j / (nCol / groups) (GROUP) or j (OUT_CHANNEL).
int quant_group(const QuantParams& p, int j);

// raw = inp - Aq_zero_point * col_offsets[j] - Bq_zero_point[q] * row_offsets[r],
// computed modulo 2^32.
int32_t corrected_raw(const QuantParams& p, int32_t inp, int r, int j);

// out = clamp(nearbyint(x) + C_zero_point, fuse_relu ? C_zero_point : 0, 255) with
//   x = (float)(raw + bias[j]) * C_multiplier[q]                          (BiasT int32_t)
//   x = ((float)raw + bias[j] / act_times_w_scale[q]) * C_multiplier[q]   (BiasT float)
//   x = (float)raw * C_multiplier[q]                                      (bias null)
// (x NaN: 255, what the vector routines give).
template <class BiasT>
void requantize_u8(uint8_t* out, const int32_t* inp, const block_type_t& block, int ld_out,
                   int ld_in, const QuantParams& p, const float* C_multiplier,
                   int32_t C_zero_point, const BiasT* bias, const float* act_times_w_scale,
                   bool fuse_relu);

// out = (float)raw * (Aq_scale * Bq_scale[q])  [+ bias[j]]  [then max(0.0f, .)]
void requantize_f32(float* out, const int32_t* inp, const block_type_t& block, int ld_out,
                    int ld_in, const QuantParams& p, float Aq_scale, const float* Bq_scale,
                    const float* bias, bool fuse_relu);

// out = inp * scale (modulo 2^32)
void scale_i32(int32_t* out, const int32_t* inp, const block_type_t& block, int ld_out,
               int ld_in, int32_t scale);

// out = max(zero_pt, inp)
void relu_i32(int32_t* out, const int32_t* inp, const block_type_t& block, int ld_out,
              int ld_in, int32_t zero_pt);

}  // namespace quire::ref
QUIRE_API_END
