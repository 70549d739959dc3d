// The array conversions of quire/FbgemmConvert.h with AVX2 and F16C: 8 values per step
// (16 for fp32 -> bf16, whose narrowing packs two vectors). The remainder goes through a
// zero-padded block on the stack and the same vector code (only the clip's NaN rule
// tells it apart), so every element has FBGEMM's bits.
#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "fp16/convert_kernels.h"

namespace quire::detail {
namespace {

constexpr size_t kLanes = 8;

// Runs step(in, out, is_tail) over size elements, kStep at a time; a last partial step
// reads and writes through padded copies, with is_tail = std::true_type.
template <size_t kStep, class In, class Out, class Step>
void for_each_step(const In* src, Out* dst, size_t size, Step step) {
  size_t i = 0;
  for (; i + kStep <= size; i += kStep) step(src + i, dst + i, std::false_type{});
  if (i == size) return;
  In in[kStep] = {};
  Out out[kStep];
  std::memcpy(in, src + i, sizeof(In) * (size - i));
  step(in, out, std::true_type{});
  std::memcpy(dst + i, out, sizeof(Out) * (size - i));
}

static_assert(kLanes == kClipVectorAlign);

// FBGEMM's clip (convert_kernels.h): vminps(x, m) returns m for NaN; in the last
// size % 8 elements (the tail) NaN becomes -m first, as FBGEMM's scalar remainder does.
template <bool kTail>
__m256 clip(__m256 x) {
  const __m256 m = _mm256_set1_ps(kFp16Max), neg = _mm256_set1_ps(-kFp16Max);
  if constexpr (kTail) x = _mm256_blendv_ps(x, neg, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
  return _mm256_max_ps(neg, _mm256_min_ps(x, m));
}

// vcvtps2ph rounds to nearest even exactly as cpu_float2half.
template <bool kClip>
void float_to_half_loop(const float* src, float16* dst, size_t size) {
  for_each_step<kLanes>(src, dst, size, [](const float* in, float16* out, auto tail) {
    __m256 x = _mm256_loadu_ps(in);
    if constexpr (kClip) x = clip<decltype(tail)::value>(x);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out),
                     _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  });
}

void float_to_half(const float* src, float16* dst, size_t size, bool do_clip) {
  if (do_clip) return float_to_half_loop<true>(src, dst, size);
  float_to_half_loop<false>(src, dst, size);
}

// vcvtph2ps is cpu_half2float: exact, NaN quieted with its sign and payload.
void half_to_float(const float16* src, float* dst, size_t size) {
  for_each_step<kLanes>(src, dst, size, [](const float16* in, float* out, auto) {
    _mm256_storeu_ps(out, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in))));
  });
}

// (bits + 0x8000) >> 16 per lane; the results fit 16 bits, so vpackusdw narrows them
// exactly, and vpermq puts the two vectors' halves back in order.
void float_to_bf16(const float* src, bfloat16* dst, size_t size) {
  for_each_step<2 * kLanes>(src, dst, size, [](const float* in, bfloat16* out, auto) {
    const __m256i half = _mm256_set1_epi32(0x8000);
    const __m256i lo = _mm256_srli_epi32(
        _mm256_add_epi32(_mm256_castps_si256(_mm256_loadu_ps(in)), half), 16);
    const __m256i hi = _mm256_srli_epi32(
        _mm256_add_epi32(_mm256_castps_si256(_mm256_loadu_ps(in + kLanes)), half), 16);
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xd8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), packed);
  });
}

void bf16_to_float(const bfloat16* src, float* dst, size_t size) {
  for_each_step<kLanes>(src, dst, size, [](const bfloat16* in, float* out, auto) {
    const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_slli_epi32(w, 16));
  });
}

}  // namespace

const ConvertKernels kConvertAvx2{float_to_half, half_to_float, float_to_bf16, bf16_to_float};

}  // namespace quire::detail
