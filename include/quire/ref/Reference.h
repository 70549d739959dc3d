// Reference implementations: plain loops, obviously right, used by the tests as the
// ground truth (bit for bit for integer and requantized results). Not fast.
#pragma once

#include <cstdint>

#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire::ref {

// C[i*ldc + j] = sum_k A[i*lda + k] * B[k*ldb + j]   (u8 x s8 -> s32, exact)
void matmul_u8s8s32(int M, int N, int K, const uint8_t* A, int lda, const int8_t* B, int ldb,
                    int32_t* C, int ldc);

// The acc16 model (docs/acc16.md): C = A * B as the saturating 16-bit kernels compute it.
// K is cut into blocks of block_depth (a multiple of 4) from k = 0, each zero-padded to a
// multiple of 4. Within a block every output keeps two int16 sums: `lo` takes the pairs
// (4t, 4t+1), `hi` the pairs (4t+2, 4t+3), in increasing t. A pair is
// sat16(a0*b0 + a1*b1) (vpmaddubsw) and is added with sat16 (vpaddsw). C adds lo + hi of
// every block in int32 (exact).
void matmul_u8s8s32_acc16(int M, int N, int K, const uint8_t* A, int lda, const int8_t* B,
                          int ldb, int32_t* C, int ldc, int block_depth);

// row_offsets[i] = sum_k A[i*lda + k]
void row_offsets_u8(int M, int K, const uint8_t* A, int lda, int32_t* row_offsets);

// col_offsets[j] = sum_k B[k*ldb + j] - K * B_zero_point[j / ncols_per_quant_group]
// (the form ReQuantizeOutput expects: the K * a_zp * b_zp term is folded in).
void col_offsets_with_zero_pt_s8(int K, int N, const int8_t* B, int ldb,
                                 const int32_t* B_zero_point, int32_t* col_offsets,
                                 int ncols_per_quant_group);

// dst (rows x cols, ld_dst) = transpose of src (cols x rows, ld_src), any element size.
template <class T>
void transpose(int rows, int cols, const T* src, int ld_src, T* dst, int ld_dst) {
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) dst[i * ld_dst + j] = src[j * ld_src + i];
}

}  // namespace quire::ref
QUIRE_API_END
