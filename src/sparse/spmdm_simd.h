// The vector loop of SpMDM, written once over SpmdmVectors<Vec, kMaxNv> (the vector
// vocabulary Vec, simd/vec_avx2.h or vec_avx512.h, and the chunk size: SpmdmYmm in
// spmdm_ymm.h, SpmdmZmm in spmdm_avx512.cpp) and compiled in each ISA's translation unit. Included
// only by spmdm_avx2.cpp and spmdm_avx512.cpp; internal linkage throughout, so no
// AVX-512 code can reach another translation unit through the linker.
//
// The block's rows are taken in chunks of R = nv * VL rows (VL = V::kLanes16 int16 per
// vector, nv <= V::kMaxNv; see Chunking):
// 1. transpose: the columns of A's chunk that the block's nonzeros read, 16 at a time
//    (UsedDepths; at low densities every 16 rows of B hold one, so nearly all), become
//    at (16 * u.count x R int16, zero-extended) by 16 x 16 byte transposes
//    (transpose_16x16): ~0.05 ns per byte of A on Zen 4.
// 2. per column: each pair of nonzeros (k1, v1), (k2, v2) interleaves rows k1 and k2 of
//    at (vpunpcklwd / vpunpckhwd) and multiplies them with the broadcast pair (v1, v2)
//    (vpmaddwd): a1 * v1 + a2 * v2 for every row of the chunk at once, exact in int32
//    (|.| <= 2 * 255 * 128), added to 2 * nv int32 accumulators; an odd last nonzero
//    pairs with itself at weight 0. The accumulators go to sums, kGroupColumns columns
//    of R int32 each.
// 3. per kGroupColumns columns: 8 x 8 (ymm) or 16 x 16 (zmm) int32 transposes of sums
//    (add_sums over V::Vec, the vector vocabulary) give pieces of rows of C, added to C (or stored) by row vectors, rows
//    outer: walking down a column of C instead (ldc apart, often a power of two) maps
//    every line to the same few L1 sets and costs up to 4x as much.
// All int32 arithmetic wraps (vpaddd), which is the modulo-2^32 accumulation SpMDM
// specifies; no sum can overflow anyway (32768 * 255 * 128 < 2^31).
//
// Layout of at. The interleaving instructions work within 128-bit lanes of 8 int16, so
// the rows of a chunk are permuted such that vpmaddwd leaves the sums in row order:
// element e = v * VL + 8 * L + q of a row of at (vector v, lane L, q < 8) holds chunk row
//   v * VL + 4 * L + q                 for q < 4
//   v * VL + VL / 2 + 4 * L + (q - 4)  for q >= 4.
// The low interleave of vector v then yields, after vpmaddwd, chunk rows v * VL + 0 ..
// VL / 2 - 1 in order and the high one rows v * VL + VL / 2 .. VL - 1. Rows past the
// block's last are read as copies of the last row; their sums are never stored. Row k
// of B is row u.at_row(k) of at (k itself when every depth block is used).
//
// Layout of sums: column j of a group of kGroupColumns holds the chunk's R sums in row
// order at sums[j * R + 0 .. R).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

#include "common/intrinsics.h"
#include "sparse/spmdm_kernels.h"

