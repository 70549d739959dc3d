// The embedding-bag kernels on AVX-512 (16 lanes): embedding_simd.h over Avx512 and the
// nibble unpack below.
#include "simd/vec_avx512.h"

#include "embedding/bag_ops.h"

namespace quire::detail {
namespace {

struct ZmmExtra {
  using I = __m512i;
  // 8 bytes broadcast to every qword; lane j takes byte j / 2 (vpshufb indexes within
  // each 16-byte lane, which holds the 8 bytes twice), then its nibble j % 2.
  static I nibbles(const uint8_t* p) {
    int64_t b;
    std::memcpy(&b, p, sizeof b);
    const I pick = _mm512_set_epi32(0x80808007, 0x80808007, 0x80808006, 0x80808006,
                                    0x80808005, 0x80808005, 0x80808004, 0x80808004,
                                    0x80808003, 0x80808003, 0x80808002, 0x80808002,
                                    0x80808001, 0x80808001, 0x80808000, 0x80808000);
    const I shift = _mm512_set_epi32(4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0);
    const I x = _mm512_shuffle_epi8(_mm512_set1_epi64(b), pick);
    return _mm512_and_si512(_mm512_srlv_epi32(x, shift), _mm512_set1_epi32(0xF));
  }
  // 4 bytes; lane j takes byte j / 4, then its bits 2 * (j % 4).
  static I crumbs(const uint8_t* p) {
    int32_t b;
    std::memcpy(&b, p, sizeof b);
    const I pick = _mm512_set_epi32(0x80808003, 0x80808003, 0x80808003, 0x80808003,
                                    0x80808002, 0x80808002, 0x80808002, 0x80808002,
                                    0x80808001, 0x80808001, 0x80808001, 0x80808001,
                                    0x80808000, 0x80808000, 0x80808000, 0x80808000);
    const I shift = _mm512_set_epi32(6, 4, 2, 0, 6, 4, 2, 0, 6, 4, 2, 0, 6, 4, 2, 0);
    const I x = _mm512_shuffle_epi8(_mm512_set1_epi32(b), pick);
    return _mm512_and_si512(_mm512_srlv_epi32(x, shift), _mm512_set1_epi32(3));
  }
  // (e0..e15, o0..o15) -> (e0 o0 .. e7 o7, e8 o8 .. e15 o15).
  static void interleave(__m512& e, __m512& o) {
    const I lo = _mm512_set_epi32(23, 7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    const I hi = _mm512_set_epi32(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8);
    const __m512 a = _mm512_permutex2var_ps(e, lo, o);
    o = _mm512_permutex2var_ps(e, hi, o);
    e = a;
  }
  static void broadcast2(__m128 v, __m512& a, __m512& b) {
    a = _mm512_broadcastss_ps(v);
    b = _mm512_permutexvar_ps(_mm512_set1_epi32(1), _mm512_castps128_ps512(v));
  }
  static __m512 bf16(const uint8_t* p) {
    const I x = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
    return _mm512_castsi512_ps(_mm512_slli_epi32(x, 16));
  }
  static I to_half(__m512 v) {
    return _mm512_cvtepu16_epi32(_mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  static void store_u16(uint16_t* p, I v, int n) {
    const auto mask = static_cast<__mmask16>(n >= 16 ? 0xFFFFu : (1u << n) - 1u);
    _mm256_mask_storeu_epi16(p, mask, _mm512_cvtepi32_epi16(v));
  }
};

}  // namespace

constinit const EmbeddingKernels kEmbeddingAvx512 =
    make_embedding_kernels<BagOps<Avx512, ZmmExtra>>();

}  // namespace quire::detail
