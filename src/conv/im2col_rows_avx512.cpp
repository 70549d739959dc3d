// im2col rows with AVX-512: each run is copied 64 bytes at a time; its last piece is a
// byte-masked load (no byte outside the run is read; the other lanes are zero) and an
// unmasked store, whose spill past the run the next run overwrites (byte-masked stores
// are slow on AMD Zen). After the last run, the masked load's zero lanes are already
// the row's zero padding, unless it ended on a whole vector: one 4-byte store covers it.
// The row sum is fused: vpsadbw of each loaded vector adds 8-byte sums into 64-bit lanes.
#include <cstring>

#include "common/intrinsics.h"
#include "conv/conv_kernels.h"

namespace quire::conv {
namespace {

constexpr int kMaxShortRuns = 64;

template <bool SUM>
void rows(const Im2ColRun* runs, int nruns, int nrows, uint8_t* dst, int64_t ld_dst,
          int32_t* row_sums, bool accumulate) {
  const __m512i zero = _mm512_setzero_si512();
  for (int j = 0; j < nrows; ++j) {
    __m512i sums = zero;
    uint8_t* d = dst + j * ld_dst;
    for (int r = 0; r < nruns; ++r) {
      const uint8_t* s = runs[r].src + j * runs[r].step;
      const int len = runs[r].len;
      int c = 0;
      for (; c + 64 <= len; c += 64) {
        const __m512i v = _mm512_loadu_si512(s + c);
        _mm512_storeu_si512(d + c, v);
        if constexpr (SUM) sums = _mm512_add_epi64(sums, _mm512_sad_epu8(v, zero));
      }
      if (c < len) {
        const __m512i v = _mm512_maskz_loadu_epi8((1ull << (len - c)) - 1, s + c);
        _mm512_storeu_si512(d + c, v);
        if constexpr (SUM) sums = _mm512_add_epi64(sums, _mm512_sad_epu8(v, zero));
      }
      d += len;
    }
    const uint32_t zeros = 0;
    std::memcpy(d, &zeros, 4);
    if constexpr (SUM) {
      const auto sum = static_cast<int32_t>(_mm512_reduce_add_epi64(sums));
      row_sums[j] = accumulate ? row_sums[j] + sum : sum;
    }
  }
}

// Every run at most 32 bytes (kernel rows of few channels, e.g. 7 x 3 bytes in a 7x7
// RGB stem): one masked ymm load and one ymm store per run (half the bytes of a zmm
// store, fewer cache-line splits: measured 15% faster on such rows), with masks and
// destinations set up once per stretch instead of once per row.
template <bool SUM>
void short_rows(const Im2ColRun* runs, int nruns, int nrows, uint8_t* dst, int64_t ld_dst,
                int32_t* row_sums, bool accumulate) {
  __mmask32 mask[kMaxShortRuns];
  int offset[kMaxShortRuns];
  int pos = 0;
  for (int r = 0; r < nruns; ++r) {
    mask[r] = static_cast<__mmask32>((1ull << runs[r].len) - 1);
    offset[r] = pos;
    pos += runs[r].len;
  }
  const __m256i zero = _mm256_setzero_si256();
  for (int j = 0; j < nrows; ++j) {
    __m256i sums = zero;
    uint8_t* d = dst + j * ld_dst;
    for (int r = 0; r < nruns; ++r) {
      const __m256i v = _mm256_maskz_loadu_epi8(mask[r], runs[r].src + j * runs[r].step);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + offset[r]), v);
      if constexpr (SUM) sums = _mm256_add_epi64(sums, _mm256_sad_epu8(v, zero));
    }
    const uint32_t zeros = 0;
    std::memcpy(d + pos, &zeros, 4);
    if constexpr (SUM) {
      const __m128i s2 = _mm_add_epi64(_mm256_castsi256_si128(sums), _mm256_extracti128_si256(sums, 1));
      const auto sum = static_cast<int32_t>(_mm_cvtsi128_si64(s2) + _mm_extract_epi64(s2, 1));
      row_sums[j] = accumulate ? row_sums[j] + sum : sum;
    }
  }
}

