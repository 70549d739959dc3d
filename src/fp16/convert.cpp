// quire/FbgemmConvert.h: the scalar definitions (_ref), the checked entries of the vector
// loops (_avx2, _avx512), the dispatching forms (_simd) and RoundToFloat16.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu/cpu_features.h"
#include "fp16/convert_kernels.h"
#include "quire/FbgemmConvert.h"
#include "quire/detail/Check.h"
#include "cpu/isa_record.h"

namespace quire {
namespace {

void check_arrays(const void* src, const void* dst, size_t size, const char* where,
                  const char* src_name = "src", const char* dst_name = "dst") {
  if (size == 0) return;
  detail::check_not_null(src, where, src_name);
  detail::check_not_null(dst, where, dst_name);
}

// The vector loops of one instruction set, or an error naming what the CPU lacks.
const detail::ConvertKernels& kernels(bool avx512, const char* where) {
  const cpu::CpuFeatures& f = cpu::cpu_features();
  if (avx512 ? !f.avx512 : !f.avx2) {
    throw std::runtime_error(std::string(where) + ": needs " +
                             (avx512 ? "AVX-512 F/BW/VL/DQ" : "AVX2 with FMA and F16C") +
                             "; this CPU has: " + f.summary());
  }
  return avx512 ? detail::kConvertAvx512 : detail::kConvertAvx2;
}

// The loops the active record selects; null for the portable path.
const detail::ConvertKernels* active_kernels() { return detail::active_isa().convert; }

// The vector forms' bits in portable code: the clip's NaN rule depends on the position
// (convert_kernels.h).
void float_to_half_portable(const float* src, float16* dst, size_t size, bool do_clip) {
  const size_t vector_part = detail::clip_vector_part(size);
  for (size_t i = 0; i < size; ++i)
    dst[i] = cpu_float2half(do_clip ? detail::clip_to_fp16_range(src[i], i < vector_part) : src[i]);
}

}  // namespace

// ---- fp32 <-> bf16 ------------------------------------------------------------------

void FloatToBfloat16_ref(const float* src, bfloat16* dst, size_t size) {
  check_arrays(src, dst, size, "FloatToBfloat16_ref");
  for (size_t i = 0; i < size; ++i) dst[i] = cpu_float2bfloat16(src[i]);
}

void Bfloat16ToFloat_ref(const bfloat16* src, float* dst, size_t size) {
  check_arrays(src, dst, size, "Bfloat16ToFloat_ref");
  for (size_t i = 0; i < size; ++i) dst[i] = cpu_bf162float(src[i]);
}

void FloatToBfloat16_avx2(const float* src, bfloat16* dst, size_t size) {
  check_arrays(src, dst, size, "FloatToBfloat16_avx2");
  kernels(false, "FloatToBfloat16_avx2").float_to_bf16(src, dst, size);
}

void FloatToBfloat16_avx512(const float* src, bfloat16* dst, size_t size) {
  check_arrays(src, dst, size, "FloatToBfloat16_avx512");
  kernels(true, "FloatToBfloat16_avx512").float_to_bf16(src, dst, size);
}

void Bfloat16ToFloat_avx2(const bfloat16* src, float* dst, size_t size) {
  check_arrays(src, dst, size, "Bfloat16ToFloat_avx2");
  kernels(false, "Bfloat16ToFloat_avx2").bf16_to_float(src, dst, size);
}

void Bfloat16ToFloat_avx512(const bfloat16* src, float* dst, size_t size) {
  check_arrays(src, dst, size, "Bfloat16ToFloat_avx512");
  kernels(true, "Bfloat16ToFloat_avx512").bf16_to_float(src, dst, size);
}

void FloatToBfloat16_simd(const float* src, bfloat16* dst, size_t size) {
  check_arrays(src, dst, size, "FloatToBfloat16_simd");
  if (const auto* k = active_kernels()) return k->float_to_bf16(src, dst, size);
  FloatToBfloat16_ref(src, dst, size);
}

void Bfloat16ToFloat_simd(const bfloat16* src, float* dst, size_t size) {
  check_arrays(src, dst, size, "Bfloat16ToFloat_simd");
  if (const auto* k = active_kernels()) return k->bf16_to_float(src, dst, size);
  Bfloat16ToFloat_ref(src, dst, size);
}

// ---- fp32 <-> fp16 ------------------------------------------------------------------

void FloatToFloat16_ref(const float* src, float16* dst, size_t size, bool do_clip) {
  check_arrays(src, dst, size, "FloatToFloat16_ref");
  for (size_t i = 0; i < size; ++i)
    dst[i] = cpu_float2half(do_clip ? detail::clip_to_fp16_range(src[i], false) : src[i]);
}

void Float16ToFloat_ref(const float16* src, float* dst, size_t size) {
  check_arrays(src, dst, size, "Float16ToFloat_ref");
  for (size_t i = 0; i < size; ++i) dst[i] = cpu_half2float(src[i]);
}

void FloatToFloat16_avx2(const float* src, float16* dst, size_t size, bool do_clip) {
  check_arrays(src, dst, size, "FloatToFloat16_avx2");
  kernels(false, "FloatToFloat16_avx2").float_to_half(src, dst, size, do_clip);
}

void FloatToFloat16_avx512(const float* src, float16* dst, size_t size, bool do_clip) {
  check_arrays(src, dst, size, "FloatToFloat16_avx512");
  kernels(true, "FloatToFloat16_avx512").float_to_half(src, dst, size, do_clip);
}

void Float16ToFloat_avx2(const float16* src, float* dst, size_t size) {
  check_arrays(src, dst, size, "Float16ToFloat_avx2");
  kernels(false, "Float16ToFloat_avx2").half_to_float(src, dst, size);
}

void Float16ToFloat_avx512(const float16* src, float* dst, size_t size) {
  check_arrays(src, dst, size, "Float16ToFloat_avx512");
  kernels(true, "Float16ToFloat_avx512").half_to_float(src, dst, size);
}

void FloatToFloat16_simd(const float* src, float16* dst, size_t size, bool do_clip) {
  check_arrays(src, dst, size, "FloatToFloat16_simd");
  if (const auto* k = active_kernels()) return k->float_to_half(src, dst, size, do_clip);
  float_to_half_portable(src, dst, size, do_clip);
}

void Float16ToFloat_simd(const float16* src, float* dst, size_t size) {
  check_arrays(src, dst, size, "Float16ToFloat_simd");
  if (const auto* k = active_kernels()) return k->half_to_float(src, dst, size);
  Float16ToFloat_ref(src, dst, size);
}

void RoundToFloat16(const float* input, float* output, size_t size, bool clamp,
                    bool clamp_denorms) {
  check_arrays(input, output, size, "RoundToFloat16", "input", "output");
  // Converted a block at a time through a stack buffer, so that input == output works
  // and no heap memory is needed. FBGEMM converts the whole array in one call; blocks of
  // a multiple of 8 leave the same last size % 8 elements to the clip's tail rule.
  constexpr size_t kBlock = 1024;
  static_assert(kBlock % detail::kClipVectorAlign == 0);
  float16 halves[kBlock];
  constexpr float kMinNormal = 0x1p-14f;  // fp16's smallest normal
  for (size_t i = 0; i < size; i += kBlock) {
    const size_t n = std::min(kBlock, size - i);
    FloatToFloat16_simd(input + i, halves, n, clamp);
    Float16ToFloat_simd(halves, output + i, n);
    if (!clamp_denorms) continue;
    for (size_t j = i; j < i + n; ++j)
      if (std::abs(output[j]) < kMinNormal) output[j] = 0.0f;
  }
}

}  // namespace quire
