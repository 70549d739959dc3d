// The QuantKernels entries of each integer type, as member pointers, so the public
// templates in src/quant/ pick their routine by type without a switch.
#pragma once

#include <cstdint>

#include "cpu/isa_record.h"
#include "quant/quant_kernels.h"

namespace quire::detail {

template <class T>
struct KernelsOf;

#define QUIRE_QUANT_KERNELS_OF(T, suffix)                                        \
  template <>                                                                   \
  struct KernelsOf<T> {                                                         \
    static constexpr auto quantize = &QuantKernels::quantize_##suffix;          \
    static constexpr auto dequantize = &QuantKernels::dequantize_##suffix;      \
    static constexpr auto requantize = &QuantKernels::requantize_##suffix;      \
    static constexpr auto requantize_fixed = &QuantKernels::requantize_fixed_##suffix; \
  };
QUIRE_QUANT_KERNELS_OF(uint8_t, u8)
QUIRE_QUANT_KERNELS_OF(int8_t, s8)
QUIRE_QUANT_KERNELS_OF(uint16_t, u16)
QUIRE_QUANT_KERNELS_OF(int16_t, s16)
QUIRE_QUANT_KERNELS_OF(int32_t, s32)
#undef QUIRE_QUANT_KERNELS_OF

template <class T>
struct ChannelKernelOf;
template <>
struct ChannelKernelOf<uint8_t> {
  static constexpr auto quantize = &QuantKernels::quantize_channels_u8;
};
template <>
struct ChannelKernelOf<int8_t> {
  static constexpr auto quantize = &QuantKernels::quantize_channels_s8;
};
template <>
struct ChannelKernelOf<int32_t> {
  static constexpr auto quantize = &QuantKernels::quantize_channels_s32;
};

// The table of the path in use (IsaRecord::quant). Entry points read it once per call
// and hand it to their loops.
inline const QuantKernels& quant_kernels() { return *active_isa().quant; }

}  // namespace quire::detail
