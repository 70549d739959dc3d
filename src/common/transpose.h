// The per-ISA transposes behind transpose_simd (quire/Utils.h):
// dst[i + j * ld_dst] = src[i * ld_src + j] for an M x N src.
#pragma once

#include <cstdint>

namespace quire::detail {

#define QUIRE_TRANSPOSE_DECL(isa)                                                           \
  void transpose_##isa(int64_t M, int64_t N, const float* src, int64_t ld_src, float* dst,  \
                       int64_t ld_dst);                                                     \
  void transpose_##isa(int64_t M, int64_t N, const uint16_t* src, int64_t ld_src,           \
                       uint16_t* dst, int64_t ld_dst);                                      \
  void transpose_##isa(int64_t M, int64_t N, const uint8_t* src, int64_t ld_src,            \
                       uint8_t* dst, int64_t ld_dst);
QUIRE_TRANSPOSE_DECL(avx2)    // 8 x 8 (32- and 16-bit) and 16 x 16 (8-bit) tiles (transpose_simd.h)
QUIRE_TRANSPOSE_DECL(avx512)  // 16 x 16 zmm tiles (32-bit), else as avx2
#undef QUIRE_TRANSPOSE_DECL

// The transposes transpose_simd runs on a path (IsaRecord::transpose; the portable path
// has none and runs a cache-blocked loop).
template <typename T>
using TransposeFn = void (*)(int64_t M, int64_t N, const T* src, int64_t ld_src, T* dst,
                             int64_t ld_dst);
struct TransposeKernels {
  TransposeFn<float> f32;
  TransposeFn<uint16_t> u16;
  TransposeFn<uint8_t> u8;
};
extern const TransposeKernels kTransposeAvx2;
extern const TransposeKernels kTransposeAvx512;

}  // namespace quire::detail
