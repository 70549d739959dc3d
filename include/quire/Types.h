// Basic vocabulary shared by every part of quire's public API.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

enum class matrix_op_t { NoTranspose, Transpose };

// Instruction-set paths. The first seven have FBGEMM's names and values (sve is Arm's:
// it exists so that code naming it compiles; quire has no such path and
// fbgemmForceIsa(sve) throws). avx_vnni (VEX-encoded vpdpbusd on ymm, for CPUs with VNNI
// but no AVX-512) is quire's addition. avx512_ymm runs the avx512 path; avx512_vnni_ymm
// runs the avx_vnni kernels (ymm, 16 registers) EVEX-encoded, on any AVX512-VNNI CPU.
enum class inst_set_t {
  anyarch,
  avx2,
  avx512,
  avx512_ymm,
  avx512_vnni,
  avx512_vnni_ymm,
  sve,
  avx_vnni
};

// Which implementation a routine uses: ref (plain loops) or opt (vectorized).
enum class impl_type_t { ref, opt };

enum class QuantizationGranularity { TENSOR, GROUP, OUT_CHANNEL };

// A rectangle of a matrix: rows [row_start, row_start + row_size), columns likewise.
struct block_type_t {
  int row_start;
  int row_size;
  int col_start;
  int col_size;

  // "row start:R, row size:S, col start:C, col size:N" (FBGEMM's text).
  std::string toString() const {
    return "row start:" + std::to_string(row_start) + ", row size:" + std::to_string(row_size) +
           ", col start:" + std::to_string(col_start) + ", col size:" + std::to_string(col_size);
  }
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

// Whether T is a one-byte integer (int8_t or uint8_t).
template <typename T>
struct is_8bit {
  static constexpr bool value = std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>;
};
template <typename T>
concept Int8Type = is_8bit<T>::value;

// val rounded up to a multiple of unit, and ceil(val / unit), for val >= 0, unit >= 1.
constexpr int64_t round_up(int64_t val, int64_t unit) { return (val + unit - 1) / unit * unit; }
constexpr int64_t div_up(int64_t val, int64_t unit) { return (val + unit - 1) / unit; }

}  // namespace quire
QUIRE_API_END
