// The kernels of the W4A8 GEMM (docs/int4.md) and the per-path table that holds them.
// The driver (int4_gemm.cpp) reaches a path's code only through its Int4Kernels.
#pragma once

#include <cstdint>

#include "int4/int4_layout.h"

namespace quire::int4 {

using detail::Int4Layout;

// One kernel call: `rows` rows of quantized A (built into the kernel) times one panel
// (64 columns) of packed weights over a range of whole groups:
//   for each group g of the range, in order:
//     P = sum_k a * c, R = sum_k a            (int32, exact)
//     symmetric:  acc = fma(s, float(P - 8 R), acc)
//     scale_min:  acc = fma(s, float(P), acc); acc = fma(m, float(R), acc)
//   final: C = fma(a_scale, acc, bias) (relu: max(C, 0)) for the first `cols` columns;
//   else:  C = acc for all 64 columns (a partial sum of a K split).
// acc starts at 0.
struct Int4KernelArgs {
  const int8_t* a;        // quantized A at the tile's first row and the range's first k
  int64_t lda;            // bytes between rows of A (a multiple of 8)
  const int32_t* rsum;    // R of the tile's first row and the range's first group
  int64_t ld_rsum;        // int32 values between rows of rsum
  const uint8_t* codes;   // the panel's codes at the range's first K block
  const void* scales;     // the panel's scales of the range's first group (64 per group)
  const float* mins;      // the panel's minimums likewise, or null (symmetric)
  int groups;             // groups in the range (>= 1)
  int group_k8;           // K blocks of every group but the last of the range
  int last_k8;            // K blocks of the range's last group
  int64_t prefetch;       // bytes ahead of the codes to prefetch, 0 for none (AVX2 only)
  const float* a_scale;   // per row (final only)
  const float* bias;      // at the panel's first column, or null (final only)
  float* c;               // output at the tile's first row and the panel's first column
  int64_t ldc;            // floats between rows of c
  int cols;               // columns to write (final only), 1..64
  bool final_output;
  bool relu;
};
using Int4KernelFn = void (*)(const Int4KernelArgs&);

inline constexpr int kInt4MaxRows = 6;

struct Int4Kernels {
  const char* name;
  int max_rows;  // tile height: kernels exist for 1..max_rows rows
  // [scale_min][scale type][rows]
  Int4KernelFn fn[2][3][kInt4MaxRows + 1];
  // Bytes ahead of the codes the decode plan's kernels prefetch (Int4KernelArgs::prefetch),
  // 0 for none: measured per path (the kernels' files say why).
  int64_t decode_prefetch = 0;
  Int4KernelFn get(bool scale_min, Int4ScaleType st, int rows) const {
    return fn[scale_min ? 1 : 0][static_cast<int>(st)][rows];
  }
};

extern const Int4Kernels kInt4Portable;
extern const Int4Kernels kInt4Avx2;
extern const Int4Kernels kInt4Avx512;
extern const Int4Kernels kInt4Avx512Vnni;

// The kernels of each path are in its dispatch record (src/cpu/isa_record.h); int4Gemm
// reads the active record once per call and hands them down.

}  // namespace quire::int4