namespace quire::detail {
namespace {

// at's rows are rounded up to this (the depth of one transpose_16x16).
constexpr int kTransposeDepth = 16;
// Depths transposed per pass over the chunk's rows: 64 rows of at (8 KiB at 64 rows)
// are complete while they are still in L1.
constexpr int kTransposeTile = 64;
// Columns whose sums are kept before being added to C (16 KiB at 64 rows): 4 16-column
// blocks along each row of C. 32 and 128 measured the same.
constexpr int kGroupColumns = 64;
// The most rows a chunk may have.
constexpr int kMaxChunkRows = 64;
// The size at may reach before chunks get fewer rows: half of Zen 4's L2. Past it (more
// than 4096 rows of B used with 64-row chunks) each chunk costs more than its share.
constexpr int64_t kTransposedBytes = int64_t{1} << 19;
// A per-thread scratch up to this size is kept for the next call: at for the deepest B
// (32768 x 16 int16, 1 MiB) and the sums; so no call allocates after a thread's first
// few. (A larger one would be allocated for the call and freed after it.)
constexpr size_t kKeepBytes =
    (size_t{1} << 20) + kGroupColumns * kMaxChunkRows * sizeof(int32_t);

struct AlignedDelete {
  void operator()(uint8_t* p) const { ::operator delete[](p, std::align_val_t{64}); }
};
using AlignedBuffer = std::unique_ptr<uint8_t[], AlignedDelete>;

inline AlignedBuffer allocate_aligned(size_t bytes) {
  return AlignedBuffer(static_cast<uint8_t*>(::operator new[](bytes, std::align_val_t{64})));
}

// 64-byte aligned scratch of at least `bytes`, without an allocation per call in the
// common case. Written and read only through vector loads and stores.
class Scratch {
 public:
  explicit Scratch(size_t bytes) {
    if (bytes > kKeepBytes) {
      own_ = allocate_aligned(bytes);
      data_ = own_.get();
      return;
    }
    thread_local AlignedBuffer kept;
    thread_local size_t kept_bytes = 0;
    if (kept_bytes < bytes) {
      kept = allocate_aligned(bytes);
      kept_bytes = bytes;
    }
    data_ = kept.get();
  }
  uint8_t* data() const { return data_; }

 private:
  AlignedBuffer own_;
  uint8_t* data_;
};

// out[k * ld + i] = p[i][k] (zero-extended to int16) for i < 16, k < 16. Rows i and
// 8 + i share a ymm (one per 128-bit lane), so each output row is one 32-byte store.
// Three rounds of interleaving (bytes, 16-bit pairs, 32-bit quads) gather 8 rows'
// bytes of each k per lane; a last interleave with zero widens them to int16.
inline void transpose_16x16(const uint8_t* const p[16], int16_t* out, int64_t ld) {
  __m256i r[8], a[8], b[8], c[8];
  for (int i = 0; i < 8; ++i) {
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[i]));
    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p[8 + i]));
    r[i] = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
  }
  for (int i = 0; i < 4; ++i) {  // a[2i]: rows 2i, 2i+1 of each lane at k 0..7; a[2i+1]: 8..15
    a[2 * i] = _mm256_unpacklo_epi8(r[2 * i], r[2 * i + 1]);
    a[2 * i + 1] = _mm256_unpackhi_epi8(r[2 * i], r[2 * i + 1]);
  }
  for (int h = 0; h < 2; ++h) {  // b[4h + t]: rows 4h .. 4h+3 of each lane at k 4t .. 4t+3
    const __m256i* s = a + 4 * h;
    b[4 * h + 0] = _mm256_unpacklo_epi16(s[0], s[2]);
    b[4 * h + 1] = _mm256_unpackhi_epi16(s[0], s[2]);
    b[4 * h + 2] = _mm256_unpacklo_epi16(s[1], s[3]);
    b[4 * h + 3] = _mm256_unpackhi_epi16(s[1], s[3]);
  }
  for (int t = 0; t < 4; ++t) {  // c[m]: the 8 rows of each lane at k 2m, 2m+1
    c[2 * t] = _mm256_unpacklo_epi32(b[t], b[4 + t]);
    c[2 * t + 1] = _mm256_unpackhi_epi32(b[t], b[4 + t]);
  }
  const __m256i zero = _mm256_setzero_si256();
  for (int m = 0; m < 8; ++m) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + (2 * m) * ld),
                        _mm256_unpacklo_epi8(c[m], zero));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + (2 * m + 1) * ld),
                        _mm256_unpackhi_epi8(c[m], zero));
  }
}

