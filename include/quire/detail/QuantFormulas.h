// The argument records and scalar formulas of quire/QuantUtils.h's element functions
// (Quantize, Dequantize, Requantize), shared with the library's vectorized array routines
// (src/quant/quant_kernels.h), which compute the same formulas lane by lane. Rounding is
// the default mode: round half to even (nearbyint).
#pragma once

#include <cmath>
#include <cstdint>

#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire::detail {

inline namespace QUIRE_ABI_NAMESPACE {

// float -> integer quantization with a saturating store:
//   t = src * inv_scale                     (inv_scale = 1.0f / scale, in float)
//   current: r = nearbyint(t) + zero_point  (float addition; FBGEMM's Quantize)
//   legacy:  r = nearbyint(t + zero_point)  (the Caffe2 rounding FBGEMM dropped)
//   out = r < qmin or NaN ? qmin : r > qmax ? qmax : (int32)r
// qmin_f is (float)qmin, which must be exact (true for every precision's qmin);
// qmax_f is the largest float <= qmax, so r > qmax_f means r > qmax.
struct QuantizeArgs {
  float inv_scale;
  float zero_point;
  int32_t qmin;
  int32_t qmax;
  float qmin_f;
  float qmax_f;
  bool legacy;
};

// int32 -> integer with a float multiplier:
//   r = nearbyint((float)src * multiplier)   (float multiply)
//   v = (double)zero_point + (double)r      (exact)
//   out = v < qmin or NaN ? qmin : v > qmax ? qmax : (int32)v
struct RequantizeArgs {
  float multiplier;
  int32_t zero_point;
  int32_t qmin;
  int32_t qmax;
};

}  // namespace QUIRE_ABI_NAMESPACE

// qmin must be exactly representable in float (every precision's qmin is).
inline QuantizeArgs make_quantize_args(float inv_scale, int32_t zero_point, int32_t qmin,
                                       int32_t qmax, bool legacy) {
  float qmax_f = static_cast<float>(qmax);
  if (static_cast<double>(qmax_f) > qmax) qmax_f = std::nextafter(qmax_f, -INFINITY);
  return {inv_scale, static_cast<float>(zero_point), qmin, qmax, static_cast<float>(qmin),
          qmax_f, legacy};
}

// Out of line, in the library (built with -ffp-contract=off): inlined into a client
// built with contraction on, src * inv_scale + zero_point could become one fused
// multiply-add and round differently from the vector paths.
int32_t quantize_one(float src, const QuantizeArgs& a);

template <class T>
float dequantize_one(T src, float scale, int32_t zero_point) {
  return scale * static_cast<float>(static_cast<double>(src) - static_cast<double>(zero_point));
}

inline int32_t requantize_one(int32_t src, const RequantizeArgs& a) {
  const float r = std::nearbyint(static_cast<float>(src) * a.multiplier);
  const double v = static_cast<double>(a.zero_point) + static_cast<double>(r);
  if (!(v >= a.qmin)) return a.qmin;  // also NaN
  if (v > a.qmax) return a.qmax;
  return static_cast<int32_t>(v);
}

}  // namespace quire::detail
QUIRE_API_END
