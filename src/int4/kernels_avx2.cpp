// The AVX2 W4A8 kernels (the contract is in int4_kernels.h), also run by the avx_vnni
// and avx512_vnni_ymm paths. The exact vpmaddubsw formulation: codes in [0, 15] times
// A in [-128, 127] gives pair sums of at most 3840 in magnitude and the two K steps of a
// block at most 7680 together, inside int16; vpmaddwd against ones widens them exactly.
//
// 16 ymm registers hold rows x 2 int16 sums for one 16-column chunk of the panel (two
// 8-column halves), so the tile kernel runs the panel's four chunks one after another,
// each over the whole group range; the int32 and float sums of a chunk live in stack tiles.
#include "common/intrinsics.h"
#include "int4/int4_kernels.h"

namespace quire::int4 {
namespace {

template <Int4ScaleType ST>
inline __m256 load_scales(const void* base, int64_t i) {
  if constexpr (ST == Int4ScaleType::f32) {
    return _mm256_loadu_ps(static_cast<const float*>(base) + i);
  } else {
    const __m128i h =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const uint16_t*>(base) + i));
    if constexpr (ST == Int4ScaleType::f16) return _mm256_cvtph_ps(h);
    else return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
  }
}

// Lanes [0, n) set, for maskload / maskstore of the last columns.
inline __m256i lane_mask(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// The tile kernel's block loop, for 2-4 rows and one 16-column chunk (two 8-column
// halves h, 32 bytes of each 256-byte block): tile_runs adds to s32 (rows x 2 x 8 int32,
// 32-byte aligned) `runs` runs of `blocks` (1..4) blocks from w on, A's rows at a0,
// a0 + lda, a2 = a0 + 2 lda, a2 + lda: within a run s16[r][h] += (x_h & 15) . A_r[0..3]
// + (x_h >> 4 & 15) . A_r[4..7] in int16 lanes (<= 7680 a block, 30720 a run: exact),
// widened into s32 at the run's end (the run's first block sets s16). Against a vpmaddwd and a vpaddd per block, row and
// half, a block of 4 rows costs 38 vector instructions instead of 54 (16 vpmaddubsw
// instead of 24). Assembly for the reason of the one-row loop below: from intrinsics
// GCC 12 kept 7 of the 8 int16 sums on the stack (a load and a store per block each).
// ymm10: the half's low nibbles, ymm11: its high nibbles, ymm12 / ymm13: A's broadcasts.
// The first block of a run sets the int16 sums (ADD = SET), the others add to them.
#define QUIRE_TROW(r, h, BASE, ADD)                \
  "vpbroadcastd " BASE ", %%ymm12\n\t"             \
  "vpbroadcastd 4" BASE ", %%ymm13\n\t"            \
  "vpmaddubsw %%ymm12, %%ymm10, %%ymm12\n\t"       \
  "vpmaddubsw %%ymm13, %%ymm11, %%ymm13\n\t" ADD(r, h)
#define QUIRE_TSET(r, h) "vpaddw %%ymm13, %%ymm12, %[s" #r #h "]\n\t"
#define QUIRE_TADD(r, h)                         \
  "vpaddw %%ymm13, %%ymm12, %%ymm12\n\t"         \
  "vpaddw %%ymm12, %[s" #r #h "], %[s" #r #h "]\n\t"
#define QUIRE_THALF(h, offset, ROWS, ADD)          \
  "vmovdqu " #offset "(%[w]), %%ymm10\n\t"         \
  "vpsrlw $4, %%ymm10, %%ymm11\n\t"                \
  "vpand %%ymm10, %[nib], %%ymm10\n\t"             \
  "vpand %%ymm11, %[nib], %%ymm11\n\t" ROWS(h, ADD)
#define QUIRE_TROWS2(h, ADD) \
  QUIRE_TROW(0, h, "(%[a0])", ADD) QUIRE_TROW(1, h, "(%[a0],%[lda])", ADD)
#define QUIRE_TROWS3(h, ADD) QUIRE_TROWS2(h, ADD) QUIRE_TROW(2, h, "(%[a2])", ADD)
#define QUIRE_TROWS4(h, ADD) QUIRE_TROWS3(h, ADD) QUIRE_TROW(3, h, "(%[a2],%[lda])", ADD)
#define QUIRE_TBLOCK(PREFETCH, ROWS, ADD)                                     \
  PREFETCH QUIRE_THALF(0, 0, ROWS, ADD) QUIRE_THALF(1, 32, ROWS, ADD)         \
  "add $256, %[w]\n\t"                                                        \
  "add $8, %[a0]\n\t"                                                         \
  "add $8, %[a2]\n\t"
#define QUIRE_TWIDEN(r, h)                                   \
  "vpmaddwd %[s" #r #h "], %%ymm13, %%ymm12\n\t"             \
  "vpaddd " #r "*64+" #h "*32(%[s32]), %%ymm12, %%ymm12\n\t"   \
  "vmovdqa %%ymm12, " #r "*64+" #h "*32(%[s32])\n\t"
#define QUIRE_TWIDENS2 QUIRE_TWIDEN(0, 0) QUIRE_TWIDEN(0, 1) QUIRE_TWIDEN(1, 0) QUIRE_TWIDEN(1, 1)
#define QUIRE_TWIDENS3 QUIRE_TWIDENS2 QUIRE_TWIDEN(2, 0) QUIRE_TWIDEN(2, 1)
#define QUIRE_TWIDENS4 QUIRE_TWIDENS3 QUIRE_TWIDEN(3, 0) QUIRE_TWIDEN(3, 1)
#define QUIRE_TILE_RUNS(PREFETCH, ROWS, WIDENS)                                       \
  __m256i s[4][2];                                                                    \
  for (auto& row : s) row[0] = row[1] = _mm256_setzero_si256();                       \
  const __m256i nibble = _mm256_set1_epi8(0x0F);                                      \
  const int8_t* a2 = MR >= 3 ? a0 + 2 * lda : a0;                                     \
  asm volatile(                                                                       \
      "2:\n\t"                                                                        \
      "mov %[blocks], %%rcx\n\t" QUIRE_TBLOCK(PREFETCH, ROWS, QUIRE_TSET)             \
      "dec %%rcx\n\t"                                                                 \
      "jz 3f\n\t"                                                                     \
      "1:\n\t" QUIRE_TBLOCK(PREFETCH, ROWS, QUIRE_TADD)                               \
      "dec %%rcx\n\t"                                                                 \
      "jnz 1b\n\t"                                                                    \
      "3:\n\t"                                                                        \
      "vpcmpeqw %%ymm13, %%ymm13, %%ymm13\n\t"                                        \
      "vpsrlw $15, %%ymm13, %%ymm13\n\t" WIDENS                                       \
      "dec %[runs]\n\t"                                                               \
      "jnz 2b"                                                                        \
      : [s00] "+x"(s[0][0]), [s01] "+x"(s[0][1]), [s10] "+x"(s[1][0]),                \
        [s11] "+x"(s[1][1]), [s20] "+x"(s[2][0]), [s21] "+x"(s[2][1]),                \
        [s30] "+x"(s[3][0]), [s31] "+x"(s[3][1]), [w] "+r"(w), [a0] "+r"(a0),         \
        [a2] "+r"(a2), [runs] "+r"(runs)                                              \
      : [nib] "x"(nibble), [s32] "r"(s32), [blocks] "r"(blocks), [lda] "r"(lda),     \
        [pf] "r"(pf)                                                                  \
      : "xmm10", "xmm11", "xmm12", "xmm13", "rcx", "cc", "memory")
#define QUIRE_TILE_PREFETCH             \
  "prefetcht0 (%[w], %[pf])\n\t"        \
  "prefetcht0 64(%[w], %[pf])\n\t"      \
  "prefetcht0 128(%[w], %[pf])\n\t"     \
  "prefetcht0 192(%[w], %[pf])\n\t"

template <int MR>
void tile_runs(int32_t* s32, const uint8_t* w, const int8_t* a0, int64_t lda, int64_t runs,
               int64_t blocks, int64_t pf) {
  static_assert(MR >= 2 && MR <= 4);
  if (pf != 0) {
    if constexpr (MR == 2) { QUIRE_TILE_RUNS(QUIRE_TILE_PREFETCH, QUIRE_TROWS2, QUIRE_TWIDENS2); }
    if constexpr (MR == 3) { QUIRE_TILE_RUNS(QUIRE_TILE_PREFETCH, QUIRE_TROWS3, QUIRE_TWIDENS3); }
    if constexpr (MR == 4) { QUIRE_TILE_RUNS(QUIRE_TILE_PREFETCH, QUIRE_TROWS4, QUIRE_TWIDENS4); }
  } else {
    if constexpr (MR == 2) { QUIRE_TILE_RUNS("", QUIRE_TROWS2, QUIRE_TWIDENS2); }
    if constexpr (MR == 3) { QUIRE_TILE_RUNS("", QUIRE_TROWS3, QUIRE_TWIDENS3); }
    if constexpr (MR == 4) { QUIRE_TILE_RUNS("", QUIRE_TROWS4, QUIRE_TWIDENS4); }
  }
}
#undef QUIRE_TILE_PREFETCH
#undef QUIRE_TILE_RUNS
#undef QUIRE_TWIDENS4
#undef QUIRE_TWIDENS3
#undef QUIRE_TWIDENS2
#undef QUIRE_TWIDEN
#undef QUIRE_TROWS4
#undef QUIRE_TROWS3
#undef QUIRE_TROWS2
#undef QUIRE_TBLOCK
#undef QUIRE_THALF
#undef QUIRE_TADD
#undef QUIRE_TSET
#undef QUIRE_TROW

template <int MR, Int4ScaleType ST, bool kMin>
void kernel(const Int4KernelArgs& p) {
  constexpr int64_t kInt16Blocks = 4;
  for (int v = 0; v < 4; ++v) {
    if (p.final_output && 16 * v >= p.cols) break;
    alignas(32) float acc[MR][16] = {};
    const uint8_t* w = p.codes + 64 * v;
    const int8_t* a = p.a;
    const int64_t pf = v == 0 ? p.prefetch : 0;  // the first chunk's pass brings in whole blocks
    for (int g = 0; g < p.groups; ++g) {
      const int64_t k8 = g + 1 == p.groups ? p.last_k8 : p.group_k8;
      alignas(32) int32_t s32[MR][2][8];
      for (auto& row : s32)
        for (auto& half : row) _mm256_store_si256(reinterpret_cast<__m256i*>(half), _mm256_setzero_si256());
      const int64_t full = k8 / kInt16Blocks, rest = k8 % kInt16Blocks;
      if (full > 0) tile_runs<MR>(&s32[0][0][0], w, a, p.lda, full, kInt16Blocks, pf);
      w += full * kInt16Blocks * Int4Layout::kBlockBytes;
      a += full * kInt16Blocks * Int4Layout::kBlockK;
      if (rest > 0) tile_runs<MR>(&s32[0][0][0], w, a, p.lda, 1, rest, pf);
      w += rest * Int4Layout::kBlockBytes;
      a += rest * Int4Layout::kBlockK;
      const int64_t gi = int64_t{g} * Int4Layout::kPanel + 16 * v;
      for (int h = 0; h < 2; ++h) {
        const __m256 sv = load_scales<ST>(p.scales, gi + 8 * h);
        const __m256 mv = kMin ? _mm256_loadu_ps(p.mins + gi + 8 * h) : _mm256_setzero_ps();
        for (int r = 0; r < MR; ++r) {
          const int32_t R = p.rsum[r * p.ld_rsum + g];
          const __m256i sr = _mm256_load_si256(reinterpret_cast<const __m256i*>(s32[r][h]));
          __m256 f = _mm256_load_ps(acc[r] + 8 * h);
          if constexpr (kMin) {
            f = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sr), sv, f);
            f = _mm256_fmadd_ps(mv, _mm256_set1_ps(static_cast<float>(R)), f);
          } else {
            const __m256i P = _mm256_sub_epi32(sr, _mm256_set1_epi32(R * 8));
            f = _mm256_fmadd_ps(_mm256_cvtepi32_ps(P), sv, f);
          }
          _mm256_store_ps(acc[r] + 8 * h, f);
        }
      }
    }

    for (int r = 0; r < MR; ++r) {
      float* c = p.c + r * p.ldc + 16 * v;
      if (!p.final_output) {
        for (int h = 0; h < 2; ++h) _mm256_storeu_ps(c + 8 * h, _mm256_load_ps(acc[r] + 8 * h));
        continue;
      }
      const __m256 as = _mm256_set1_ps(p.a_scale[r]);
      for (int h = 0; h < 2 && 16 * v + 8 * h < p.cols; ++h) {
        const __m256i m = lane_mask(p.cols - 16 * v - 8 * h);
        const __m256 b = p.bias ? _mm256_maskload_ps(p.bias + 16 * v + 8 * h, m) : _mm256_setzero_ps();
        __m256 o = _mm256_fmadd_ps(as, _mm256_load_ps(acc[r] + 8 * h), b);
        if (p.relu) o = _mm256_max_ps(o, _mm256_setzero_ps());
        _mm256_maskstore_ps(c + 8 * h, m, o);
      }
    }
  }
}