// (v1, v2) as the int16 pair of a 32-bit lane, v1 low: vpmaddwd's weights.
inline int32_t pack_pair(int8_t v1, int8_t v2) {
  return static_cast<int32_t>(static_cast<uint16_t>(int16_t{v1}) |
                              static_cast<uint32_t>(static_cast<uint16_t>(int16_t{v2})) << 16);
}

// A path of the vector loop: the vocabulary Vec (kLanes16 = 2 * Vec::W int16 rows per
// vector) and chunks of at most kMaxNv vectors.
template <class V, int MaxNv>
struct SpmdmVectors {
  using Vec = V;
  static constexpr int kLanes16 = 2 * V::W;
  static constexpr int kMaxNv = MaxNv;
};

// The most depth blocks (16 rows of B) there are: K <= 32768.
constexpr int kMaxDepthBlocks = 32768 / kTransposeDepth;

// The depth blocks (rows [16 d, 16 d + 16) of B) that hold a nonzero of the block's
// columns; at holds only those, in order: row k of B is row at_row(k) of at.
struct UsedDepths {
  int count = 0;
  bool all = false;                // every block used: at_row(k) = k
  int16_t slot[kMaxDepthBlocks];   // slot[d]: block d's place in at (unused blocks: -1)
  int16_t depth[kMaxDepthBlocks];  // depth[s]: the block at place s, ascending
  int at_row(int k) const {
    return slot[k / kTransposeDepth] * kTransposeDepth + k % kTransposeDepth;
  }
};

// With 4 or more nonzeros per depth block, blocks are taken as all used without
// looking: spread evenly, the nonzeros would leave fewer than 2% of the blocks unused.
// Otherwise the blocks are numbered in the order the nonzeros meet them, then sorted so
// that the transpose reads A forward.
inline void find_used_depths(const SpmdmArgs& a, UsedDepths& u) {
  const int blocks = (a.K + kTransposeDepth - 1) / kTransposeDepth;
  const int32_t* colptr = a.colptr + a.block.col_start;
  const int32_t p0 = colptr[0], p1 = colptr[a.block.col_size];
  u.all = p1 - p0 >= 4 * int64_t{blocks};
  if (u.all) {
    u.count = blocks;
    for (int d = 0; d < blocks; ++d) u.slot[d] = u.depth[d] = static_cast<int16_t>(d);
    return;
  }
  std::fill_n(u.slot, blocks, int16_t{-1});
  u.count = 0;
  for (int32_t p = p0; p < p1; ++p) {
    const int d = a.rowidx[p] / kTransposeDepth;
    if (u.slot[d] >= 0) continue;
    u.slot[d] = 0;
    u.depth[u.count++] = static_cast<int16_t>(d);
  }
  std::sort(u.depth, u.depth + u.count);
  for (int s = 0; s < u.count; ++s) u.slot[u.depth[s]] = static_cast<int16_t>(s);
  u.all = u.count == blocks;
}

