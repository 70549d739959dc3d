// The kernels of the packed-weight GEMM (fp16, bf16 and fp32 weights) and the per-path
// table that holds them (docs/half-precision.md). The driver (half_gemm.cpp) reaches a path's code only
// through its HalfKernelSet, picked once per call.
#pragma once

#include <cstdint>

#include "half_gemm.h"  // same folder: tests include this header by path

namespace quire::detail {

// One kernel call: a tile of MR rows (built into the kernel) x up to `width` columns of
// C, over the `steps` K steps of one K block.
//   acc = beta == 0 ? 0 : beta * C      (beta is 1 after the first K block)
//   acc += A * B step by step in K order (the step bodies of FbgemmFP16.h), C = acc
struct HalfKernelArgs {
  const void* a;      // A at the tile's first row and the block's first k
  int64_t lda;        // A elements (float or bf16) between rows
  const void* b;      // packed B at the tile's first column and the block's first step
  // Weights to prefetch, walked like b (same vector offsets, same step): b a little
  // ahead, or where the next column group will read (see half_gemm.cpp).
  const void* prefetch;
  int64_t b_panel;    // elements between consecutive panels (half_panel_elems)
  float* c;           // C at the tile's top-left element
  int64_t ldc;        // floats between rows of C
  int64_t steps;      // k values (fp16, fp32) or pairs of k (bf16) in the block
  int cols;           // columns of C written: the tile width, or fewer in an edge tile
  float beta;
};
using HalfKernelFn = void (*)(const HalfKernelArgs&);

struct HalfTile {
  HalfKernelFn fn;
  int width;  // columns; a tile wider than a panel starts on a panel boundary
};

// How the kernels of a path read A: row-major rows lda elements apart.
enum class AFormat : uint8_t {
  f32,         // fp32 as given (fp16, fp32 weights): the caller's A, in place unless transposed
  f32_pairs,   // fp32 rounded to bf16, rows zero-padded to even length (bf16 FMA kernels)
  bf16_pairs,  // bf16, rows zero-padded to even length (vdpbf16ps kernels)
};

// Converts rows x cols of A (element (r, c) at src[r * ld + c], of type act) into fmt at
// dst, rows ld_dst elements apart, writing zeros in columns [cols, cols_pad).
using ConvertAFn = void (*)(const void* src, ActType act, int64_t ld, int rows, int cols,
                            int cols_pad, void* dst, int64_t ld_dst);

// The same for any format, A transposed or not (element (r, c) at src[c * ld + r] when
// transposed), in scalar code; the vector converters give the same values.
void convert_a_scalar(AFormat fmt, const void* src, ActType act, int64_t ld, bool transposed,
                      int rows, int cols, int cols_pad, void* dst, int64_t ld_dst);

inline constexpr int kHalfMaxMr = 14;

struct HalfKernelSet {
  const char* name;
  HalfType weights;
  AFormat a_format;
  int mr_max;  // tile rows, at most kHalfMaxMr
  int mcb;     // rows of A per block: the converted block stays in L2
  // Indexed by tile rows (1..mr_max): main tiles run full (cols == width); edge tiles,
  // at most one panel wide, take any cols in [1, width].
  HalfTile main[kHalfMaxMr + 1];
  HalfTile edge[kHalfMaxMr + 1];
  ConvertAFn convert_a;  // A not transposed; null for AFormat::f32
};

extern const HalfKernelSet kHalfFp16Portable;
extern const HalfKernelSet kHalfBf16Portable;
extern const HalfKernelSet kHalfFp16Avx2;
extern const HalfKernelSet kHalfBf16Avx2;
extern const HalfKernelSet kHalfFp16Avx512;
extern const HalfKernelSet kHalfBf16Avx512;
extern const HalfKernelSet kHalfBf16Avx512Bf16;
extern const HalfKernelSet kHalfFp32Portable;
extern const HalfKernelSet kHalfFp32Avx2;
extern const HalfKernelSet kHalfFp32Avx512;

// AVX-512 converter for AFormat::bf16_pairs (kernels_avx512.cpp), used by the vdpbf16ps
// path: the conversion needs only AVX-512F/BW.
void convert_a_bf16_pairs_avx512(const void* src, ActType act, int64_t ld, int rows, int cols,
                                 int cols_pad, void* dst, int64_t ld_dst);

// Offset in packed elements of column col (counted from a panel boundary) from the
// pointer of the panel's first column, at the same K step.
constexpr int64_t half_column_offset(HalfType t, int col, int64_t b_panel) {
  return col / kHalfPanel * b_panel + col % kHalfPanel * half_step_rows(t);
}

}  // namespace quire::detail
