// transpose_simd: argument checks, FBGEMM's shortcuts, and the active path's transposes
// (its record's; the portable path: a cache-blocked loop).
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "common/transpose.h"
#include "cpu/isa_record.h"
#include "quire/Utils.h"
#include "quire/detail/Check.h"

namespace quire {
namespace {

// Portable: 32 x 32 blocks so both src rows and dst rows stay in cache.
template <typename T>
void transpose_portable(int64_t M, int64_t N, const T* src, int64_t ld_src, T* dst,
                        int64_t ld_dst) {
  constexpr int64_t kBlock = 32;
  for (int64_t i0 = 0; i0 < M; i0 += kBlock)
    for (int64_t j0 = 0; j0 < N; j0 += kBlock)
      for (int64_t j = j0; j < std::min(N, j0 + kBlock); ++j)
        for (int64_t i = i0; i < std::min(M, i0 + kBlock); ++i)
          dst[i + j * ld_dst] = src[i * ld_src + j];
}

}  // namespace

template <typename T>
void transpose_simd(int64_t M, int64_t N, const T* src, int64_t ld_src, T* dst, int64_t ld_dst) {
  const char* where = "transpose_simd";
  detail::check_arg(M >= 0, where, "M", M, "must be >= 0");
  detail::check_arg(N >= 0, where, "N", N, "must be >= 0");
  if (M == 0 || N == 0) return;
  detail::check_not_null(src, where, "src");
  detail::check_not_null(dst, where, "dst");
  if (M > 1) detail::check_arg(ld_src >= N, where, "ld_src", ld_src, "must be >= N");
  if (N > 1) detail::check_arg(ld_dst >= M, where, "ld_dst", ld_dst, "must be >= M");
  // A single row into a contiguous column (or the reverse) is a copy.
  if ((M == 1 && ld_dst == 1) || (N == 1 && ld_src == 1)) {
    if (dst != src) std::memcpy(dst, src, sizeof(T) * M * N);
    return;
  }
  const detail::TransposeKernels* t = detail::active_isa().transpose;
  if (t == nullptr) return transpose_portable(M, N, src, ld_src, dst, ld_dst);
  if constexpr (std::is_same_v<T, float>) t->f32(M, N, src, ld_src, dst, ld_dst);
  else if constexpr (std::is_same_v<T, uint16_t>) t->u16(M, N, src, ld_src, dst, ld_dst);
  else t->u8(M, N, src, ld_src, dst, ld_dst);
}

template void transpose_simd<float>(int64_t, int64_t, const float*, int64_t, float*, int64_t);
template void transpose_simd<uint16_t>(int64_t, int64_t, const uint16_t*, int64_t, uint16_t*,
                                       int64_t);
template void transpose_simd<uint8_t>(int64_t, int64_t, const uint8_t*, int64_t, uint8_t*,
                                      int64_t);

}  // namespace quire
