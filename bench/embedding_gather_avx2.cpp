// The gather baseline of the embedding bench: 32-byte loads added as 64-bit lanes, so the
// arithmetic never limits it (compiled with AVX2 flags by name).
#include <immintrin.h>

#include <cstring>

#include "embedding_bench.h"

namespace quire::bench {

uint64_t gather_row_words(const uint8_t* table, int64_t stride, int64_t row_bytes,
                          const int64_t* idx, int64_t n, int prefetch) {
  __m256i acc = _mm256_setzero_si256();
  uint64_t tail = 0;
  const int64_t vec_bytes = row_bytes / 32 * 32;
  for (int64_t k = 0; k < n; ++k) {
    if (prefetch > 0 && k + prefetch < n) {
      const uint8_t* p = table + idx[k + prefetch] * stride;
      for (int64_t o = 0; o < row_bytes; o += 64) _mm_prefetch(p + o, _MM_HINT_T0);
      _mm_prefetch(p + row_bytes - 1, _MM_HINT_T0);
    }
    const uint8_t* row = table + idx[k] * stride;
    for (int64_t o = 0; o < vec_bytes; o += 32)
      acc = _mm256_add_epi64(acc, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + o)));
    for (int64_t o = vec_bytes; o + 8 <= row_bytes; o += 8) {
      uint64_t w;
      std::memcpy(&w, row + o, 8);
      tail += w;
    }
  }
  alignas(32) uint64_t lanes[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3] + tail;
}

}  // namespace quire::bench