// Rows [i0, i0 + rows) of the block (rows >= 1) into at, laid out for nv vectors of VL
// int16 (the layout at the top of this file): u.count * 16 rows of nv * VL.
inline void transpose_chunk(const SpmdmArgs& a, int i0, int rows, int nv, int VL,
                            const UsedDepths& u, int16_t* at) {
  const int R = nv * VL, K = a.K;
  const uint8_t* A0 = a.A + (int64_t{a.block.row_start} + i0) * a.lda;
  // src[e]: the row of A that element e of a row of at holds. Elements 16s .. 16s + 15
  // are transposed together: two lanes of 8.
  const uint8_t* src[kMaxChunkRows];
  for (int e = 0; e < R; ++e) {
    const int v = e / VL, L = e % VL / 8, q = e % 8;
    const int r = v * VL + (q < 4 ? 4 * L + q : VL / 2 + 4 * L + q - 4);
    src[e] = A0 + std::min(r, rows - 1) * a.lda;
  }
  const uint8_t* p[16];
  // Only a last block that K cuts short goes through zero-padded copies.
  const bool cut = u.count > 0 && (u.depth[u.count - 1] + 1) * kTransposeDepth > K;
  const int full = cut ? u.count - 1 : u.count;
  constexpr int kTileBlocks = kTransposeTile / kTransposeDepth;
  for (int s0 = 0; s0 < full; s0 += kTileBlocks) {
    const int s1 = std::min(s0 + kTileBlocks, full);
    for (int e0 = 0; e0 < R; e0 += 16) {
      for (int s = s0; s < s1; ++s) {
        for (int i = 0; i < 16; ++i) p[i] = src[e0 + i] + u.depth[s] * kTransposeDepth;
        transpose_16x16(p, at + int64_t{s} * kTransposeDepth * R + e0, R);
      }
    }
  }
  if (full == u.count) return;
  const int k0 = u.depth[full] * kTransposeDepth;
  alignas(16) uint8_t tail[16][kTransposeDepth] = {};
  for (int e0 = 0; e0 < R; e0 += 16) {
    for (int i = 0; i < 16; ++i) {
      std::memcpy(tail[i], src[e0 + i] + k0, static_cast<size_t>(K - k0));
      p[i] = tail[i];
    }
    transpose_16x16(p, at + int64_t{full} * kTransposeDepth * R + e0, R);
  }
}

// The chunk's sums for one column, nonzeros p in [begin, end): accumulator m (chunk rows
// [m * S, (m + 1) * S), S = VL / 2) is stored at sums + m * stride. Compact: at holds
// only the used depth blocks (u.at_row); otherwise all of them, and the look-up, which
// costs up to 30% at high densities, is left out.
template <class V, int NV, bool Compact>
inline void column_sums(const int16_t* at, const UsedDepths& u, const int16_t* rowidx,
                        const int8_t* values, int32_t begin, int32_t end, int32_t* sums,
                        int64_t stride) {
  using Vec = typename V::Vec;
  using I = typename Vec::I;
  constexpr int VL = V::kLanes16, R = NV * VL;
  I acc[2 * NV];
  for (auto& x : acc) x = Vec::zeroi();
  int32_t p = begin;
  for (; p + 1 < end; p += 2) {
    const int16_t* x1 = at + int64_t{Compact ? u.at_row(rowidx[p]) : rowidx[p]} * R;
    const int16_t* x2 = at + int64_t{Compact ? u.at_row(rowidx[p + 1]) : rowidx[p + 1]} * R;
    const I w = Vec::set1i(pack_pair(values[p], values[p + 1]));
    for (int v = 0; v < NV; ++v) {
      const I a1 = Vec::load_aligned(x1 + v * VL), a2 = Vec::load_aligned(x2 + v * VL);
      acc[2 * v] = Vec::addi(acc[2 * v], Vec::madd16(Vec::unpacklo16(a1, a2), w));
      acc[2 * v + 1] = Vec::addi(acc[2 * v + 1], Vec::madd16(Vec::unpackhi16(a1, a2), w));
    }
  }
  if (p < end) {  // an odd count: the last nonzero pairs with itself at weight 0
    const int16_t* x1 = at + int64_t{Compact ? u.at_row(rowidx[p]) : rowidx[p]} * R;
    const I w = Vec::set1i(pack_pair(values[p], 0));
    for (int v = 0; v < NV; ++v) {
      const I a1 = Vec::load_aligned(x1 + v * VL);
      acc[2 * v] = Vec::addi(acc[2 * v], Vec::madd16(Vec::unpacklo16(a1, a1), w));
      acc[2 * v + 1] = Vec::addi(acc[2 * v + 1], Vec::madd16(Vec::unpackhi16(a1, a1), w));
    }
  }
  for (int m = 0; m < 2 * NV; ++m) Vec::store_aligned(sums + m * stride, acc[m]);
}

