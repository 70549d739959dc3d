// kQuantAvx512 (being written: scalar loops until the vector kernels land).
#include "quant/portable_kernels.h"

namespace quire::detail {

using namespace portable;

constinit const QuantKernels kQuantAvx512 = {
    quantize<uint8_t>, quantize<int8_t>, quantize<uint16_t>, quantize<int16_t>,
    quantize<int32_t>,
    quantize_channels<uint8_t>, quantize_channels<int8_t>, quantize_channels<int32_t>,
    dequantize<uint8_t>, dequantize<int8_t>, dequantize<uint16_t>, dequantize<int16_t>,
    dequantize<int32_t>,
    fused_quantize_dequantize, find_min_max,
    requantize<uint8_t>, requantize<int8_t>, requantize<uint16_t>, requantize<int16_t>,
    requantize<int32_t>,
    requantize_fixed<uint8_t>, requantize_fixed<int8_t>, requantize_fixed<uint16_t>,
    requantize_fixed<int16_t>, requantize_fixed<int32_t>,
    rowwise_quantize, rowwise_dequantize,
    float_to_half, half_to_float, float_to_bfloat16,
};

}  // namespace quire::detail
