// A-block packing with AVX2: 32-byte copies, row sums with vpsadbw in the same pass,
// and a scalar tail (AVX2 has no byte-masked loads).
#include "common/intrinsics.h"

#include "common/transpose.h"
#include "pack/pack_a.h"

namespace quire::pack {

void pack_a_avx2(const uint8_t* src, int64_t ld, bool transposed, int rows, int cols,
                 uint8_t* dst, int64_t ld_dst, int32_t* row_sums, bool accumulate_sums) {
  if (transposed) {
    // Source row c is column c of the block: transpose 16 x 16 byte tiles into dst, zero
    // the padding, then take the row sums from dst while it is in cache (one more pass
    // over the packed rows beats a strided scatter by 2-4x).
    detail::transpose_avx2(cols, rows, src, ld, dst, ld_dst);
    const int padded = (cols + 3) & ~3;
    for (int r = 0; r < rows; ++r)
      for (int c = cols; c < padded; ++c) dst[r * ld_dst + c] = 0;
    if (row_sums != nullptr)
      pack_a_avx2(dst, ld_dst, false, rows, cols, nullptr, ld_dst, row_sums, accumulate_sums);
    return;
  }
  const int padded = (cols + 3) & ~3;
  const __m256i zero = _mm256_setzero_si256();
  for (int r = 0; r < rows; ++r) {
    const uint8_t* s = src + r * ld;
    uint8_t* d = dst == nullptr ? nullptr : dst + r * ld_dst;  // null: sums only
    __m256i sums = zero;
    int c = 0;
    for (; c + 32 <= cols; c += 32) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + c));
      if (d != nullptr) _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + c), v);
      sums = _mm256_add_epi64(sums, _mm256_sad_epu8(v, zero));
    }
    const __m128i folded = _mm_add_epi64(_mm256_castsi256_si128(sums), _mm256_extracti128_si256(sums, 1));
    int32_t sum = static_cast<int32_t>(_mm_cvtsi128_si64(folded) + _mm_extract_epi64(folded, 1));
    for (; c < cols; ++c) {
      if (d != nullptr) d[c] = s[c];
      sum += s[c];
    }
    if (d != nullptr)
      for (; c < padded; ++c) d[c] = 0;
    if (row_sums != nullptr) row_sums[r] = accumulate_sums ? row_sums[r] + sum : sum;
  }
}

}  // namespace quire::pack
