// The A side of int4Gemm: each row of float activations quantized to int8 on the fly,
// with the per-group sums the kernels' zero-point terms need.
#pragma once

#include <cstdint>
#include <vector>

#include "int4/int4_layout.h"

namespace quire::int4 {

// rows quantized rows: row r at q + r * ld (int8, zeros past K up to the padded K),
// its scale scale[r], and its group sums R at rsum + r * groups.
struct QuantizedRows {
  int8_t* q;
  int64_t ld;
  float* scale;
  int32_t* rsum;
};

// Bytes between quantized rows for K blocks of 8: the padded K, plus 64 bytes when that
// is a multiple of 4 KiB (rows of a tile would otherwise share L1 sets).
int64_t quantized_row_bytes(const detail::Int4Layout& l);

// Quantizes rows [0, rows) of A (rows lda floats apart) with quire's quantization
// routines (FindMinMax, Quantize<int8_t>):
//   scale = max|A[i][:]| / 127 (1 for an all-zero row), a = clamp(nearbyint(A * (1/scale)))
// and writes R[g] = sum of a over group g. first_row is the index of row 0 in A, for
// the message of the std::invalid_argument a non-finite row throws.
void quantize_rows(const float* A, int64_t lda, int rows, int first_row,
                   const detail::Int4Layout& l, const QuantizedRows& out);

// A thread's buffer for quantized rows; grows and is never shrunk.
class RowScratch {
 public:
  QuantizedRows get(const detail::Int4Layout& l, int rows);

 private:
  std::vector<int8_t> q_;
  std::vector<float> scale_;
  std::vector<int32_t> rsum_;
};

}  // namespace quire::int4
