// Index arithmetic of the depthwise layouts (see depthwise_pack.cpp): where weight
// (channel c, tap t) sits in the packed matrix, and which lane of the kernels'
// accumulators holds channel c. Internal linkage: included by per-ISA files.
#pragma once

#include <cstdint>
#include <numeric>

namespace quire::conv {
namespace {

// Channel c of a 64-channel block is in accumulator j = (c % 16) / 4, lane 4 L + d with
// L = (c % 64) / 16, d = c % 4: the lane order the in-lane unpacks produce.
inline int depthwise_lane_index(int c) {
  return 64 * (c / 64) + 16 * ((c % 16) / 4) + 4 * ((c % 64) / 16) + c % 4;
}

inline int64_t depthwise_packed_index(int c, int t, int quads) {
  return (((int64_t{c / 64} * quads + t / 4) * 4 + (c % 16) / 4) * 64) + 16 * ((c % 64) / 16) +
         4 * (c % 4) + t % 4;
}

// 3x3 weights with OC a multiple of 16 also carry, after the quads, the row kernel's
// column weights (depthwise_rows_avx512vnni.cpp): output lanes hold channels (f + i) mod
// OC, which repeat every lcm(OC, 64) bytes, that is every `phases` blocks of 64. Phase p,
// kernel column kw, chunk j, lane L, dword d, byte r holds tap 3 r + kw of channel
// (64 p + 16 L + 4 j + d) mod OC for r < 3, and 0 for r = 3.
inline bool depthwise_has_columns(int oc, int kernel_prod) {
  return kernel_prod == 9 && oc % 16 == 0;
}
inline int depthwise_column_phases(int oc) { return oc / std::gcd(oc, 64); }
inline int64_t depthwise_column_index(int p, int kw, int j) {
  return (int64_t{p} * 3 + kw) * 256 + j * 64;
}

}  // namespace
}  // namespace quire::conv
