// The array conversions of quire/FbgemmConvert.h with AVX-512: 16 values per step, and
// the remainder with masked loads and stores (no scalar tail).
#include "common/intrinsics.h"

#include <cstdint>

#include "fp16/convert_kernels.h"

namespace quire::detail {
namespace {

constexpr size_t kLanes = 16;

__mmask16 tail_mask(size_t n) { return static_cast<__mmask16>((1u << n) - 1u); }

// vcvtps2ph rounds to nearest even exactly as cpu_float2half; the clip is ordered so
// that NaN becomes -65504, as std::max / std::min do it (convert_kernels.h).
template <bool kClip>
__m256i to_half(__m512 x) {
  if constexpr (kClip) {
    x = _mm512_max_ps(_mm512_min_ps(_mm512_set1_ps(kFp16Max), x), _mm512_set1_ps(-kFp16Max));
  }
  return _mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

template <bool kClip>
void float_to_half_loop(const float* src, float16* dst, size_t size) {
  size_t i = 0;
  for (; i + kLanes <= size; i += kLanes)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), to_half<kClip>(_mm512_loadu_ps(src + i)));
  if (i < size) {
    const __mmask16 m = tail_mask(size - i);
    _mm256_mask_storeu_epi16(dst + i, m, to_half<kClip>(_mm512_maskz_loadu_ps(m, src + i)));
  }
}

void float_to_half(const float* src, float16* dst, size_t size, bool do_clip) {
  if (do_clip) return float_to_half_loop<true>(src, dst, size);
  float_to_half_loop<false>(src, dst, size);
}

// vcvtph2ps, then every NaN replaced by 0x7fffffff (cpu_half2float_ref).
__m512 from_half(__m256i h) {
  const __m512 x = _mm512_cvtph_ps(h);
  const __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
  return _mm512_mask_mov_ps(x, nan, _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff)));
}

void half_to_float(const float16* src, float* dst, size_t size) {
  size_t i = 0;
  for (; i + kLanes <= size; i += kLanes)
    _mm512_storeu_ps(dst + i, from_half(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i))));
  if (i < size) {
    const __mmask16 m = tail_mask(size - i);
    _mm512_mask_storeu_ps(dst + i, m, from_half(_mm256_maskz_loadu_epi16(m, src + i)));
  }
}

// (bits + 0x8000) >> 16 per lane, narrowed with vpmovdw.
__m256i to_bf16(__m512 x) {
  const __m512i u = _mm512_add_epi32(_mm512_castps_si512(x), _mm512_set1_epi32(0x8000));
  return _mm512_cvtepi32_epi16(_mm512_srli_epi32(u, 16));
}

void float_to_bf16(const float* src, bfloat16* dst, size_t size) {
  size_t i = 0;
  for (; i + kLanes <= size; i += kLanes)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), to_bf16(_mm512_loadu_ps(src + i)));
  if (i < size) {
    const __mmask16 m = tail_mask(size - i);
    _mm256_mask_storeu_epi16(dst + i, m, to_bf16(_mm512_maskz_loadu_ps(m, src + i)));
  }
}

__m512 from_bf16(__m256i b) {
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(b), 16));
}

void bf16_to_float(const bfloat16* src, float* dst, size_t size) {
  size_t i = 0;
  for (; i + kLanes <= size; i += kLanes)
    _mm512_storeu_ps(dst + i, from_bf16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i))));
  if (i < size) {
    const __mmask16 m = tail_mask(size - i);
    _mm512_mask_storeu_ps(dst + i, m, from_bf16(_mm256_maskz_loadu_epi16(m, src + i)));
  }
}

}  // namespace

const ConvertKernels kConvertAvx512{float_to_half, half_to_float, float_to_bf16, bf16_to_float};

}  // namespace quire::detail