// Writes the 64 accumulated columns of a one-row panel: C = fma(a_scale, acc, bias) (relu)
// for the first p.cols columns, or the raw partial sums.
inline void store_row(const Int4KernelArgs& p, const __m256 (&f)[8]) {
  if (!p.final_output) {
    for (int c = 0; c < 8; ++c) _mm256_storeu_ps(p.c + 8 * c, f[c]);
    return;
  }
  const __m256 as = _mm256_set1_ps(p.a_scale[0]);
  for (int c = 0; c < 8 && 8 * c < p.cols; ++c) {
    const __m256i m = lane_mask(p.cols - 8 * c);
    const __m256 b = p.bias ? _mm256_maskload_ps(p.bias + 8 * c, m) : _mm256_setzero_ps();
    __m256 o = _mm256_fmadd_ps(as, f[c], b);
    if (p.relu) o = _mm256_max_ps(o, _mm256_setzero_ps());
    _mm256_maskstore_ps(p.c + 8 * c, m, o);
  }
}

// One row (decode): the panel in a single pass, 256-byte block after block, instead of
// the tile kernel's four passes of 64 bytes per block; lane j of chunk c is column 8c + j.
//
// row_runs adds to s32 (8 chunks x 8 int32 lanes, 32-byte aligned) `runs` runs of
// `blocks` (1..4) blocks from w on, A's bytes from a on: within a run, s16[c] +=
// (x_c & 15) . A[0..3] + (x_c >> 4 & 15) . A[4..7] for the eight 32-byte chunks x_c of
// each block (vpmaddubsw, int16 lanes; each block adds at most 2 x 2 x 15 x 128 = 7680
// to a lane, so four blocks, 30720, stay below 32767: exact); at the run's end the
// int16 sums are widened into s32 (vpmaddwd against ones); the first block of a run sets
// them (one vpaddw and the clearing fewer per chunk and run).
//
// All of it is one assembly loop: the int16 sums stay in registers and the int32 ones
// in s32. With the widening in C++ between calls of a 4-block loop, the int16 sums went
// through memory at every call and the first vpmaddwd after it collected a quarter of
// the kernel's samples. Zen 4, avx2, quiet, 3 alternating rounds, GB/s of codes:
// 1 x 4096 x 4096 (L3) 36.0 -> 38.5, 1 x 4096 x 11008 (DRAM) 30-35 -> 36-37,
// 1 x 4096 x 32000 21-23 -> 28-30. From intrinsics GCC 12 loaded each chunk twice and
// kept half of the accumulators on the stack.
// ymm8 / ymm9: A's broadcasts, ymm10: the chunk, ymm11 / ymm12: low / high nibbles,
// ymm13: int16 ones.
#define QUIRE_CHUNK_PAIRS(offset)                  \
  "vmovdqa " #offset "(%[w]), %%ymm10\n\t"         \
  "vpsrlw $4, %%ymm10, %%ymm12\n\t"                \
  "vpand %%ymm10, %[nib], %%ymm11\n\t"             \
  "vpand %%ymm12, %[nib], %%ymm12\n\t"             \
  "vpmaddubsw %%ymm8, %%ymm11, %%ymm11\n\t"        \
  "vpmaddubsw %%ymm9, %%ymm12, %%ymm12\n\t"
