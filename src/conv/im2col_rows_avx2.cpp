// im2col rows with AVX2: runs are copied 32 bytes at a time; a run's tail is one
// overlapping 32-byte move when the run is at least 32 bytes long (it rewrites bytes of
// the same run with the same values), else moves of 16, 8, 4, 2 and 1 bytes. AVX2 has
// no byte masks, so the row sum is taken afterwards from the row just written (in L1):
// vpsadbw over 32-byte pieces, then 16, 8 and 4 (the row is padded to a multiple of 4
// by one 4-byte zero store after the last run).
#include <cstring>

#include "common/intrinsics.h"
#include "conv/conv_kernels.h"

namespace quire::conv {
namespace {

// Copies n < 32 bytes with a move per set bit of n.
inline void copy_short(const uint8_t* s, uint8_t* d, int n) {
  if (n & 16) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(d), _mm_loadu_si128(reinterpret_cast<const __m128i*>(s)));
    s += 16;
    d += 16;
  }
  if (n & 8) {
    std::memcpy(d, s, 8);
    s += 8;
    d += 8;
  }
  if (n & 4) {
    std::memcpy(d, s, 4);
    s += 4;
    d += 4;
  }
  if (n & 2) {
    std::memcpy(d, s, 2);
    s += 2;
    d += 2;
  }
  if (n & 1) *d = *s;
}

inline void copy_run(const uint8_t* s, uint8_t* d, int n) {
  if (n < 32) {
    copy_short(s, d, n);
    return;
  }
  int c = 0;
  for (; c + 32 <= n; c += 32)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + c),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + c)));
  if (c < n)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + n - 32),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + n - 32)));
}

// Sum of the first n bytes of p, n a multiple of 4.
inline int32_t sum_bytes(const uint8_t* p, int n) {
  const __m256i zero = _mm256_setzero_si256();
  __m256i acc = zero;
  int c = 0;
  for (; c + 32 <= n; c += 32)
    acc = _mm256_add_epi64(
        acc, _mm256_sad_epu8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + c)), zero));
  __m128i acc128 = _mm_add_epi64(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
  const __m128i z = _mm_setzero_si128();
  if (n - c >= 16) {
    acc128 = _mm_add_epi64(acc128, _mm_sad_epu8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + c)), z));
    c += 16;
  }
  if (n - c >= 8) {
    acc128 = _mm_add_epi64(acc128, _mm_sad_epu8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p + c)), z));
    c += 8;
  }
  if (n - c >= 4) {
    int32_t word;
    std::memcpy(&word, p + c, 4);
    acc128 = _mm_add_epi64(acc128, _mm_sad_epu8(_mm_cvtsi32_si128(word), z));
  }
  return static_cast<int32_t>(_mm_cvtsi128_si64(acc128) + _mm_extract_epi64(acc128, 1));
}

}  // namespace

void im2col_rows_avx2(const Im2ColRun* runs, int nruns, int nrows, uint8_t* dst,
                      int64_t ld_dst, int32_t* row_sums, bool accumulate) {
  for (int j = 0; j < nrows; ++j) {
    uint8_t* d = dst + j * ld_dst;
    int pos = 0;
    for (int r = 0; r < nruns; ++r) {
      copy_run(runs[r].src + j * runs[r].step, d + pos, runs[r].len);
      pos += runs[r].len;
    }
    const uint32_t zeros = 0;
    std::memcpy(d + pos, &zeros, 4);
    if (row_sums != nullptr) {
      const int32_t sum = sum_bytes(d, (pos + 3) & ~3);
      row_sums[j] = accumulate ? row_sums[j] + sum : sum;
    }
  }
}

}  // namespace quire::conv
