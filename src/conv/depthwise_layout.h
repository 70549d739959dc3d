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
// Bytes of the column weights (0 without them).
inline int64_t depthwise_column_bytes(int oc, int kernel_prod) {
  return depthwise_has_columns(oc, kernel_prod)
             ? depthwise_column_index(depthwise_column_phases(oc), 0, 0)
             : 0;
}

// After the column weights, the same layers carry the tap-pair kernel's int16 weights
// (depthwise_tap_pairs.h). Taps are paired as kTapPairs says (tap 8 with none: weight
// 0). For 16-channel group q, pair p, half h, 128-bit lane L, channel i (0..3), word e
// (0, 1) holds tap kTapPairs[p][e] of channel 16 q + 8 L + 4 h + i: the order in which
// vpunpcklwd (h = 0) and vpunpckhwd (h = 1) of two taps' widened vectors leave them.
constexpr int kTapPairCount = 5;
constexpr int kTapPairs[kTapPairCount][2] = {{0, 1}, {2, 5}, {3, 4}, {6, 7}, {8, -1}};
inline int64_t depthwise_pair_index(int q, int p, int h) {
  return ((int64_t{q} * kTapPairCount + p) * 2 + h) * 32;
}
inline int64_t depthwise_pair_bytes(int oc, int kernel_prod) {
  return depthwise_has_columns(oc, kernel_prod) ? depthwise_pair_index(oc / 16, 0, 0) : 0;
}

}  // namespace
}  // namespace quire::conv