// C[r * ldc + j] (+)= s[j * ld + r] for r < rows <= W, j < cols <= 16 (W = Vec::W, the
// int32 sums per accumulator): W x W int32 transposes (Vec::transpose) of 16 / W column
// blocks, then every load of C before the first store. Columns of s at or past cols are
// not read.
template <class Vec>
void add_sums(const int32_t* s, int64_t ld, int rows, int cols, int32_t* C, int64_t ldc,
              bool accumulation) {
  constexpr int W = Vec::W, kBlocks = 16 / W;
  using Lanes = typename Vec::Lanes;
  typename Vec::I row[kBlocks][W];
  const int blocks = (cols + W - 1) / W;
  const Lanes lanes[2] = {Lanes(cols), Lanes(cols > W ? cols - W : W)};  // [1]: cols > W only
  for (int h = 0; h < blocks; ++h) {
    for (int j = 0; j < W; ++j)
      row[h][j] = W * h + j < cols ? Vec::load_aligned(s + ld * (W * h + j)) : Vec::zeroi();
    Vec::transpose(row[h]);
  }
  if (accumulation) {
    for (int r = 0; r < rows; ++r) {
      for (int h = 0; h < blocks; ++h)
        row[h][r] = Vec::addi(row[h][r], Vec::load(C + r * ldc + W * h, lanes[h]));
    }
  }
  for (int r = 0; r < rows; ++r) {
    for (int h = 0; h < blocks; ++h) Vec::store(C + r * ldc + W * h, lanes[h], row[h][r]);
  }
}

// The block's rows [i0, i0 + rows), rows <= NV * VL, from their transposed chunk.
template <class V, int NV, bool Compact>
void spmdm_chunk(const SpmdmArgs& a, int i0, int rows, const UsedDepths& u, const int16_t* at,
                 int32_t* sums) {
  constexpr int S = V::kLanes16 / 2;  // int32 sums per accumulator
  constexpr int R = NV * V::kLanes16;
  const block_type_t& b = a.block;
  int32_t* C0 = a.C + i0 * a.ldc;
  for (int j0 = 0; j0 < b.col_size; j0 += kGroupColumns) {
    const int cols = std::min(kGroupColumns, b.col_size - j0);
    const int32_t* colptr = a.colptr + b.col_start + j0;
    if (a.accumulation && colptr[cols] == colptr[0]) continue;  // adds nothing
    for (int j = 0; j < cols; ++j) {
      column_sums<V, NV, Compact>(at, u, a.rowidx, a.values, colptr[j], colptr[j + 1],
                                  sums + j * R, S);
    }
    for (int r0 = 0; r0 < rows; r0 += S) {
      const int32_t* s = sums + r0;
      for (int c0 = 0; c0 < cols; c0 += 16)
        add_sums<typename V::Vec>(s + c0 * R, R, std::min(S, rows - r0), std::min(16, cols - c0),
                    C0 + r0 * a.ldc + j0 + c0, a.ldc, a.accumulation);
    }
  }
}

// How the vector loop cuts a block's rows into chunks: of up to `rows` rows (Wide's
// kMaxNv vectors, fewer where at would pass kTransposedBytes: K beyond 4096), the last
// one rounded up to whole vectors, or run on Narrow's vectors when it has at most
// Narrow::kLanes16 rows (half the work where zmm would leave most lanes idle).
template <class Wide, class Narrow>
struct Chunking {
  static constexpr int VL = Wide::kLanes16;
  int rows;
  explicit Chunking(const UsedDepths& u) {
    const int64_t depth = int64_t{u.count} * kTransposeDepth;
    rows = Wide::kMaxNv * VL;
    while (rows > VL && depth * rows * int64_t{sizeof(int16_t)} > kTransposedBytes) rows -= VL;
    if (rows == VL && depth * rows * int64_t{sizeof(int16_t)} > kTransposedBytes)
      rows = Narrow::kLanes16;
  }
  // The rows of a chunk of n <= rows rows that the vector loop computes.
  int padded(int n) const {
    return n <= Narrow::kLanes16 ? Narrow::kLanes16 : (n + VL - 1) / VL * VL;
  }
  // All the rows it computes for a block of n rows.
  int computed(int n) const {
    return n / rows * padded(rows) + (n % rows ? padded(n % rows) : 0);
  }
};

