// A-block packing with AVX-512: 64-byte masked copies, with the row sums fused into the
// same pass (vpsadbw against zero sums 8 bytes into each 64-bit lane). The per-row
// 8-lane totals are reduced eight rows at a time with a transpose-add tree, so short
// rows (K = 36 in convolutions) cost a few instructions each.
#include "common/intrinsics.h"

#include "common/transpose.h"
#include "pack/pack_a.h"

namespace quire::pack {
namespace {

// Row r of the block: copies it to dst (if non-null, zero-padding to `padded` bytes) and
// returns its vpsadbw partial sums.
__attribute__((always_inline)) inline __m512i copy_and_sum_row(const uint8_t* s, uint8_t* d, int cols, int padded) {
  const __m512i zero = _mm512_setzero_si512();
  __m512i sums = zero;
  int c = 0;
  for (; c + 64 <= cols; c += 64) {
    const __m512i v = _mm512_loadu_si512(s + c);
    if (d != nullptr) _mm512_storeu_si512(d + c, v);
    sums = _mm512_add_epi64(sums, _mm512_sad_epu8(v, zero));
  }
  if (c < padded) {
    // Masked load reads only the row's bytes; the store also writes the zero padding.
    const __mmask64 load_mask = (1ull << (cols - c)) - 1;  // cols - c < 64 here
    const __m512i v = _mm512_maskz_loadu_epi8(load_mask, s + c);
    if (d != nullptr) {
      const __mmask64 store_mask = padded - c == 64 ? ~0ull : (1ull << (padded - c)) - 1;
      _mm512_mask_storeu_epi8(d + c, store_mask, v);
    }
    sums = _mm512_add_epi64(sums, _mm512_sad_epu8(v, zero));
  }
  return sums;
}

// Sums of a, b per 128-bit lane pair: lane l of the result holds (sum of a's lanes
// 2l..2l+1 halves, same of b) — one level of the transpose-add tree.
inline __m512i pair_add(__m512i a, __m512i b) {
  return _mm512_add_epi64(_mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b));
}
inline __m512i lane_add(__m512i a, __m512i b) {
  return _mm512_add_epi64(_mm512_shuffle_i64x2(a, b, _MM_SHUFFLE(2, 0, 2, 0)),
                          _mm512_shuffle_i64x2(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
}

// The totals of eight rows' partial-sum vectors, as eight int32 values in row order.
__attribute__((always_inline)) inline __m256i reduce8(__m512i s0, __m512i s1, __m512i s2,
                                                      __m512i s3, __m512i s4, __m512i s5,
                                                      __m512i s6, __m512i s7) {
  // pair_add: each 128-bit lane holds [row 2i partial, row 2i+1 partial].
  const __m512i t0 = pair_add(s0, s1), t1 = pair_add(s2, s3);
  const __m512i t2 = pair_add(s4, s5), t3 = pair_add(s6, s7);
  // Two lane_add levels fold the four 128-bit lanes: result qword r = row r's total.
  const __m512i w = lane_add(lane_add(t0, t1), lane_add(t2, t3));
  return _mm512_cvtepi64_epi32(w);
}

// Rows of at most 64 bytes (K <= 64, common in convolutions) in groups of eight: one
// masked load each, no per-row loop or branches. Returns the first row not done.
template <bool COPY>
int short_rows_by_eight(const uint8_t* src, int64_t ld, int rows, int cols, uint8_t* dst,
                        int64_t ld_dst, int32_t* row_sums, bool accumulate_sums) {
  const int padded = (cols + 3) & ~3;
  const __mmask64 load_mask = cols == 64 ? ~0ull : (1ull << cols) - 1;
  const __mmask64 store_mask = padded == 64 ? ~0ull : (1ull << padded) - 1;
  const __m512i zero = _mm512_setzero_si512();
  int r = 0;
  for (; r + 8 <= rows; r += 8) {
    auto row = [&](int i) {
      const __m512i v = _mm512_maskz_loadu_epi8(load_mask, src + (r + i) * ld);
      if (COPY) _mm512_mask_storeu_epi8(dst + (r + i) * ld_dst, store_mask, v);
      return _mm512_sad_epu8(v, zero);
    };
    __m256i totals = reduce8(row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7));
    auto* out = reinterpret_cast<__m256i*>(row_sums + r);
    if (accumulate_sums) totals = _mm256_add_epi32(totals, _mm256_loadu_si256(out));
    _mm256_storeu_si256(out, totals);
  }
  return r;
}

}  // namespace

void pack_a_avx512(const uint8_t* src, int64_t ld, bool transposed, int rows, int cols,
                   uint8_t* dst, int64_t ld_dst, int32_t* row_sums, bool accumulate_sums) {
  if (transposed) {
    // Source row c is column c of the block: transpose 16 x 16 byte tiles into dst, zero
    // the padding, then take the row sums from dst while it is in cache (one more pass
    // over the packed rows beats a strided scatter by 2-4x).
    detail::transpose_avx512(cols, rows, src, ld, dst, ld_dst);
    const int padded = (cols + 3) & ~3;
    for (int r = 0; r < rows; ++r)
      for (int c = cols; c < padded; ++c) dst[r * ld_dst + c] = 0;
    if (row_sums != nullptr)
      pack_a_avx512(dst, ld_dst, false, rows, cols, nullptr, ld_dst, row_sums, accumulate_sums);
    return;
  }
  const int padded = (cols + 3) & ~3;
  auto row_dst = [&](int r) { return dst == nullptr ? nullptr : dst + r * ld_dst; };
  int r = 0;
  if (row_sums != nullptr && cols <= 64) {
    r = dst == nullptr
            ? short_rows_by_eight<false>(src, ld, rows, cols, dst, ld_dst, row_sums, accumulate_sums)
            : short_rows_by_eight<true>(src, ld, rows, cols, dst, ld_dst, row_sums, accumulate_sums);
  } else if (row_sums != nullptr) {
    for (; r + 8 <= rows; r += 8) {
      auto row = [&](int i) { return copy_and_sum_row(src + (r + i) * ld, row_dst(r + i), cols, padded); };
      __m256i totals = reduce8(row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7));
      auto* out = reinterpret_cast<__m256i*>(row_sums + r);
      if (accumulate_sums) totals = _mm256_add_epi32(totals, _mm256_loadu_si256(out));
      _mm256_storeu_si256(out, totals);
    }
  }
  for (; r < rows; ++r) {
    const __m512i partial = copy_and_sum_row(src + r * ld, row_dst(r), cols, padded);
    if (row_sums != nullptr) {
      const auto sum = static_cast<int32_t>(_mm512_reduce_add_epi64(partial));
      row_sums[r] = accumulate_sums ? row_sums[r] + sum : sum;
    }
  }
}

}  // namespace quire::pack
