// Array conversions between fp32 and fp16 / bf16 / fp8 (FBGEMM's fbgemm/FbgemmConvert.h).
//
// Every form gives FBGEMM's bits (as built with its x86 flags, F16C included) for every
// input, and the same on every instruction-set path (docs/half-precision.md, "Array
// conversions"):
//   FloatToFloat16_*:  dst[i] = cpu_float2half(x) (nearest even, overflow to inf), x = src[i],
//                      or with do_clip x = src[i] clamped to [-65504, 65504] first. A NaN
//                      clips by position, as FBGEMM's vector loops and their scalar
//                      remainder do: in _avx2 / _avx512 / _simd, +65504 in the first
//                      size - size % 8 elements of the call and -65504 in the last
//                      size % 8; in _ref (std::max(-m, std::min(x, m))), -65504 everywhere.
//   Float16ToFloat_*:  dst[i] = cpu_half2float(src[i]): exact; NaN keeps its sign and
//                      payload and gets its quiet bit set (vcvtph2ps).
//   FloatToBfloat16_*: dst[i] = cpu_float2bfloat16(src[i]) = (bits + 0x8000) >> 16.
//   Bfloat16ToFloat_*: dst[i] = cpu_bf162float(src[i]) (exact).
// _ref is the scalar loop; _avx2 and _avx512 are the vector loops (F16C / AVX-512,
// remainders included); _simd runs the one the active instruction set selects
// (fbgemmForceIsa / QUIRE_ISA): avx512 paths -> _avx512, avx2 paths -> _avx2, anyarch ->
// portable code with the vector forms' bits. Calling _avx2 / _avx512 on a CPU without
// those instructions throws std::runtime_error. A null pointer with size > 0 throws
// std::invalid_argument.
#pragma once

#include <cstddef>
#include <cstdint>

#include "quire/FloatConversion.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

void FloatToBfloat16_ref(const float* src, bfloat16* dst, size_t size);
void Bfloat16ToFloat_ref(const bfloat16* src, float* dst, size_t size);
void FloatToBfloat16_simd(const float* src, bfloat16* dst, size_t size);
void Bfloat16ToFloat_simd(const bfloat16* src, float* dst, size_t size);
void FloatToBfloat16_avx2(const float* src, bfloat16* dst, size_t size);
void FloatToBfloat16_avx512(const float* src, bfloat16* dst, size_t size);
void Bfloat16ToFloat_avx2(const bfloat16* src, float* dst, size_t size);
void Bfloat16ToFloat_avx512(const bfloat16* src, float* dst, size_t size);

void FloatToFloat16_ref(const float* src, float16* dst, size_t size, bool do_clip = false);
void Float16ToFloat_ref(const float16* src, float* dst, size_t size);
void FloatToFloat16_simd(const float* src, float16* dst, size_t size, bool do_clip = false);
void Float16ToFloat_simd(const float16* src, float* dst, size_t size);
void FloatToFloat16_avx2(const float* src, float16* dst, size_t size, bool do_clip = false);
void FloatToFloat16_avx512(const float* src, float16* dst, size_t size, bool do_clip = false);
void Float16ToFloat_avx2(const float16* src, float* dst, size_t size);
void Float16ToFloat_avx512(const float16* src, float* dst, size_t size);

// output[i] = the fp16 round trip of input[i], as FBGEMM computes it: FloatToFloat16_simd
// over the whole array with do_clip = clamp (so a NaN clips by its position in the array),
// then Float16ToFloat_simd; with clamp_denorms, a result with |x| < 2^-14 (an fp16
// subnormal) becomes +0. input and output may be the same array.
void RoundToFloat16(const float* input, float* output, size_t size, bool clamp = false,
                    bool clamp_denorms = false);

// One float to an 8-bit float with exponent_bits exponent bits, 7 - exponent_bits
// mantissa bits and the given bias, no infinities or NaN (the hfp8 formats: E4M3 with
// bias 7 or 8, E5M2 with bias 15):
//   x = fminf(|input|, max_pos), max_pos = 2^(2^e - 2 - bias) * (2 - 2^(e - 7)),
//   rounded to nearest even on the format's grid (subnormals below 2^(1 - bias)); sign
//   kept. As in FBGEMM, a quiet NaN gives max_pos; a signaling NaN, which C's fminf
//   quiets instead of ignoring, gives its payload's low byte with the sign bit.
// Throws std::invalid_argument unless 1 <= exponent_bits <= 7, exponent_bias >= 0 and
// 0 <= 2^exponent_bits - 2 - exponent_bias <= 30, or if output is null.
void FloatToFloat8_ref(float input, uint8_t* output, int exponent_bits, int exponent_bias);
// The inverse: exact (an 8-bit value is a float); the same checks.
void Float8ToFloat_ref(uint8_t input, float* output, int exponent_bits, int exponent_bias);

}  // namespace quire
QUIRE_API_END
