// The packed form of quire::PackedInt4Weights and the thread plan of int4Gemm.
//
// Layout (docs/int4.md):
//   N is cut into panels of kPanel = 64 columns (the last one padded with code 0 and
//   scale 0); K is padded with code 0 to a multiple of 8. Panel p holds kp8 blocks of 8 K
//   values, 256 bytes each, one after another. Block t of panel p is four 64-byte chunks,
//   one per 16 columns (chunk v: columns 64p + 16v .. +15); in chunk v, byte 4 * c + r
//   holds the code of (k = 8t + r, column 16v + c) in its low nibble and the code of
//   (k = 8t + 4 + r, same column) in its high nibble. So `x & 15` and `(x >> 4) & 15` of
//   one 64-byte load are the u8 operands of two vpdpbusd steps of 4 K values for 16
//   columns, and a 32-byte half is the same for 8 columns (ymm).
//   Scales: per panel, groups x 64 values of the scale type (fp32, fp16 or bf16), group
//   g's at [g * 64, g * 64 + 64). Minimums (scale_min and zero_point kinds): the same in
//   fp32.
// Group g covers the K blocks [g * group_k8, min((g + 1) * group_k8, kp8)).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "quire/Int4Gemm.h"

namespace quire::detail {

struct AlignedBytes {
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> ptr;
  int64_t size = 0;
  void allocate(int64_t bytes);  // zeroed, 64-byte aligned, 64 bytes of slack after
  uint8_t* data() const { return ptr.get(); }
};

struct Int4Layout {
  static constexpr int32_t kVersion = 1;
  static constexpr int kPanel = 64;
  static constexpr int kBlockK = 8;
  static constexpr int kBlockBytes = kPanel * kBlockK / 2;

  int K = 0, N = 0, group_size = 0, groups = 0;
  int kp8 = 0, group_k8 = 0, panels = 0;
  Int4Kind kind = Int4Kind::symmetric;
  Int4ScaleType scale_type = Int4ScaleType::f32;
  AlignedBytes codes, scales, mins;
  std::vector<uint8_t> zero_points;  // groups x N, zero_point kind only

  // Sets the geometry from K, N, group size, kind and scale type and allocates zeroed
  // buffers. The arguments must have been checked.
  void init(int k, int n, int group, Int4Kind kd, Int4ScaleType st);

  int scale_bytes() const { return scale_type == Int4ScaleType::f32 ? 4 : 2; }
  bool has_mins() const { return kind != Int4Kind::symmetric; }
  int64_t panel_code_bytes() const { return int64_t{kp8} * kBlockBytes; }
  int64_t panel_scale_bytes() const { return int64_t{groups} * kPanel * scale_bytes(); }
  int64_t panel_mins() const { return int64_t{groups} * kPanel; }
  const uint8_t* panel_codes(int p) const { return codes.data() + p * panel_code_bytes(); }
  const uint8_t* panel_scales(int p) const { return scales.data() + p * panel_scale_bytes(); }
  const float* panel_min_values(int p) const {
    return has_mins() ? reinterpret_cast<const float*>(mins.data()) + p * panel_mins() : nullptr;
  }
  int group_first_k8(int g) const { return g * group_k8; }
  int group_k8_count(int g) const {
    const int end = (g + 1) * group_k8;
    return (end < kp8 ? end : kp8) - g * group_k8;
  }
};

// Rows of A at most for which int4Gemm runs the decode plan (N and K split).
inline constexpr int kInt4DecodeRows = 4;
// Row granularity of the M x N split for larger M (the AVX-512 tile height).
inline constexpr int kInt4SplitRows = 6;

// How num_threads threads share one call; thread t of a decode plan takes panel range
// t % n_parts and group range t / n_parts (fbgemmPartition1D of each), threads beyond
// n_parts * k_parts idle. k_parts > 1 only for M <= kInt4DecodeRows with a workspace.
struct Int4Plan {
  bool decode;
  int n_parts, k_parts;
};
Int4Plan int4_plan(int M, int panels, int groups, int num_threads, bool k_split_allowed);

}  // namespace quire::detail
