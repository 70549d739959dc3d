// The embedding-bag kernels on AVX2 (8 lanes): embedding_simd.h over Avx2 and the nibble
// unpack below.
#include "simd/vec_avx2.h"

#include "embedding/bag_ops.h"

namespace quire::detail {
namespace {

struct YmmExtra {
  using I = __m256i;
  // 4 bytes broadcast to every dword; lane j takes byte j / 2, then its nibble j % 2.
  static I nibbles(const uint8_t* p) {
    int32_t b;
    std::memcpy(&b, p, sizeof b);
    const I pick = _mm256_setr_epi32(0x80808000, 0x80808000, 0x80808001, 0x80808001,
                                     0x80808002, 0x80808002, 0x80808003, 0x80808003);
    const I x = _mm256_shuffle_epi8(_mm256_set1_epi32(b), pick);
    return _mm256_and_si256(_mm256_srlv_epi32(x, _mm256_setr_epi32(0, 4, 0, 4, 0, 4, 0, 4)),
                            _mm256_set1_epi32(0xF));
  }
  // 2 bytes; lane j takes byte j / 4, then its bits 2 * (j % 4).
  static I crumbs(const uint8_t* p) {
    int16_t b;
    std::memcpy(&b, p, sizeof b);
    const I pick = _mm256_setr_epi32(0x80808000, 0x80808000, 0x80808000, 0x80808000,
                                     0x80808001, 0x80808001, 0x80808001, 0x80808001);
    const I x = _mm256_shuffle_epi8(_mm256_set1_epi16(b), pick);
    return _mm256_and_si256(_mm256_srlv_epi32(x, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)),
                            _mm256_set1_epi32(3));
  }
  // (e0..e7, o0..o7) -> (e0 o0 .. e3 o3, e4 o4 .. e7 o7).
  static void interleave(__m256& e, __m256& o) {
    const __m256 lo = _mm256_unpacklo_ps(e, o), hi = _mm256_unpackhi_ps(e, o);
    e = _mm256_permute2f128_ps(lo, hi, 0x20);
    o = _mm256_permute2f128_ps(lo, hi, 0x31);
  }
  static void broadcast2(__m128 v, __m256& a, __m256& b) {
    a = _mm256_broadcastss_ps(v);
    b = _mm256_permutevar8x32_ps(_mm256_castps128_ps256(v), _mm256_set1_epi32(1));
  }
  static __m256 bf16(const uint8_t* p) {
    const I x = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    return _mm256_castsi256_ps(_mm256_slli_epi32(x, 16));
  }
  static I to_half(__m256 v) {
    return _mm256_cvtepu16_epi32(_mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  static void store_u16(uint16_t* p, I v, int n) {
    const __m128i h = _mm_packus_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    if (n == 8) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(p), h);
      return;
    }
    alignas(16) uint16_t buf[8];
    _mm_store_si128(reinterpret_cast<__m128i*>(buf), h);
    std::memcpy(p, buf, sizeof(uint16_t) * static_cast<size_t>(n));
  }
};

}  // namespace

constinit const EmbeddingKernels kEmbeddingAvx2 =
    make_embedding_kernels<BagOps<Avx2, YmmExtra>>();

}  // namespace quire::detail