// The first block of a run sets the int16 sums, the others add to them.
#define QUIRE_CHUNK_FIRST(c, offset) \
  QUIRE_CHUNK_PAIRS(offset) "vpaddw %%ymm12, %%ymm11, %[s" #c "]\n\t"
#define QUIRE_CHUNK(c, offset)                 \
  QUIRE_CHUNK_PAIRS(offset)                    \
  "vpaddw %%ymm12, %%ymm11, %%ymm11\n\t"       \
  "vpaddw %%ymm11, %[s" #c "], %[s" #c "]\n\t"
#define QUIRE_WIDEN(c)                                 \
  "vpmaddwd %[s" #c "], %%ymm13, %%ymm10\n\t"          \
  "vpaddd " #c "*32(%[s32]), %%ymm10, %%ymm10\n\t"     \
  "vmovdqa %%ymm10, " #c "*32(%[s32])\n\t"
// The block loop, with or without a prefetch of the block `pf` bytes ahead.
#define QUIRE_ROW_RUNS(PREFETCH)                                                      \
  /* Eight named sums, not an array: GCC cleared an array on the stack with a rep stos */ \
  /* per call (its start-up was 5.6% of this loop's samples, Zen 5, M = 1) as well as   */ \
  /* the registers.                                                                      */ \
  __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0,      \
          s6 = s0, s7 = s0;                                                            \
  const __m256i nibble = _mm256_set1_epi8(0x0F);                                      \
  asm volatile(                                                                       \
      "vpcmpeqw %%ymm13, %%ymm13, %%ymm13\n\t"                                        \
      "vpsrlw $15, %%ymm13, %%ymm13\n\t"                                              \
      "2:\n\t"                                                                        \
      "mov %[blocks], %%rcx\n\t" PREFETCH                                             \
      "vpbroadcastd (%[a]), %%ymm8\n\t"                                               \
      "vpbroadcastd 4(%[a]), %%ymm9\n\t"                                              \
      QUIRE_CHUNK_FIRST(0, 0) QUIRE_CHUNK_FIRST(1, 32) QUIRE_CHUNK_FIRST(2, 64)       \
      QUIRE_CHUNK_FIRST(3, 96) QUIRE_CHUNK_FIRST(4, 128) QUIRE_CHUNK_FIRST(5, 160)    \
      QUIRE_CHUNK_FIRST(6, 192) QUIRE_CHUNK_FIRST(7, 224)                             \
      "add $256, %[w]\n\t"                                                            \
      "add $8, %[a]\n\t"                                                              \
      "dec %%rcx\n\t"                                                                 \
      "jz 3f\n\t"                                                                     \
      "1:\n\t" PREFETCH                                                               \
      "vpbroadcastd (%[a]), %%ymm8\n\t"                                               \
      "vpbroadcastd 4(%[a]), %%ymm9\n\t"                                              \
      QUIRE_CHUNK(0, 0) QUIRE_CHUNK(1, 32) QUIRE_CHUNK(2, 64) QUIRE_CHUNK(3, 96)     \
      QUIRE_CHUNK(4, 128) QUIRE_CHUNK(5, 160) QUIRE_CHUNK(6, 192) QUIRE_CHUNK(7, 224) \
      "add $256, %[w]\n\t"                                                            \
      "add $8, %[a]\n\t"                                                              \
      "dec %%rcx\n\t"                                                                 \
      "jnz 1b\n\t"                                                                    \
      "3:\n\t"                                                                        \
      QUIRE_WIDEN(0) QUIRE_WIDEN(1) QUIRE_WIDEN(2) QUIRE_WIDEN(3)                     \
      QUIRE_WIDEN(4) QUIRE_WIDEN(5) QUIRE_WIDEN(6) QUIRE_WIDEN(7)                     \
      "dec %[runs]\n\t"                                                               \
      "jnz 2b"                                                                        \
      : [s0] "+x"(s0), [s1] "+x"(s1), [s2] "+x"(s2), [s3] "+x"(s3), [s4] "+x"(s4),    \
        [s5] "+x"(s5), [s6] "+x"(s6), [s7] "+x"(s7),                                 \
        [w] "+r"(w), [a] "+r"(a), [runs] "+r"(runs)                                   \
      : [nib] "x"(nibble), [s32] "r"(s32), [blocks] "r"(blocks), [pf] "r"(pf)        \
      : "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "rcx", "cc", "memory")

void row_runs(int32_t* s32, const uint8_t* w, const int8_t* a, int64_t runs, int64_t blocks,
              int64_t pf) {
  QUIRE_ROW_RUNS("");
}

// From memory the block 16 KiB ahead is prefetched, a line per 64 bytes (see make_kernels).
void row_runs_prefetch(int32_t* s32, const uint8_t* w, const int8_t* a, int64_t runs,
                       int64_t blocks, int64_t pf) {
  QUIRE_ROW_RUNS("prefetcht0 (%[w], %[pf])\n\t"
                 "prefetcht0 64(%[w], %[pf])\n\t"
                 "prefetcht0 128(%[w], %[pf])\n\t"
                 "prefetcht0 192(%[w], %[pf])\n\t");
}
#undef QUIRE_ROW_RUNS
#undef QUIRE_WIDEN
#undef QUIRE_CHUNK
#undef QUIRE_CHUNK_FIRST
#undef QUIRE_CHUNK_PAIRS

template <Int4ScaleType ST, bool kMin>
void kernel_row(const Int4KernelArgs& p) {
  constexpr int64_t kInt16Blocks = 4;
  const auto runs_of = p.prefetch != 0 ? &row_runs_prefetch : &row_runs;
  __m256 f[8];
  for (__m256& v : f) v = _mm256_setzero_ps();
  const uint8_t* w = p.codes;
  const int8_t* a = p.a;
  for (int g = 0; g < p.groups; ++g) {
    const int64_t k8 = g + 1 == p.groups ? p.last_k8 : p.group_k8;
    alignas(32) int32_t s32[8][8];  // zeroed by vector stores: `= {}` became a rep stos
    for (auto& row : s32) _mm256_store_si256(reinterpret_cast<__m256i*>(row), _mm256_setzero_si256());
    const int64_t full = k8 / kInt16Blocks, rest = k8 % kInt16Blocks;
    if (full > 0) runs_of(&s32[0][0], w, a, full, kInt16Blocks, p.prefetch);
    w += full * kInt16Blocks * Int4Layout::kBlockBytes;
    a += full * kInt16Blocks * Int4Layout::kBlockK;
    if (rest > 0) runs_of(&s32[0][0], w, a, 1, rest, p.prefetch);
    w += rest * Int4Layout::kBlockBytes;
    a += rest * Int4Layout::kBlockK;
    const int64_t gi = int64_t{g} * Int4Layout::kPanel;
    const int32_t R = p.rsum[g];
    for (int c = 0; c < 8; ++c) {
      const __m256 sv = load_scales<ST>(p.scales, gi + 8 * c);
      const __m256i sc = _mm256_load_si256(reinterpret_cast<const __m256i*>(s32[c]));
      if constexpr (kMin) {
        f[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sc), sv, f[c]);
        f[c] = _mm256_fmadd_ps(_mm256_loadu_ps(p.mins + gi + 8 * c),
                               _mm256_set1_ps(static_cast<float>(R)), f[c]);
      } else {
        const __m256i P = _mm256_sub_epi32(sc, _mm256_set1_epi32(R * 8));
        f[c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(P), sv, f[c]);
      }
    }
  }
  store_row(p, f);
}

