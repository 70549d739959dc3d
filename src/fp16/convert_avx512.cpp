// The array conversions of quire/FbgemmConvert.h with AVX-512: 16 values per step, and
// the remainder with masked loads and stores (no scalar tail).
#include "common/intrinsics.h"

#include <cstdint>

#include "fp16/convert_kernels.h"

namespace quire::detail {
namespace {

constexpr size_t kLanes = 16;
static_assert(kLanes % kClipVectorAlign == 0);

__mmask16 tail_mask(size_t n) { return static_cast<__mmask16>((1u << n) - 1u); }

// FBGEMM's clip (convert_kernels.h): vminps(x, m) returns m for NaN; in the lanes of
// `tail` (the call's last size % 8 elements) NaN becomes -m first, as FBGEMM's scalar
// remainder does. vcvtps2ph rounds to nearest even exactly as cpu_float2half.
template <bool kClip>
__m256i to_half(__m512 x, __mmask16 tail) {
  if constexpr (kClip) {
    const __m512 m = _mm512_set1_ps(kFp16Max), neg = _mm512_set1_ps(-kFp16Max);
    x = _mm512_mask_mov_ps(x, _mm512_mask_cmp_ps_mask(tail, x, x, _CMP_UNORD_Q), neg);
    x = _mm512_max_ps(neg, _mm512_min_ps(x, m));
  }
  return _mm512_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

template <bool kClip>
void float_to_half_loop(const float* src, float16* dst, size_t size) {
  size_t i = 0;
  for (; i + kLanes <= size; i += kLanes)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), to_half<kClip>(_mm512_loadu_ps(src + i), 0));
  if (i < size) {
    const size_t n = size - i;
    const __mmask16 m = tail_mask(n), tail = m & ~tail_mask(clip_vector_part(n));
    _mm256_mask_storeu_epi16(dst + i, m, to_half<kClip>(_mm512_maskz_loadu_ps(m, src + i), tail));
  }
}

void float_to_half(const float* src, float16* dst, size_t size, bool do_clip) {
  if (do_clip) return float_to_half_loop<true>(src, dst, size);
  float_to_half_loop<false>(src, dst, size);
}

// vcvtph2ps is cpu_half2float: exact, NaN quieted with its sign and payload.
void half_to_float(const float16* src, float* dst, size_t size) {
  size_t i = 0;
  for (; i + kLanes <= size; i += kLanes)
    _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i))));
  if (i < size) {
    const __mmask16 m = tail_mask(size - i);
    _mm512_mask_storeu_ps(dst + i, m, _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, src + i)));
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
