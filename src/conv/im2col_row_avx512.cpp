// One im2col row with AVX-512: each run is copied 64 bytes at a time with byte-masked
// loads and stores for its tail, so a run of any length costs ceil(len / 64) load/store
// pairs and never touches a byte outside it. The row sum is fused: vpsadbw of each
// loaded vector (masked loads zero the lanes outside the run) adds 8-byte sums into
// 64-bit lanes; a fill run adds len * fill.
#include "common/intrinsics.h"
#include "conv/conv_kernels.h"

namespace quire::conv {
namespace {

inline __mmask64 first_bytes(int n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }

}  // namespace

int32_t im2col_row_avx512(const Im2ColRun* runs, int nruns, uint8_t fill, uint8_t* dst,
                          int padded, bool want_sum) {
  const __m512i zero = _mm512_setzero_si512();
  const __m512i fill_v = _mm512_set1_epi8(static_cast<char>(fill));
  __m512i sums = zero;
  int32_t fill_sum = 0;
  int pos = 0;
  for (int r = 0; r < nruns; ++r) {
    const Im2ColRun& run = runs[r];
    uint8_t* d = dst + pos;
    if (run.src == nullptr) {
      int c = 0;
      for (; c + 64 <= run.len; c += 64) _mm512_storeu_si512(d + c, fill_v);
      if (c < run.len) _mm512_mask_storeu_epi8(d + c, first_bytes(run.len - c), fill_v);
      fill_sum += run.len * int32_t{fill};
    } else {
      int c = 0;
      for (; c + 64 <= run.len; c += 64) {
        const __m512i v = _mm512_loadu_si512(run.src + c);
        _mm512_storeu_si512(d + c, v);
        if (want_sum) sums = _mm512_add_epi64(sums, _mm512_sad_epu8(v, zero));
      }
      if (c < run.len) {
        const __mmask64 m = first_bytes(run.len - c);
        const __m512i v = _mm512_maskz_loadu_epi8(m, run.src + c);
        _mm512_mask_storeu_epi8(d + c, m, v);
        if (want_sum) sums = _mm512_add_epi64(sums, _mm512_sad_epu8(v, zero));
      }
    }
    pos += run.len;
  }
  if (pos < padded) _mm512_mask_storeu_epi8(dst + pos, first_bytes(padded - pos), zero);
  if (!want_sum) return 0;
  return static_cast<int32_t>(_mm512_reduce_add_epi64(sums)) + fill_sum;
}

}  // namespace quire::conv