// short_rows for kRowBlock rows at a time with the runs outer: a run's mask, source and
// step are set up once per block and each row's sum stays in a register (measured 0.5 to
// 1 ns faster per 147-byte stem row). A store's spill past its run lands in the row's
// next run, written later, except the last run's: it reaches `spill` bytes into the next
// row, whose first run was written before. So each row's first 16 bytes are stored again
// at the end, which takes spill <= 16 <= the first run's length. The last run's zero
// lanes are the row's zero padding when it is at most 28 bytes.
constexpr int kRowBlock = 8;

bool blocked_fits(const Im2ColRun* runs, int nruns, int64_t ld_dst) {
  int last = 0;
  for (int r = 0; r + 1 < nruns; ++r) last += runs[r].len;
  const int64_t spill = last + 32 - ld_dst;
  return runs[nruns - 1].len <= 28 && (spill <= 0 || (spill <= 16 && runs[0].len >= 16));
}

template <bool SUM, int R>
void short_block(const Im2ColRun* runs, int nruns, int64_t j0, uint8_t* dst, int64_t ld_dst,
                 int32_t* row_sums, bool accumulate) {
  const __m256i zero = _mm256_setzero_si256();
  __m256i sums[R];
  __m128i first[R];
  for (int i = 0; i < R; ++i) sums[i] = zero;
  int offset = 0;
  for (int r = 0; r < nruns; ++r) {
    const __mmask32 m = static_cast<__mmask32>((1ull << runs[r].len) - 1);
    const int64_t step = runs[r].step;
    const uint8_t* s = runs[r].src + j0 * step;
    uint8_t* d = dst + offset;
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i) {
      const __m256i v = _mm256_maskz_loadu_epi8(m, s + i * step);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i * ld_dst), v);
      if (r == 0) first[i] = _mm256_castsi256_si128(v);
      if constexpr (SUM) sums[i] = _mm256_add_epi64(sums[i], _mm256_sad_epu8(v, zero));
    }
    offset += runs[r].len;
  }
#pragma GCC unroll 8
  for (int i = 1; i < R; ++i) _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i * ld_dst), first[i]);
  if constexpr (SUM) {
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i) {
      const __m128i s2 = _mm_add_epi64(_mm256_castsi256_si128(sums[i]), _mm256_extracti128_si256(sums[i], 1));
      const auto sum = static_cast<int32_t>(_mm_cvtsi128_si64(s2) + _mm_extract_epi64(s2, 1));
      row_sums[j0 + i] = accumulate ? row_sums[j0 + i] + sum : sum;
    }
  }
}

// Whole blocks of rows, then the rest one row at a time.
template <bool SUM>
void short_rows_blocked(const Im2ColRun* runs, int nruns, int nrows, uint8_t* dst,
                        int64_t ld_dst, int32_t* row_sums, bool accumulate) {
  int j = 0;
  for (; j + kRowBlock <= nrows; j += kRowBlock)
    short_block<SUM, kRowBlock>(runs, nruns, j, dst + j * ld_dst, ld_dst, row_sums, accumulate);
  for (; j < nrows; ++j)
    short_block<SUM, 1>(runs, nruns, j, dst + j * ld_dst, ld_dst, row_sums, accumulate);
}

}  // namespace

void im2col_rows_avx512(const Im2ColRun* runs, int nruns, int nrows, uint8_t* dst,
                        int64_t ld_dst, int32_t* row_sums, bool accumulate) {
  bool short_runs = nruns <= kMaxShortRuns;
  for (int r = 0; r < nruns && short_runs; ++r) short_runs = runs[r].len <= 32;
  if (short_runs && nrows >= kRowBlock && blocked_fits(runs, nruns, ld_dst)) {
    if (row_sums != nullptr)
      short_rows_blocked<true>(runs, nruns, nrows, dst, ld_dst, row_sums, accumulate);
    else
      short_rows_blocked<false>(runs, nruns, nrows, dst, ld_dst, row_sums, accumulate);
  } else if (short_runs && nrows > 1) {
    if (row_sums != nullptr)
      short_rows<true>(runs, nruns, nrows, dst, ld_dst, row_sums, accumulate);
    else
      short_rows<false>(runs, nruns, nrows, dst, ld_dst, row_sums, accumulate);
  } else if (row_sums != nullptr)
    rows<true>(runs, nruns, nrows, dst, ld_dst, row_sums, accumulate);
  else
    rows<false>(runs, nruns, nrows, dst, ld_dst, row_sums, accumulate);
}

}  // namespace quire::conv
