// The quantization kernels, written once over the vector vocabulary V (Avx2 in
// simd/vec_avx2.h, Avx512 in simd/vec_avx512.h) and compiled in each ISA's translation unit.
// Every kernel computes the formula of src/quant/quant_kernels.h lane by lane, with
// the same float operations in the same order as the scalar form, so each table gives
// the bits kQuantPortable gives. Tails (len % W elements) run through the same vector
// code on padded stack buffers. Internal linkage throughout (see simd/vec_avx2.h).
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

#include "quant/quant_kernels.h"
#include "simd/requantize.h"

// The per-vector lambdas must inline into their loops: an outlined one costs a call
// and a vector spill per W elements.
#define QUIRE_ALWAYS_INLINE __attribute__((always_inline))

namespace quire::detail {
namespace {

// Bytes ahead of the source that the array loops prefetch. Measured on the Xeon 6/207
// (quire-micro-bench, 4 Mi elements, 16 MiB of floats, machine shared and loaded):
// Quantize<u8> avx2 0.38-0.58 of memcpy's GB/s without, 0.91-1.2 with; Requantize
// and RequantizeFixedPoint likewise; at 1 Mi elements (in L3) no loss.
constexpr int kPrefetchAhead = 2048;

// Prefetches the source bytes [p + kPrefetchAhead, + bytes), one line at a time.
inline void prefetch_ahead(const void* p, int bytes) {
  for (int l = 0; l < bytes; l += 64)
    __builtin_prefetch(static_cast<const char*>(p) + kPrefetchAhead + l);
}

// body(in, out) converts one vector of W elements. Four vectors per step keep several
// conversions in flight, and the source is prefetched; the last len % W elements go
// through buffers filled with pad.
template <class V, class S, class D, class Body>
inline void for_each_vector(const S* src, D* dst, int64_t len, S pad, Body&& body) {
  constexpr int W = V::W;
  int64_t i = 0;
  for (; i + 4 * W <= len; i += 4 * W) {
    prefetch_ahead(src + i, 4 * W * int{sizeof(S)});
    body(src + i, dst + i);
    body(src + i + W, dst + i + W);
    body(src + i + 2 * W, dst + i + 2 * W);
    body(src + i + 3 * W, dst + i + 3 * W);
  }
  for (; i + W <= len; i += W) body(src + i, dst + i);
  if (i < len) {
    const auto n = static_cast<size_t>(len - i);
    S in[W];
    D out[W];
    for (S& v : in) v = pad;
    std::memcpy(in, src + i, n * sizeof(S));
    body(in, out);
    std::memcpy(dst + i, out, n * sizeof(D));
  }
}

// Converts lanes(in) -> T for every vector of src: four at a time through V::store4
// (prefetching the source), then the rest through for_each_vector.
template <class V, class S, class T, class Lanes>
inline void store_lanes(const S* src, T* dst, int64_t len, S pad, Lanes&& lanes) {
  constexpr int W = V::W;
  int64_t i = 0;
  for (; i + 4 * W <= len; i += 4 * W) {
    prefetch_ahead(src + i, 4 * W * int{sizeof(S)});
    V::store4(dst + i, lanes(src + i), lanes(src + i + W), lanes(src + i + 2 * W),
              lanes(src + i + 3 * W));
  }
  for_each_vector<V>(src + i, dst + i, len - i, pad,
                     [&](const S* in, T* out) QUIRE_ALWAYS_INLINE { V::store(out, lanes(in)); });
}

// True when q - zero_point cannot overflow int32 for q in [lo, hi]: the difference is
// then exact in int32 and vcvtdq2ps rounds it exactly as (float)(double) does.
constexpr bool int_difference_exact(int64_t lo, int64_t hi, int32_t zero_point) {
  return lo - zero_point >= std::numeric_limits<int32_t>::min() &&
         hi - zero_point <= std::numeric_limits<int32_t>::max();
}

// quantize_one for a vector. With v the value before rounding (t + zp when legacy,
// nearbyint(t) + zp otherwise):
//   q = max_int(cvt(min(qmax_f, v)), qmin)
// vminps returns its second operand, v, when v is NaN; vcvtps2dq rounds half to even and
// turns NaN and values below -2^31 into INT32_MIN, which the integer max lifts to qmin.
// Rounding inside vcvtps2dq instead of before the clamp gives the same code: qmax_f is
// an integer, so v <= qmax_f rounds to at most qmax_f. Lanes with v above qmax_f become
// qmax (kFixTop: only needed when qmax is not a float, where floats are integers).
template <class V, bool kLegacy, bool kFixTop>
struct QuantizeLanes {
  typename V::F inv, zp, hi;
  typename V::I lo, top;
  explicit QuantizeLanes(const QuantizeArgs& a)
      : inv(V::set1f(a.inv_scale)),
        zp(V::set1f(a.zero_point)),
        hi(V::set1f(a.qmax_f)),
        lo(V::set1i(a.qmin)),
        top(V::set1i(a.qmax)) {}
  typename V::I operator()(typename V::F x, typename V::F inv_scale,
                           typename V::F zero_point) const {
    const typename V::F t = V::mul(x, inv_scale);
    const typename V::F v = kLegacy ? V::add(t, zero_point) : V::add(V::round(t), zero_point);
    const typename V::I q = V::maxi(V::cvtfi(V::min(hi, v)), lo);
    return kFixTop ? V::select_gt(v, hi, q, top) : q;
  }
  typename V::I operator()(typename V::F x) const { return (*this)(x, inv, zp); }
};

bool needs_fix_top(const QuantizeArgs& a) { return static_cast<double>(a.qmax_f) < a.qmax; }

template <class V, class T, bool kLegacy, bool kFixTop>
void quantize_impl(const float* src, T* dst, int64_t len, const QuantizeArgs& a) {
  const QuantizeLanes<V, kLegacy, kFixTop> lanes(a);
  store_lanes<V>(src, dst, len, 0.0f,
                 [&](const float* in) QUIRE_ALWAYS_INLINE { return lanes(V::loadf(in)); });
}

template <class V, class T>
void quantize(const float* src, T* dst, int64_t len, const QuantizeArgs& a) {
  const bool fix = needs_fix_top(a);
  if (a.legacy) {
    fix ? quantize_impl<V, T, true, true>(src, dst, len, a)
        : quantize_impl<V, T, true, false>(src, dst, len, a);
  } else {
    fix ? quantize_impl<V, T, false, true>(src, dst, len, a)
        : quantize_impl<V, T, false, false>(src, dst, len, a);
  }
}

template <class V, class T, bool kFixTop>
void quantize_channels_impl(const float* src, T* dst, int64_t len, const float* inv_scale,
                            const float* zero_point, const QuantizeArgs& a) {
  constexpr int W = V::W;
  const QuantizeLanes<V, false, kFixTop> lanes(a);
  auto body = [&](const float* in, const float* inv, const float* zp, T* out) QUIRE_ALWAYS_INLINE {
    V::store(out, lanes(V::loadf(in), V::loadf(inv), V::loadf(zp)));
  };
  int64_t i = 0;
  for (; i + W <= len; i += W) body(src + i, inv_scale + i, zero_point + i, dst + i);
  if (i < len) {
    const auto n = static_cast<size_t>(len - i);
    float in[W] = {}, inv[W] = {}, zp[W] = {};
    T out[W];
    std::memcpy(in, src + i, n * sizeof(float));
    std::memcpy(inv, inv_scale + i, n * sizeof(float));
    std::memcpy(zp, zero_point + i, n * sizeof(float));
    body(in, inv, zp, out);
    std::memcpy(dst + i, out, n * sizeof(T));
  }
}

template <class V, class T>
void quantize_channels(const float* src, T* dst, int64_t len, const float* inv_scale,
                       const float* zero_point, const QuantizeArgs& a) {
  needs_fix_top(a) ? quantize_channels_impl<V, T, true>(src, dst, len, inv_scale, zero_point, a)
                   : quantize_channels_impl<V, T, false>(src, dst, len, inv_scale, zero_point, a);
}

// (float)((double)q - zero_point) for a vector: the int32 difference when no lane
// overflows (q and zp of different signs with a difference of q's sign: the
// xor test below), else through double. Either way the exact difference rounded once.
template <class V>
typename V::F difference(typename V::I q, typename V::I zp, int32_t zero_point) {
  const typename V::I d = V::subi(q, zp);
  if (V::any_negative(V::andi(V::xori(q, zp), V::xori(q, d)))) {
    return V::diff_to_float(q, zero_point);
  }
  return V::cvtif(d);
}

template <class V, class T>
void dequantize(const T* src, float* dst, int64_t len, float scale, int32_t zero_point) {
  const typename V::F s = V::set1f(scale);
  const typename V::I z = V::set1i(zero_point);
  if (int_difference_exact(std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max(),
                           zero_point)) {
    for_each_vector<V>(src, dst, len, T{0}, [&](const T* in, float* out) QUIRE_ALWAYS_INLINE {
      V::storef(out, V::mul(s, V::cvtif(V::subi(V::load(in), z))));
    });
  } else {
    for_each_vector<V>(src, dst, len, T{0}, [&](const T* in, float* out) QUIRE_ALWAYS_INLINE {
      V::storef(out, V::mul(s, difference<V>(V::load(in), z, zero_point)));
    });
  }
}

template <class V, bool kFixTop, bool kIntDiff>
void fused_impl(const float* src, float* dst, int64_t len, const QuantizeArgs& a, float scale,
                int32_t zero_point) {
  const QuantizeLanes<V, false, kFixTop> lanes(a);
  const typename V::F s = V::set1f(scale);
  const typename V::I z = V::set1i(zero_point);
  for_each_vector<V>(src, dst, len, 0.0f, [&](const float* in, float* out) QUIRE_ALWAYS_INLINE {
    const typename V::I q = lanes(V::loadf(in));
    V::storef(out, V::mul(s, kIntDiff ? V::cvtif(V::subi(q, z)) : V::diff_to_float(q, zero_point)));
  });
}

template <class V>
void fused_quantize_dequantize(const float* src, float* dst, int64_t len, const QuantizeArgs& a,
                               float scale, int32_t zero_point) {
  const bool fix = needs_fix_top(a), exact = int_difference_exact(a.qmin, a.qmax, zero_point);
  if (fix) {
    exact ? fused_impl<V, true, true>(src, dst, len, a, scale, zero_point)
          : fused_impl<V, true, false>(src, dst, len, a, scale, zero_point);
  } else {
    exact ? fused_impl<V, false, true>(src, dst, len, a, scale, zero_point)
          : fused_impl<V, false, false>(src, dst, len, a, scale, zero_point);
  }
}

// min(x, acc) keeps acc when x is NaN, so NaN never enters the accumulators; padding
// is NaN for the same reason. The prefetch also serves the row-wise quantizers, whose
// rows are contiguous: their min / max pass is a row's first read.
template <class V>
void find_min_max(const float* src, int64_t len, float* min, float* max) {
  constexpr int W = V::W;
  const float inf = std::numeric_limits<float>::infinity();
  typename V::F lo[4], hi[4];
  for (int k = 0; k < 4; ++k) {
    lo[k] = V::set1f(inf);
    hi[k] = V::set1f(-inf);
  }
  int64_t i = 0;
  for (; i + 4 * W <= len; i += 4 * W) {
    prefetch_ahead(src + i, 4 * W * int{sizeof(float)});
    for (int k = 0; k < 4; ++k) {
      const typename V::F x = V::loadf(src + i + k * W);
      lo[k] = V::min(x, lo[k]);
      hi[k] = V::max(x, hi[k]);
    }
  }
  for (; i < len; i += W) {
    float buf[W];
    const float* p = src + i;
    if (i + W > len) {
      for (float& v : buf) v = std::numeric_limits<float>::quiet_NaN();
      std::memcpy(buf, src + i, static_cast<size_t>(len - i) * sizeof(float));
      p = buf;
    }
    const typename V::F x = V::loadf(p);
    lo[0] = V::min(x, lo[0]);
    hi[0] = V::max(x, hi[0]);
  }
  const typename V::F l = V::min(V::min(lo[0], lo[1]), V::min(lo[2], lo[3]));
  const typename V::F h = V::max(V::max(hi[0], hi[1]), V::max(hi[2], hi[3]));
  *min = V::hmin(l) + 0.0f;  // -0 -> +0
  *max = V::hmax(h) + 0.0f;
}

template <class V, class T>
void requantize(const int32_t* src, T* dst, int64_t len, const RequantizeArgs& a) {
  const typename V::F m = V::set1f(a.multiplier);
  const int64_t lo = int64_t{a.qmin} - a.zero_point, hi = int64_t{a.qmax} - a.zero_point;
  constexpr int64_t kExact = int64_t{1} << 24;  // integers up to here are floats
  if (lo >= -kExact && hi <= kExact) {
    // zero_point + clamp(nearbyint(v), qmin - zp, qmax - zp), the same as clamping the
    // sum (the multiplier is finite, so v is never NaN).
    const RequantizeStep<V> step(a.zero_point, a.qmin, a.qmax);
    store_lanes<V>(src, dst, len, 0, [&](const int32_t* in) QUIRE_ALWAYS_INLINE {
      return step(V::cvtif(V::load(in)), m);
    });
  } else {
    store_lanes<V>(src, dst, len, 0, [&](const int32_t* in) QUIRE_ALWAYS_INLINE {
      const typename V::F r = V::round(V::mul(V::cvtif(V::load(in)), m));
      return V::add_clamp_wide(r, a.zero_point, a.qmin, a.qmax);
    });
  }
}

// right_shift in [32, 62] with [qmin - zp, qmax - zp] inside int32 (the usual case):
// with p + 2^(s-1) below 2^62 + 2^61 (no overflow), the rounded quotient
// floor((p + 2^(s-1)) / 2^s) is the arithmetic shift of its high dword by s - 32, and
// it fits int32 (|p| <= 2^62), so the clamp and zero point are int32 operations.
template <class V, class T>
void requantize_fixed_high(const int32_t* src, T* dst, int64_t len, const RequantizeFixedArgs& a) {
  const typename V::I m = V::set1i(a.multiplier);
  const typename V::I nudge = V::set1_64(int64_t{1} << (a.right_shift - 1));
  const typename V::I lo = V::set1i(a.qmin - a.zero_point), hi = V::set1i(a.qmax - a.zero_point);
  const typename V::I z = V::set1i(a.zero_point);
  const int shift = a.right_shift - 32;
  store_lanes<V>(src, dst, len, 0, [&](const int32_t* in) QUIRE_ALWAYS_INLINE {
    const typename V::I x = V::load(in);
    const typename V::I even = V::add64(V::mul_even(x, m), nudge);
    const typename V::I odd = V::add64(V::mul_even(V::odd_to_even(x), m), nudge);
    const typename V::I q = V::srai(V::high_dwords(even, odd), shift);
    return V::addi(V::mini(V::maxi(q, lo), hi), z);
  });
}

template <class V, class T, bool kShift>
void requantize_fixed_wide(const int32_t* src, T* dst, int64_t len, const RequantizeFixedArgs& a) {
  const typename V::I m = V::set1i(a.multiplier);
  store_lanes<V>(src, dst, len, 0, [&](const int32_t* in) QUIRE_ALWAYS_INLINE {
    return V::template requantize_fixed<kShift>(V::load(in), m, a.right_shift, a.zero_point, a.qmin,
                                                a.qmax);
  });
}

template <class V, class T>
void requantize_fixed(const int32_t* src, T* dst, int64_t len, const RequantizeFixedArgs& a) {
  if (a.right_shift >= 32 && a.right_shift <= 62 &&
      int_difference_exact(a.qmin, a.qmax, a.zero_point)) {
    requantize_fixed_high<V, T>(src, dst, len, a);
  } else if (a.right_shift == 0) {
    requantize_fixed_wide<V, T, false>(src, dst, len, a);
  } else {
    requantize_fixed_wide<V, T, true>(src, dst, len, a);
  }
}

}  // namespace
}  // namespace quire::detail

#include "quant/simd_rowwise.h"
