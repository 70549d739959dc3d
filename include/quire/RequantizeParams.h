// The parameter records of FBGEMM's block requantization routines (UtilsAvx2.h in
// FBGEMM): everything requantizeOutputProcessingAvx2 and requantizeForFloatAvx2 read,
// for every quantization granularity. Field meanings are those of ReQuantizeOutput and
// ReQuantizeForFloat (quire/OutputProcessing.h).
#pragma once

#include <cstdint>

#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

template <typename BIAS_TYPE = std::int32_t>
struct requantizationParams_t {
  using BIAS_T = BIAS_TYPE;
  std::int32_t A_zero_point;
  const std::int32_t* B_zero_point;  // per quantization group
  std::int32_t C_zero_point;
  const float* C_multiplier;       // per quantization group
  const std::int32_t* row_offsets;  // per block row
  const std::int32_t* col_offsets;  // per column
  const BIAS_T* bias;               // per column
  std::uint32_t ncols;
  int groups;
  const float* act_times_w_scale;  // per quantization group, with a float bias
};

struct requantizationForFloatParams_t {
  std::int32_t A_zero_point;
  const std::int32_t* B_zero_point;
  float A_scale;
  const float* B_scale;
  const std::int32_t* row_offsets;
  const std::int32_t* col_offsets;
  const float* bias;
  std::uint32_t ncols;
  int groups;
};

}  // namespace quire
QUIRE_API_END
