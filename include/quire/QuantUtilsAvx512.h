// FBGEMM's QuantUtilsAvx512.h entry point for bfloat16 output; like the *Avx2 forms it
// runs the best path the CPU has. Its numbers are Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf
// <bfloat16>'s: cpu_float2bfloat16 of each value (FBGEMM's AVX512-BF16 kernel rounds with
// vcvtneps2bf16 instead, so FBGEMM's own paths disagree on ties; quire keeps the scalar
// function's bits everywhere).
#pragma once

#include <cstddef>
#include <cstdint>

#include "quire/QuantUtils.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

template <bool scale_bias_last = true, bool quant_padding_float_type = true>
void Fused8BitRowwiseQuantizedSBFloatToBfloat16Avx512(const std::uint8_t* input,
                                                      size_t input_rows, int input_columns,
                                                      bfloat16* output) {
  Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf(input, input_rows, input_columns, output,
                                                scale_bias_last, quant_padding_float_type);
}

}  // namespace quire
QUIRE_API_END
