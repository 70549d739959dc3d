// The vector requantize step, written once over a vocabulary V (Avx2 in vec_avx2.h,
// Avx512 in vec_avx512.h) for the epilogue's requantization to uint8 and the array
// Requantize of the quantization kernels:
//   q = zero_point + nearbyint(clamp(x * multiplier, qmin - zero_point, qmax - zero_point))
// lane by lane, rounded half to even (vcvtps2dq under the default MXCSR). Clamping the
// scaled value before rounding gives the same integer as rounding first (the bounds are
// integers, exact as floats for |bound| <= 2^24, which every caller keeps), and keeps
// lanes beyond int32 out of vcvtps2dq. NaN becomes qmax (vminps returns its second
// operand, the bound); the quantization kernels' multipliers are finite, so none reaches
// them. The result is an int32 in [qmin, qmax]: V::store narrows it (to uint8 by a
// saturating pack that saturates nothing).
// Internal linkage (see vec_avx2.h).
#pragma once

#include <cstdint>

namespace quire::detail {
namespace {

template <class V>
class RequantizeStep {
 public:
  using F = typename V::F;
  using I = typename V::I;

  RequantizeStep(int32_t zero_point, int32_t qmin, int32_t qmax)
      : lo_(V::set1f(static_cast<float>(qmin - zero_point))),
        hi_(V::set1f(static_cast<float>(qmax - zero_point))),
        zero_point_(V::set1i(zero_point)) {}

  // x * multiplier requantized (x: the int32 sum already as float, with any float bias).
  I operator()(F x, F multiplier) const { return apply(x, multiplier, lo_, hi_, zero_point_); }

  // The same with the bounds as vectors: lo = qmin - zero_point, hi = qmax - zero_point
  // in every lane. (The epilogue keeps them as members of its own: holding a
  // RequantizeStep there changed GCC's register allocation of the row loop, 1-2% slower
  // on 32-column AVX2 blocks.)
  static I apply(F x, F multiplier, F lo, F hi, I zero_point) {
    const F y = V::max(V::min(V::mul(x, multiplier), hi), lo);
    return V::addi(V::cvtfi(y), zero_point);
  }

 private:
  F lo_, hi_;
  I zero_point_;
};

}  // namespace
}  // namespace quire::detail
