// The per-output-channel requantization parameters of a groupwise kernel (ChannelRequant),
// copied into the lane order the kernel keeps its accumulators in. Internal linkage (see
// simd/vec_avx2.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "conv/conv_kernels.h"

namespace quire::conv {
namespace {

struct LaneParams {
  std::vector<int32_t> col_term, b_zp;  // b_zp: zeros when q.b_zp is null
  std::vector<float> mult, fbias;       // fbias: zeros when q.fbias is null

  explicit LaneParams(size_t n) : col_term(n, 0), b_zp(n, 0), mult(n, 0.0f), fbias(n, 0.0f) {}

  // Output channel oc's parameters at lane position `at`.
  void place(size_t at, const ChannelRequant& q, int oc) {
    col_term[at] = q.col_term[oc];
    if (q.b_zp != nullptr) b_zp[at] = q.b_zp[oc];
    mult[at] = q.mult[oc];
    if (q.fbias != nullptr) fbias[at] = q.fbias[oc];
  }
};

}  // namespace
}  // namespace quire::conv
