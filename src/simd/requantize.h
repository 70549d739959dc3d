// The vector requantize step, written once over a vocabulary V (Avx2 in vec_avx2.h,
// Avx512 in vec_avx512.h) for the epilogue's requantization to uint8 and the array
// Requantize of the quantization kernels:
//   q = zero_point + nearbyint(clamp(x * multiplier, qmin - zero_point, qmax - zero_point))
// lane by lane, rounded half to even (vcvtps2dq under the default MXCSR). The upper bound
// is applied in float before rounding (the same integer as after it: the bounds are
// integers, exact as floats for |bound| <= 2^24, which every caller keeps). The lower
// bound goes either in float too or in int32 after rounding, where it also lifts what
// vcvtps2dq makes INT32_MIN (values below -2^31): the same results, a codegen choice per
// caller (measured on Zen 4: the int32 max is 5-9% faster for the quantization kernels'
// long arrays, where it leaves the float pipes to the multiply, the min and the
// conversion; the float max 1-2% faster in the epilogue's row loop). NaN becomes qmax
// either way (vminps returns its second operand, the bound), as round_to_u8 does; the
// quantization kernels' multipliers are finite, so no NaN reaches them. The result is an
// int32 in [qmin, qmax]: V::store narrows it (to uint8 by a pack that saturates nothing).
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
      : hi_(V::set1f(static_cast<float>(qmax - zero_point))),
        lo_(V::set1i(qmin - zero_point)),
        zero_point_(V::set1i(zero_point)) {}

  // x * multiplier requantized (x: the int32 sum already as float, with any float bias),
  // the lower bound in int32.
  I operator()(F x, F multiplier) const {
    return V::addi(V::maxi(V::cvtfi(V::min(V::mul(x, multiplier), hi_)), lo_), zero_point_);
  }

  // The same with both bounds in float, given as vectors: hi = qmax - zero_point,
  // lo = qmin - zero_point in every lane. (The epilogue keeps them as members of its own:
  // holding a RequantizeStep there changed GCC's register allocation of the row loop,
  // 1-2% slower on 32-column AVX2 blocks.)
  static I apply(F x, F multiplier, F hi, F lo, I zero_point) {
    return V::addi(V::cvtfi(V::max(V::min(V::mul(x, multiplier), hi), lo)), zero_point);
  }

 private:
  F hi_;
  I lo_, zero_point_;
};

}  // namespace
}  // namespace quire::detail