constexpr Int4Kernels make_kernels() {
  Int4Kernels k{"int4_avx2", 4, {}};
  using ST = Int4ScaleType;
  auto fill = [&]<bool kMin, ST S>() {
    auto& row = k.fn[kMin ? 1 : 0][static_cast<int>(S)];
    row[1] = &kernel_row<S, kMin>;
    row[2] = &kernel<2, S, kMin>;
    row[3] = &kernel<3, S, kMin>;
    row[4] = &kernel<4, S, kMin>;
  };
  // The tile kernel walks a panel four times, 64 bytes of every 256-byte block a pass;
  // from memory (M = 1, 4096 x 4096, caches flushed, Zen 4) the first pass prefetching
  // whole blocks 16 KiB ahead streamed 9.9 GB/s against 6.2 without. The one-row kernel
  // prefetches as far ahead (Xeon 6/207, flushed, machine loaded: best of three runs
  // 9.8 GB/s against 7.2 without).
  k.decode_prefetch = 16384;
  fill.template operator()<false, ST::f32>();
  fill.template operator()<false, ST::f16>();
  fill.template operator()<false, ST::bf16>();
  fill.template operator()<true, ST::f32>();
  fill.template operator()<true, ST::f16>();
  fill.template operator()<true, ST::bf16>();
  return k;
}

}  // namespace

const Int4Kernels kInt4Avx2 = make_kernels();

}  // namespace quire::int4
