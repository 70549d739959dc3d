#include "quire/ref/Reference.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace quire::ref {

void matmul_u8s8s32(int M, int N, int K, const uint8_t* A, int lda, const int8_t* B, int ldb,
                    int32_t* C, int ldc) {
  // B's columns copied out contiguous first: reading B down a column took a cache line
  // per product (most of the GEMM tests' time under AddressSanitizer). Each C[i][j] sums
  // its K products in order k = 0, 1, ...
  std::vector<int8_t> columns(static_cast<std::size_t>(N) * static_cast<std::size_t>(K));
  for (int64_t k = 0; k < K; ++k)
    for (int64_t j = 0; j < N; ++j) columns[j * K + k] = B[k * ldb + j];
  for (int64_t i = 0; i < M; ++i) {
    const uint8_t* a = A + i * lda;
    for (int64_t j = 0; j < N; ++j) {
      const int8_t* b = columns.data() + j * K;
      int32_t sum = 0;
      for (int k = 0; k < K; ++k) sum += int32_t{a[k]} * int32_t{b[k]};
      C[i * ldc + j] = sum;
    }
  }
}

namespace {
int32_t saturate_int16(int32_t v) { return v > 32767 ? 32767 : v < -32768 ? -32768 : v; }
}  // namespace

void matmul_u8s8s32_acc16(int M, int N, int K, const uint8_t* A, int lda, const int8_t* B,
                          int ldb, int32_t* C, int ldc, int block_depth) {
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      // a * b at depth k, zero past K (the padding of the last block).
      auto product = [&](int k) {
        return k < K ? int32_t{A[i * lda + k]} * int32_t{B[k * ldb + j]} : 0;
      };
      int32_t sum = 0;
      for (int k0 = 0; k0 < K; k0 += block_depth) {
        const int k_end = k0 + block_depth < K ? k0 + block_depth : K;
        int32_t lo = 0, hi = 0;
        for (int k = k0; k < k_end; k += 4) {
          lo = saturate_int16(lo + saturate_int16(product(k) + product(k + 1)));
          hi = saturate_int16(hi + saturate_int16(product(k + 2) + product(k + 3)));
        }
        sum += lo + hi;
      }
      C[i * ldc + j] = sum;
    }
  }
}

void row_offsets_u8(int M, int K, const uint8_t* A, int lda, int32_t* row_offsets) {
  for (int i = 0; i < M; ++i) {
    int32_t sum = 0;
    for (int k = 0; k < K; ++k) sum += A[i * lda + k];
    row_offsets[i] = sum;
  }
}

void col_offsets_with_zero_pt_s8(int K, int N, const int8_t* B, int ldb,
                                 const int32_t* B_zero_point, int32_t* col_offsets,
                                 int ncols_per_quant_group) {
  for (int j = 0; j < N; ++j) {
    int32_t sum = 0;
    for (int k = 0; k < K; ++k) sum += B[k * ldb + j];
    col_offsets[j] = sum - K * B_zero_point[j / ncols_per_quant_group];
  }
}

}  // namespace quire::ref
