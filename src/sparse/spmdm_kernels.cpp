// The portable SpMDM table (by rows, or transposed with SSE2: SSE2 is part of x86-64
// itself), the loops every path shares and the vector paths' rule.
#include "sparse/spmdm_kernels.h"
#include "sparse/sparse_dense_kernels.h"

#include <emmintrin.h>

#include <algorithm>
#include <vector>

namespace quire::detail {
namespace {

// C (+)= s, wrapping modulo 2^32 like the int32 GEMM instead of overflowing.
inline void store(int32_t& c, int32_t s, bool accumulation) {
  c = accumulation ? static_cast<int32_t>(static_cast<uint32_t>(c) + static_cast<uint32_t>(s))
                   : s;
}

// Rows of A per pass of the transposed loop: 8 SSE2 accumulators of 4 int32 each.
constexpr int kChunk = 32;

// sum[0..32) += r1[i] * v1 + r2[i] * v2 for the 32 bytes of two transposed rows, where
// w holds (v1, v2) as int16 pairs. Interleaving the rows' bytes and widening them to
// int16 lines each (r1[i], r2[i]) up with (v1, v2), so pmaddwd forms both products and
// their sum in int32 at once (|sum| <= 2 * 255 * 128, exact).
inline void add_pair(__m128i sum[8], const uint8_t* r1, const uint8_t* r2, __m128i w) {
  const __m128i zero = _mm_setzero_si128();
  for (int h = 0; h < 2; ++h) {
    const __m128i x1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r1 + 16 * h));
    const __m128i x2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r2 + 16 * h));
    const __m128i lo = _mm_unpacklo_epi8(x1, x2), hi = _mm_unpackhi_epi8(x1, x2);
    __m128i* s = sum + 4 * h;
    s[0] = _mm_add_epi32(s[0], _mm_madd_epi16(_mm_unpacklo_epi8(lo, zero), w));
    s[1] = _mm_add_epi32(s[1], _mm_madd_epi16(_mm_unpackhi_epi8(lo, zero), w));
    s[2] = _mm_add_epi32(s[2], _mm_madd_epi16(_mm_unpacklo_epi8(hi, zero), w));
    s[3] = _mm_add_epi32(s[3], _mm_madd_epi16(_mm_unpackhi_epi8(hi, zero), w));
  }
}

inline __m128i weight_pair(int8_t v1, int8_t v2) {
  return _mm_setr_epi16(v1, v2, v1, v2, v1, v2, v1, v2);
}

}  // namespace

void spmdm_by_rows(const SpmdmArgs& a) {
  const block_type_t& b = a.block;
  for (int i = 0; i < b.row_size; ++i) {
    const uint8_t* row = a.A + (int64_t{b.row_start} + i) * a.lda;
    int32_t* c = a.C + i * a.ldc;
    for (int j = 0; j < b.col_size; ++j) {
      // At most 32768 products of magnitude <= 255 * 128: |s| < 2^30, no overflow.
      int32_t s = 0;
      for (int32_t p = a.colptr[b.col_start + j]; p < a.colptr[b.col_start + j + 1]; ++p)
        s += int32_t{row[a.rowidx[p]]} * int32_t{a.values[p]};
      store(c[j], s, a.accumulation);
    }
  }
}

void spmdm_transposed(const SpmdmArgs& a) {
  const block_type_t& b = a.block;
  // at[k * kChunk + i] = A[row_start + i0 + i][k]; lanes past the chunk's last row keep
  // stale bytes, whose sums are never stored.
  std::vector<uint8_t> at(static_cast<size_t>(a.K) * kChunk, 0);
  for (int i0 = 0; i0 < b.row_size; i0 += kChunk) {
    const int rows = std::min(kChunk, b.row_size - i0);
    const uint8_t* A0 = a.A + (int64_t{b.row_start} + i0) * a.lda;
    for (int k = 0; k < a.K; ++k) {
      uint8_t* dst = at.data() + static_cast<size_t>(k) * kChunk;
      for (int i = 0; i < rows; ++i) dst[i] = A0[i * a.lda + k];
    }
    for (int j = 0; j < b.col_size; ++j) {
      __m128i sum[8];
      for (__m128i& s : sum) s = _mm_setzero_si128();
      const int32_t end = a.colptr[b.col_start + j + 1];
      int32_t p = a.colptr[b.col_start + j];
      for (; p + 1 < end; p += 2)
        add_pair(sum, at.data() + a.rowidx[p] * kChunk, at.data() + a.rowidx[p + 1] * kChunk,
                 weight_pair(a.values[p], a.values[p + 1]));
      if (p < end) {  // an odd count: the last nonzero pairs with itself at weight 0
        const uint8_t* r = at.data() + a.rowidx[p] * kChunk;
        add_pair(sum, r, r, weight_pair(a.values[p], 0));
      }
      alignas(16) int32_t s[kChunk];
      for (int q = 0; q < 8; ++q) _mm_store_si128(reinterpret_cast<__m128i*>(s + 4 * q), sum[q]);
      for (int i = 0; i < rows; ++i) store(a.C[(i0 + i) * a.ldc + j], s[i], a.accumulation);
    }
  }
}

// Measured on Zen 4 (K = 1024, 512 columns, 2-64 rows, densities 0.01% - 70%): by rows
// costs ~0.55 ns per nonzero and row; transposed ~1.4 ns per nonzero for 32 rows plus
// ~0.6-1.1 ns per transposed byte (rows x K). Transposed wins from about 4 rows and 1.5
// nonzeros per row of B in the block's columns (by 12x at 32 rows and 70% density);
// below that the transpose does not pay for itself.
bool spmdm_prefers_transposed(int rows, int64_t nonzeros, int K) {
  return rows >= 4 && nonzeros >= 2 * int64_t{K};
}

void spmdm_no_nonzeros(const SpmdmArgs& a) {
  if (a.accumulation) return;
  for (int i = 0; i < a.block.row_size; ++i)
    std::fill_n(a.C + i * a.ldc, a.block.col_size, int32_t{0});
}

bool spmdm_prefers_vector(const SpmdmCosts& c, int rows, int chunk_rows, int cols,
                          int64_t nonzeros, int used_k) {
  const double n = static_cast<double>(nonzeros);
  const double by_rows = rows * (cols * c.by_rows_out + n * c.by_rows_mac);
  const double vector = c.fixed +
                        chunk_rows * (used_k * c.transpose + n * c.mac + cols * c.column) +
                        double(rows) * cols * c.out;
  return vector < by_rows;
}

namespace {

void spmdm_portable(const SpmdmArgs& a) {
  if (spmdm_prefers_transposed(a.block.row_size, spmdm_nonzeros(a), a.K))
    spmdm_transposed(a);
  else
    spmdm_by_rows(a);
}

}  // namespace

constinit const SpmdmKernels kSpmdmPortable = {"portable", &spmdm_portable, &spmdm_by_rows,
                                              &spmdm_transposed, &kSparseDensePortable};

}  // namespace quire::detail
