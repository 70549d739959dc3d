// kSpmdmAvx512: SpMDM on AVX-512 (F/BW), the vector loop of spmdm_simd.h on zmm
// registers (chunks of up to 64 rows; a last chunk of at most 16 rows on ymm), or by
// rows where the rule below expects that to be faster.
#include "sparse/sparse_dense_kernels.h"
#include "sparse/spmdm_simd.h"
#include "sparse/spmdm_ymm.h"

namespace quire::detail {
namespace {

struct SpmdmZmm {
  using I = __m512i;
  static constexpr int kLanes16 = 32;
  // Chunks of up to 64 rows. On 120 x 512 x 1024 blocks (Zen 4) 128-row chunks were
  // 25-40% slower at 0.1% outliers and up to 7% slower at 10%; 32-row ones about as
  // fast at 0.1% and 35% slower at 10%.
  static constexpr int kMaxNv = 2;

  static I zero() { return _mm512_setzero_si512(); }
  static I load(const int16_t* p) { return _mm512_load_si512(p); }
  static void store(int32_t* p, I v) { _mm512_store_si512(p, v); }
  // (v1, v2) as int16 in every 32-bit lane, v1 low.
  static I weight_pair(int8_t v1, int8_t v2) { return _mm512_set1_epi32(pack_pair(v1, v2)); }
  static I unpacklo(I a, I b) { return _mm512_unpacklo_epi16(a, b); }
  static I unpackhi(I a, I b) { return _mm512_unpackhi_epi16(a, b); }
  static I madd(I a, I w) { return _mm512_madd_epi16(a, w); }
  static I add(I a, I b) { return _mm512_add_epi32(a, b); }

  // C[r * ldc + j] (+)= s[j * ld + r] for r < rows <= 16, j < cols <= 16: one 16 x 16
  // int32 transpose, then every load of C before the first store. Columns of s at or
  // past cols are not read; s and ld keep 64-byte alignment.
  static void add_sums(const int32_t* s, int64_t ld, int rows, int cols, int32_t* C,
                       int64_t ldc, bool accumulation) {
    I t[16], a[16], b[16], row[16];
    for (int j = 0; j < 16; ++j) t[j] = j < cols ? _mm512_load_si512(s + ld * j) : zero();
    // a[2h] (lane q): columns 2h, 2h+1 at rows 4q, 4q+1; a[2h+1]: rows 4q+2, 4q+3.
    for (int h = 0; h < 8; ++h) {
      a[2 * h] = _mm512_unpacklo_epi32(t[2 * h], t[2 * h + 1]);
      a[2 * h + 1] = _mm512_unpackhi_epi32(t[2 * h], t[2 * h + 1]);
    }
    // b[4h + u] (lane q): columns 4h .. 4h+3 at row 4q + u.
    for (int h = 0; h < 4; ++h) {
      const I* x = a + 4 * h;
      b[4 * h + 0] = _mm512_unpacklo_epi64(x[0], x[2]);
      b[4 * h + 1] = _mm512_unpackhi_epi64(x[0], x[2]);
      b[4 * h + 2] = _mm512_unpacklo_epi64(x[1], x[3]);
      b[4 * h + 3] = _mm512_unpackhi_epi64(x[1], x[3]);
    }
    // Row 4q + u gathers lane q of b[u], b[4 + u], b[8 + u], b[12 + u]: a 4 x 4
    // transpose of 128-bit lanes.
    for (int u = 0; u < 4; ++u) {
      // y0 = (b[u].0, b[u].1, b[4+u].0, b[4+u].1), y1: lanes 2, 3 of the same.
      const I y0 = _mm512_shuffle_i32x4(b[u], b[4 + u], 0x44);
      const I y1 = _mm512_shuffle_i32x4(b[u], b[4 + u], 0xEE);
      const I y2 = _mm512_shuffle_i32x4(b[8 + u], b[12 + u], 0x44);
      const I y3 = _mm512_shuffle_i32x4(b[8 + u], b[12 + u], 0xEE);
      row[u] = _mm512_shuffle_i32x4(y0, y2, 0x88);
      row[4 + u] = _mm512_shuffle_i32x4(y0, y2, 0xDD);
      row[8 + u] = _mm512_shuffle_i32x4(y1, y3, 0x88);
      row[12 + u] = _mm512_shuffle_i32x4(y1, y3, 0xDD);
    }
    const __mmask16 mask = static_cast<__mmask16>((1u << cols) - 1);
    if (accumulation) {
      for (int r = 0; r < rows; ++r)
        row[r] = _mm512_add_epi32(row[r], _mm512_maskz_loadu_epi32(mask, C + r * ldc));
    }
    for (int r = 0; r < rows; ++r) _mm512_mask_storeu_epi32(C + r * ldc, mask, row[r]);
  }
};

// The rule's constants (SpmdmCosts, ns), fitted to both loops timed on 384 blocks on
// Zen 4: 1 to 240 rows, 4 to 512 columns, K 64 to 32768, 0.05 to 100 nonzeros per
// column. Picking by them costs 1% more than always picking the faster loop, summed
// over the blocks; where they pick the slower one it is at most ~2x slower, on blocks
// that take about a microsecond. By rows wins on blocks of a few rows and columns; the
// acc16 driver's 120 x 512 and 8 x 512 tiles go to the vector loop from their first
// nonzero.
constexpr SpmdmCosts kCosts{1.2, 0.7, 110, 0.08, 0.03, 0.16, 0.10};

void run(const SpmdmArgs& a) { spmdm_run<SpmdmZmm, SpmdmYmm>(a, kCosts); }

}  // namespace

constinit const SpmdmKernels kSpmdmAvx512 = {"avx512", &run, &spmdm_by_rows,
                                         &spmdm_transposed_vector<SpmdmZmm, SpmdmYmm>,
                                         &kSparseDenseAvx512};
constinit const SpmdmKernels kSpmdmAvx512Vnni = {"avx512_vnni", &run, &spmdm_by_rows,
                                             &spmdm_transposed_vector<SpmdmZmm, SpmdmYmm>,
                                             &kSparseDenseAvx512Vnni};

}  // namespace quire::detail