// SpMDM by transposed chunks (see Chunking), u from find_used_depths(a).
template <class Wide, class Narrow, bool Compact>
void spmdm_vector(const SpmdmArgs& a, const UsedDepths& u) {
  constexpr int VL = Wide::kLanes16;
  static_assert(Wide::kMaxNv * VL <= kMaxChunkRows && Narrow::kLanes16 <= VL &&
                Wide::kMaxNv <= 4);
  const Chunking<Wide, Narrow> chunking(u);
  const int row_size = a.block.row_size;
  const int max_rows = chunking.padded(std::min(row_size, chunking.rows));
  const size_t at_bytes = size_t{kTransposeDepth} * u.count * max_rows * sizeof(int16_t);
  const Scratch scratch(at_bytes + size_t{kGroupColumns} * max_rows * sizeof(int32_t));
  int16_t* at = reinterpret_cast<int16_t*>(scratch.data());
  int32_t* sums = reinterpret_cast<int32_t*>(scratch.data() + at_bytes);
  for (int i0 = 0; i0 < row_size; i0 += chunking.rows) {
    const int rows = std::min(chunking.rows, row_size - i0);
    if (rows <= Narrow::kLanes16) {
      transpose_chunk(a, i0, rows, 1, Narrow::kLanes16, u, at);
      spmdm_chunk<Narrow, 1, Compact>(a, i0, rows, u, at, sums);
      continue;
    }
    const int nv = (rows + VL - 1) / VL;
    transpose_chunk(a, i0, rows, nv, VL, u, at);
    if (nv == 1) spmdm_chunk<Wide, 1, Compact>(a, i0, rows, u, at, sums);
    if constexpr (Wide::kMaxNv >= 2) {
      if (nv == 2) spmdm_chunk<Wide, 2, Compact>(a, i0, rows, u, at, sums);
    }
    if constexpr (Wide::kMaxNv >= 3) {
      if (nv == 3) spmdm_chunk<Wide, 3, Compact>(a, i0, rows, u, at, sums);
    }
    if constexpr (Wide::kMaxNv >= 4) {
      if (nv == 4) spmdm_chunk<Wide, 4, Compact>(a, i0, rows, u, at, sums);
    }
  }
}

template <class Wide, class Narrow>
void spmdm_vector(const SpmdmArgs& a, const UsedDepths& u) {
  if (u.all)
    spmdm_vector<Wide, Narrow, false>(a, u);
  else
    spmdm_vector<Wide, Narrow, true>(a, u);
}

// The table's transposed loop: the vector loop on any block.
template <class Wide, class Narrow>
void spmdm_transposed_vector(const SpmdmArgs& a) {
  UsedDepths u;
  find_used_depths(a, u);
  spmdm_vector<Wide, Narrow>(a, u);
}

// The table's run: by rows or the vector loop, whichever the cost model c says is faster.
template <class Wide, class Narrow>
void spmdm_run(const SpmdmArgs& a, const SpmdmCosts& c) {
  const int64_t nonzeros = spmdm_nonzeros(a);
  if (nonzeros == 0) return spmdm_no_nonzeros(a);
  UsedDepths u;
  find_used_depths(a, u);
  const int rows = a.block.row_size;
  if (spmdm_prefers_vector(c, rows, Chunking<Wide, Narrow>(u).computed(rows), a.block.col_size,
                           nonzeros, u.count * kTransposeDepth))
    spmdm_vector<Wide, Narrow>(a, u);
  else
    spmdm_by_rows(a);
}

}  // namespace
}  // namespace quire::detail
