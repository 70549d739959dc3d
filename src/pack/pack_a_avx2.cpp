// A-block packing with AVX2: 32-byte copies with the row sums fused into the same pass
// (vpsadbw against zero sums 8 bytes into each 64-bit lane). AVX2 has no byte-masked
// loads, so a row of at least 32 bytes ends in one 32-byte load that finishes at the
// row's last byte, its bytes already counted masked off for the sum; shorter rows are
// scalar. The per-row 4-lane totals are reduced four rows at a time, so short rows
// (K = 36 in convolutions, read in place with only their sums wanted) cost a few
// instructions each: 156800 x 4 x 36 under acc16 spent 40% of its call in scalar tails.
#include "common/intrinsics.h"

#include "common/transpose.h"
#include "pack/pack_a.h"

namespace quire::pack {
namespace {

// 32 zero bytes then 32 bytes of 0xff: the 32 bytes at offset n keep the last n bytes.
alignas(64) constexpr uint8_t kTailMask[64] = {
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

// Row of cols >= 32 bytes: copies it to d (if non-null, zero-padding to `padded` bytes)
// and returns its vpsadbw partial sums. The last load overlaps the one before; its copy
// rewrites the same bytes.
__attribute__((always_inline)) inline __m256i copy_and_sum_row(const uint8_t* s, uint8_t* d, int cols,
                                                               int padded) {
  const __m256i zero = _mm256_setzero_si256();
  __m256i sums = zero;
  int c = 0;
  for (; c + 32 <= cols; c += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + c));
    if (d != nullptr) _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + c), v);
    sums = _mm256_add_epi64(sums, _mm256_sad_epu8(v, zero));
  }
  if (const int rest = cols - c; rest > 0) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + cols - 32));
    if (d != nullptr) _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + cols - 32), v);
    const __m256i keep = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kTailMask + rest));
    sums = _mm256_add_epi64(sums, _mm256_sad_epu8(_mm256_and_si256(v, keep), zero));
  }
  if (d != nullptr)
    for (int p = cols; p < padded; ++p) d[p] = 0;
  return sums;
}

// The totals of four rows' partial-sum vectors, as four int32 values in row order.
__attribute__((always_inline)) inline __m128i reduce4(__m256i s0, __m256i s1, __m256i s2, __m256i s3) {
  // Per 128-bit lane: [row 0's two qwords added, row 1's], and the same for rows 2, 3.
  const __m256i t0 = _mm256_add_epi64(_mm256_unpacklo_epi64(s0, s1), _mm256_unpackhi_epi64(s0, s1));
  const __m256i t1 = _mm256_add_epi64(_mm256_unpacklo_epi64(s2, s3), _mm256_unpackhi_epi64(s2, s3));
  // Adding the two 128-bit lanes: qword r = row r's total (below 2^31: int32 rows).
  const __m256i w = _mm256_add_epi64(_mm256_permute2x128_si256(t0, t1, 0x20),
                                     _mm256_permute2x128_si256(t0, t1, 0x31));
  // The low dword of each qword, in order.
  const __m256i packed = _mm256_permutevar8x32_epi32(w, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
  return _mm256_castsi256_si128(packed);
}

// A row shorter than 32 bytes, scalar: copies it (if d is non-null, zero-padded to
// `padded`) and returns its sum.
int32_t copy_and_sum_short_row(const uint8_t* s, uint8_t* d, int cols, int padded) {
  int32_t sum = 0;
  for (int c = 0; c < cols; ++c) {
    if (d != nullptr) d[c] = s[c];
    sum += s[c];
  }
  if (d != nullptr)
    for (int c = cols; c < padded; ++c) d[c] = 0;
  return sum;
}

}  // namespace

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
  auto row_dst = [&](int r) { return dst == nullptr ? nullptr : dst + r * ld_dst; };
  auto put_sum = [&](int r, int32_t sum) {
    if (row_sums != nullptr) row_sums[r] = accumulate_sums ? row_sums[r] + sum : sum;
  };
  if (cols < 32) {
    for (int r = 0; r < rows; ++r) put_sum(r, copy_and_sum_short_row(src + r * ld, row_dst(r), cols, padded));
    return;
  }
  int r = 0;
  if (row_sums != nullptr) {
    for (; r + 4 <= rows; r += 4) {
      auto row = [&](int i) { return copy_and_sum_row(src + (r + i) * ld, row_dst(r + i), cols, padded); };
      __m128i totals = reduce4(row(0), row(1), row(2), row(3));
      auto* out = reinterpret_cast<__m128i*>(row_sums + r);
      if (accumulate_sums) totals = _mm_add_epi32(totals, _mm_loadu_si128(out));
      _mm_storeu_si128(out, totals);
    }
  }
  for (; r < rows; ++r) {
    const __m256i partial = copy_and_sum_row(src + r * ld, row_dst(r), cols, padded);
    const __m128i folded = _mm_add_epi64(_mm256_castsi256_si128(partial), _mm256_extracti128_si256(partial, 1));
    put_sum(r, static_cast<int32_t>(_mm_cvtsi128_si64(folded) + _mm_extract_epi64(folded, 1)));
  }
}

}  // namespace quire::pack
