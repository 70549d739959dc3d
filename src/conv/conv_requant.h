// ChannelRequant's formula on a vector of a direct convolution kernel, over a vocabulary V
// (simd/vec_avx2.h, simd/vec_avx512.h): from raw = acc + col_term - b_zp * row_sum,
//   q = RequantizeStep<V>::apply(float(raw) [+ fbias], mult, x_hi, x_lo, c_zero_point)
//     = c_zero_point + nearbyint(max(min((float(raw) [+ fbias]) * mult, x_hi), x_lo))
// lane by lane: the one requantize step (simd/requantize.h) with both bounds in float.
// mult and fbias are the lanes' parameters, loaded by the caller (once for every vector
// that shares them); fbias is read only when FBIAS. Internal linkage.
#pragma once

#include "conv/conv_kernels.h"
#include "simd/requantize.h"

namespace quire::conv {
namespace {

template <class V, bool FBIAS>
typename V::I requantize(typename V::I raw, typename V::F fbias, typename V::F mult,
                         const ChannelRequant& q) {
  typename V::F x = V::cvtif(raw);
  if constexpr (FBIAS) x = V::add(x, fbias);
  return detail::RequantizeStep<V>::apply(x, mult, V::set1f(q.x_hi), V::set1f(q.x_lo),
                                          V::set1i(q.c_zero_point));
}

}  // namespace
}  // namespace quire::conv
