// A-block packing with AVX-512: 64-byte masked copies; row sums with vpsadbw (sums of
// 8 bytes into each 64-bit lane), fused into the same pass.
#include <immintrin.h>

#include "pack/pack_a.h"

namespace quire::pack {

void pack_a_avx512(const uint8_t* src, int64_t ld, bool transposed, int rows, int cols,
                   uint8_t* dst, int64_t ld_dst, int32_t* row_sums, bool accumulate_sums) {
  if (transposed) {
    pack_a_portable(src, ld, transposed, rows, cols, dst, ld_dst, row_sums, accumulate_sums);
    return;
  }
  const int padded = (cols + 3) & ~3;
  const __m512i zero = _mm512_setzero_si512();
  for (int r = 0; r < rows; ++r) {
    const uint8_t* s = src + r * ld;
    uint8_t* d = dst + r * ld_dst;
    __m512i sums = zero;
    int c = 0;
    for (; c + 64 <= cols; c += 64) {
      const __m512i v = _mm512_loadu_si512(s + c);
      _mm512_storeu_si512(d + c, v);
      sums = _mm512_add_epi64(sums, _mm512_sad_epu8(v, zero));
    }
    if (c < padded) {
      // Masked load reads only the row's bytes; the store also writes the zero padding.
      const __mmask64 load_mask = (1ull << (cols - c)) - 1;  // cols - c < 64 here
      const __mmask64 store_mask = padded - c == 64 ? ~0ull : (1ull << (padded - c)) - 1;
      const __m512i v = _mm512_maskz_loadu_epi8(load_mask, s + c);
      _mm512_mask_storeu_epi8(d + c, store_mask, v);
      sums = _mm512_add_epi64(sums, _mm512_sad_epu8(v, zero));
    }
    if (row_sums != nullptr) {
      const auto sum = static_cast<int32_t>(_mm512_reduce_add_epi64(sums));
      row_sums[r] = accumulate_sums ? row_sums[r] + sum : sum;
    }
  }
}

}  // namespace quire::pack
