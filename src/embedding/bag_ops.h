// The row-decoding vocabulary embedding_simd.h runs on, over quire's vector vocabulary V
// (Avx2 or Avx512) and the few per-ISA pieces X it lacks (embedding_avx2.cpp,
// embedding_avx512.cpp): X::nibbles / X::crumbs put the W 4-bit / 2-bit elements of
// W/2 / W/4 bytes in int32 lanes, X::bf16 widens W bf16 values, X::to_half rounds to fp16
// (nearest even), X::store_u16 stores the low 16 bits of the first n lanes,
// X::broadcast2 broadcasts lanes 0 and 1 of an xmm.
#pragma once

#include <cstdint>
#include <cstring>

#include "embedding/embedding_kernels.h"
#include "embedding/embedding_simd.h"
#include "quire/FloatConversion.h"

namespace quire::detail {
namespace {

template <class V, class X>
struct BagOps {
  static constexpr int W = V::W;
  using F = typename V::F;
  using I = typename V::I;

  static F zero() { return V::zerof(); }
  static F set1(float x) { return V::set1f(x); }
  static F add(F a, F b) { return V::add(a, b); }
  static F mul(F a, F b) { return V::mul(a, b); }
  static F fmadd(F a, F b, F c) { return V::fmadd(a, b, c); }
  // Some of quantized rows' acc + bias as fma(acc, 1, bias) (embedding_simd.h).
  static constexpr bool kBiasOnFma = true;

  // A quantized row's scale and bias at p (two floats for kU8 rows, else two fp16) times
  // the row's weight w, broadcast: w * scale and w * bias, rounded once each; unweighted
  // (kWeighted false), the product by 1 is skipped: it is exact (a signaling NaN is
  // quieted by the row's add instead). Float ones broadcast from memory unweighted (a
  // load, no shuffle: bench, 8-bit rows, dims 128-1024, +4-7%), weighted by two scalar
  // multiplies from memory and two broadcasts (vector multiplies of the broadcasts were
  // 1-5% slower); fp16 ones by one conversion and one multiply for both and a shuffle
  // for each broadcast (on 4-bit rows this took the bench 7-15% further than two of
  // everything).
  template <RowFormat R, bool kWeighted>
  static void scale_bias(const uint8_t* p, float w, F& s, F& b) {
    if constexpr (R == RowFormat::kU8) {
      float sb[2];
      std::memcpy(sb, p, sizeof sb);
      s = V::set1f(kWeighted ? w * sb[0] : sb[0]);
      b = V::set1f(kWeighted ? w * sb[1] : sb[1]);
    } else {
      int32_t h;
      std::memcpy(&h, p, sizeof h);
      __m128 sb = _mm_cvtph_ps(_mm_cvtsi32_si128(h));  // exact, as cpu_half2float
      if constexpr (kWeighted) sb = _mm_mul_ps(sb, _mm_set1_ps(w));
      X::broadcast2(sb, s, b);
    }
  }

  // W elements from element e (a multiple of W) of a row's data: exactly the bytes they
  // occupy are read.
  template <RowFormat R>
  static F load(const uint8_t* data, int e) {
    const uint8_t* p = data + e * bits_per_element(R) / 8;
    if constexpr (R == RowFormat::kF32) {
      return V::loadf(reinterpret_cast<const float*>(p));
    } else if constexpr (R == RowFormat::kF16) {
      return V::load_half(reinterpret_cast<const float16*>(p));
    } else if constexpr (R == RowFormat::kBF16) {
      return X::bf16(p);
    } else if constexpr (R == RowFormat::kU8 || R == RowFormat::kU8Half) {
      return V::cvtif(V::load(p));
    } else if constexpr (R == RowFormat::kU4) {
      return V::cvtif(X::nibbles(p));
    } else {
      return V::cvtif(X::crumbs(p));
    }
  }

  // W 8-bit floats from p: the magnitude bits moved to the top of an fp32's exponent
  // (times 2^shift: vpmulld, no variable shift in the vocabulary), scaled by
  // 2^(127 - bias) exactly, then the sign bit.
  static F fp8(const uint8_t* p, int shift, float scale) {
    const I c = V::load(p);
    const I magnitude = V::mullo(V::andi(c, V::set1i(0x7f)), V::set1i(1 << shift));
    const F x = V::mul(V::as_float(magnitude), V::set1f(scale));
    return V::as_float(V::ori(V::bits(x), V::template slli<24>(V::andi(c, V::set1i(0x80)))));
  }

  // 4- and 2-bit rows G = 8 / bits vectors at a time: the G * W elements of W bytes,
  // element G * k + i in lane k of vector i (one widening load, then a shift and mask
  // per vector, instead of a shuffle, shift and mask); interleave() puts G such
  // accumulators back in element order once per bag (embedding_simd.h).
  static constexpr bool kGroups = true;
  static I load_bytes(const uint8_t* p) { return V::load(p); }  // W bytes, one per lane
  template <RowFormat R>
  static F group_part(I b, int i) {
    if constexpr (R == RowFormat::kU4) {
      return V::cvtif(i == 0 ? V::andi(b, V::set1i(15)) : V::template srli<4>(b));
    } else {
      const I m = V::set1i(3);
      switch (i) {
        case 0: return V::cvtif(V::andi(b, m));
        case 1: return V::cvtif(V::andi(V::template srli<2>(b), m));
        case 2: return V::cvtif(V::andi(V::template srli<4>(b), m));
        default: return V::cvtif(V::template srli<6>(b));
      }
    }
  }
  static void interleave(F& a, F& b) { X::interleave(a, b); }

  // The first n lanes of v to out (elements of format f) at element e.
  static void store(OutFormat f, void* out, int64_t e, F v, int n) {
    if (f == OutFormat::kF32) {
      V::store(static_cast<float*>(out) + e, typename V::Lanes(n), v);
      return;
    }
    I h;
    if (f == OutFormat::kF16) {
      h = X::to_half(v);
    } else {
      // FBGEMM's cpu_float2bfloat16: (bits + 0x8000) >> 16, ties away from zero.
      h = V::template srli<16>(V::addi(V::bits(v), V::set1i(0x8000)));
    }
    X::store_u16(static_cast<uint16_t*>(out) + e, h, n);
  }
};

}  // namespace
}  // namespace quire::detail
