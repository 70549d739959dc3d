// Basic vocabulary shared by every part of quire's public API.
#pragma once

#include <cstdint>

namespace quire {

enum class matrix_op_t { NoTranspose, Transpose };

// Instruction-set paths. The first six mirror FBGEMM's names; avx_vnni (VEX-encoded
// vpdpbusd on ymm, for CPUs with VNNI but no AVX-512) is quire's addition.
// avx512_ymm runs the avx512 path; avx512_vnni_ymm runs the avx_vnni kernels (ymm, 16
// registers) EVEX-encoded, on any AVX512-VNNI CPU.
enum class inst_set_t { anyarch, avx2, avx512, avx512_ymm, avx512_vnni, avx512_vnni_ymm, avx_vnni };

enum class QuantizationGranularity { TENSOR, GROUP, OUT_CHANNEL };

// A rectangle of a matrix: rows [row_start, row_start + row_size), columns likewise.
struct block_type_t {
  int row_start;
  int row_size;
  int col_start;
  int col_size;
};

// Cache and register blocking of the int8 GEMM (see docs/kernel-contract.md):
// MR x NR is the micro-tile held in registers, ROW_INTERLEAVE the K interleave of the
// packed layouts (4 for 32-bit accumulation), MCB x KCB the packed A block kept in L2,
// NCB the column block the output pipeline runs on. NR_MIN is the narrowest column
// step the kernel uses (its vector width in int32 lanes).
struct BlockingFactors {
  int MR;
  int NR;
  int NR_MIN;
  int ROW_INTERLEAVE;
  int MCB;
  int KCB;
  int NCB;
};

}  // namespace quire
