// FBGEMM's *Avx2 element-wise entry points (quire/QuantUtilsAvx2.h): the QuantUtils.h
// routines with FBGEMM's fixed 8-bit ranges, on the best path the CPU has.
#include "quire/QuantUtilsAvx2.h"

namespace quire {
namespace {

// qparams with the precision FBGEMM's *Avx2 routines take from T, whatever it says.
template <class T>
TensorQuantizationParams with_type_precision(const TensorQuantizationParams& qparams) {
  TensorQuantizationParams p = qparams;
  p.precision = 8 * sizeof(T);
  return p;
}

RequantizationParams to_8_bits(const RequantizationParams& params) {
  RequantizationParams p = params;
  p.target_qparams.precision = 8;
  return p;
}

}  // namespace

template <typename T>
void QuantizeAvx2(const float* src, T* dst, int64_t len, const TensorQuantizationParams& qparams) {
  Quantize<T>(src, dst, len, with_type_precision<T>(qparams));
}

template <typename T>
void FusedQuantizeDequantizeAvx2(const float* src, float* dst, int len,
                                 const TensorQuantizationParams& qparams, float noise_ratio) {
  FusedQuantizeDequantize<T>(src, dst, len, with_type_precision<T>(qparams), 0, 1, noise_ratio);
}

template void QuantizeAvx2<uint8_t>(const float*, uint8_t*, int64_t,
                                    const TensorQuantizationParams&);
template void QuantizeAvx2<int8_t>(const float*, int8_t*, int64_t,
                                   const TensorQuantizationParams&);
template void FusedQuantizeDequantizeAvx2<uint8_t>(const float*, float*, int,
                                                   const TensorQuantizationParams&, float);
template void FusedQuantizeDequantizeAvx2<int8_t>(const float*, float*, int,
                                                  const TensorQuantizationParams&, float);

// Marsaglia's xorshift128: t = x ^ (x << 11); (x, y, z) = (y, z, w);
// w = w ^ (w >> 19) ^ t ^ (t >> 8).
uint32_t Xor128() {
  thread_local uint32_t x = 123456789, y = 362436069, z = 521288629, w = 88675123;
  const uint32_t t = x ^ (x << 11);
  x = y;
  y = z;
  z = w;
  w = w ^ (w >> 19) ^ (t ^ (t >> 8));
  return w;
}

void RequantizeFixedPointAvx2(const int32_t* src, uint8_t* dst, int len,
                              const RequantizationParams& params) {
  RequantizeFixedPoint<uint8_t>(src, dst, len, to_8_bits(params));
}

void RequantizeAvx2(const int32_t* src, uint8_t* dst, int len, const RequantizationParams& params) {
  Requantize<uint8_t>(src, dst, len, to_8_bits(params));
}

}  // namespace quire
