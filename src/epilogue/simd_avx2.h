// The vector vocabulary of the epilogue routines (epilogue_kernels.h) on AVX2: the
// quantization kernels' Avx2 (8 float or int32 lanes per ymm, quant/simd_avx2.h) plus
// what a block's edges and per-group parameters need: lane masks, loads and stores of a
// vector's first lanes, gathers and lane permutes. Included only by epilogue_avx2.cpp;
// internal linkage throughout, so no AVX2 code leaks into another translation unit.
#pragma once

#include <cstdint>
#include <cstring>

#include "common/intrinsics.h"
#include "epilogue/simd_tail.h"
#include "quant/simd_avx2.h"

namespace quire::detail {
namespace {

struct EpilogueAvx2 : Avx2 {
  using Avx2::load;
  using Avx2::store;

  // The first n lanes of a vector (n in [1, 8]).
  struct Lanes {
    int n;
    I mask;  // all ones in lanes < n

    explicit Lanes(int count) : n(count < W ? count : W) {
      // A sliding window over {-1 x 8, 0 x 8}.
      alignas(64) static constexpr int32_t kTable[2 * W] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                                            0,  0,  0,  0,  0,  0,  0,  0};
      mask = _mm256_loadu_si256(reinterpret_cast<const I*>(kTable + W - n));
    }
    bool full() const { return n == W; }
  };

  // Lanes past l.n are 0 and their memory is not read.
  static I load(const int32_t* p, const Lanes& l) {
    return l.full() ? load(p) : _mm256_maskload_epi32(p, l.mask);
  }
  static F load(const float* p, const Lanes& l) {
    return l.full() ? loadf(p) : _mm256_maskload_ps(p, l.mask);
  }

  // Stores the first l.n lanes; a partial vector in exact-size pieces (store_first_f32).
  static void store(float* p, const Lanes& l, F v) {
    if (l.full())
      storef(p, v);
    else
      store_first_f32(p, l.n, v);
  }
  static void store(int32_t* p, const Lanes& l, I v) {
    store(reinterpret_cast<float*>(p), l, _mm256_castsi256_ps(v));
  }
  // The low bytes of the first l.n lanes (all in [0, 255], so packing saturates nothing).
  // [[likely]] keeps the full store on the fall-through path: GCC otherwise places it out
  // of line with a jump back, and blocks 8 columns wide ran 1.4x slower (measured).
  static void store(uint8_t* p, const Lanes& l, I v) {
    if (l.full()) [[likely]]
      store(p, v);
    else
      store_first_bytes(p, l.n, to_bytes(v));
  }

  static F broadcast(float v) { return set1f(v); }
  static I broadcast(int32_t v) { return set1i(v); }
  // Lane i = a[idx[i]] for i < l.n, 0 past.
  static F gather(const float* a, I idx, const Lanes& l) {
    return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), a, idx, _mm256_castsi256_ps(l.mask), 4);
  }
  static I gather(const int32_t* a, I idx, const Lanes& l) {
    return _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), a, idx, l.mask, 4);
  }
  // Lane i = v[idx[i]].
  static F permute(F v, I idx) { return _mm256_permutevar8x32_ps(v, idx); }
  static I permute(I v, I idx) { return _mm256_permutevar8x32_epi32(v, idx); }
  static F div(F a, F b) { return _mm256_div_ps(a, b); }
  static I mullo(I a, I b) { return _mm256_mullo_epi32(a, b); }  // modulo 2^32

 private:
  // Stores the first n (< 8) bytes of `bytes` with fixed-size moves.
  static void store_first_bytes(uint8_t* out, int n, __m128i bytes) {
    auto word = static_cast<uint64_t>(_mm_cvtsi128_si64(bytes));
    if (n & 4) {
      const auto w = static_cast<uint32_t>(word);
      std::memcpy(out, &w, 4);
      word >>= 32;
      out += 4;
    }
    if (n & 2) {
      const auto w = static_cast<uint16_t>(word);
      std::memcpy(out, &w, 2);
      word >>= 16;
      out += 2;
    }
    if (n & 1) *out = static_cast<uint8_t>(word);
  }
};

}  // namespace
}  // namespace quire::detail
