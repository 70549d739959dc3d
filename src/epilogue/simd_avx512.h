// The vector vocabulary of the epilogue routines (epilogue_kernels.h) on AVX-512
// (F/BW/VL/DQ): the quantization kernels' Avx512 (16 float or int32 lanes per zmm,
// quant/simd_avx512.h) plus what a block's edges and per-group parameters need: lane
// masks, loads and stores of a vector's first lanes, gathers and lane permutes. Included
// only by epilogue_avx512.cpp; internal linkage throughout, so no AVX-512 code can be
// reached from another translation unit.
#pragma once

#include <cstdint>

#include "common/intrinsics.h"
#include "epilogue/simd_tail.h"
#include "quant/simd_avx512.h"

namespace quire::detail {
namespace {

struct EpilogueAvx512 : Avx512 {
  using Avx512::load;
  using Avx512::store;

  // The first n lanes of a vector (n in [1, 16]).
  struct Lanes {
    int n;
    __mmask16 mask;

    explicit Lanes(int count)
        : n(count < W ? count : W),
          mask(static_cast<__mmask16>(n == W ? 0xFFFFu : (1u << n) - 1u)) {}
    bool full() const { return n == W; }
  };

  // Lanes past l.n are 0 and their memory is not read.
  static I load(const int32_t* p, const Lanes& l) { return _mm512_maskz_loadu_epi32(l.mask, p); }
  static F load(const float* p, const Lanes& l) { return _mm512_maskz_loadu_ps(l.mask, p); }

  // Stores the first l.n lanes; a partial vector in exact-size pieces (store_first).
  static void store(float* p, const Lanes& l, F v) {
    if (l.full())
      storef(p, v);
    else
      store_first(p, l.n, v);
  }
  static void store(int32_t* p, const Lanes& l, I v) {
    store(reinterpret_cast<float*>(p), l, _mm512_castsi512_ps(v));
  }
  // The low bytes of the first l.n lanes (all in [0, 255]).
  static void store(uint8_t* p, const Lanes& l, I v) {
    _mm512_mask_cvtepi32_storeu_epi8(p, l.mask, v);
  }

  static F broadcast(float v) { return set1f(v); }
  static I broadcast(int32_t v) { return set1i(v); }
  // Lane i = a[idx[i]] for i < l.n, 0 past.
  static F gather(const float* a, I idx, const Lanes& l) {
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), l.mask, idx, a, 4);
  }
  static I gather(const int32_t* a, I idx, const Lanes& l) {
    return _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), l.mask, idx, a, 4);
  }
  // Lane i = v[idx[i]].
  static F permute(F v, I idx) { return _mm512_permutexvar_ps(idx, v); }
  static I permute(I v, I idx) { return _mm512_permutexvar_epi32(idx, v); }
  static F div(F a, F b) { return _mm512_div_ps(a, b); }
  static I mullo(I a, I b) { return _mm512_mullo_epi32(a, b); }  // modulo 2^32

 private:
  // Stores the first n (< 16) lanes of v: 8, then the rest as store_first_f32 does (never
  // by one masked store, for the reason given there).
  static void store_first(float* p, int n, F v) {
    __m256 y = _mm512_castps512_ps256(v);
    if (n & 8) {
      _mm256_storeu_ps(p, y);
      y = _mm512_extractf32x8_ps(v, 1);
      p += 8;
    }
    store_first_f32(p, n & 7, y);
  }
};

}  // namespace
}  // namespace quire::detail
