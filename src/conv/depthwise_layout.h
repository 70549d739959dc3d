// Index arithmetic of the depthwise layouts (see depthwise_pack.cpp): where weight
// (channel c, tap t) sits in the packed matrix, and which lane of the kernels'
// accumulators holds channel c. Internal linkage: included by per-ISA files.
#pragma once

#include <cstdint>

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

}  // namespace
}  // namespace quire::conv
