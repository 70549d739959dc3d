// The SpMDM loops of every path this CPU has (src/sparse/spmdm_table.h), each called
// directly so that every loop runs on every shape whatever the per-block rule would
// pick: bit for bit against the dense reference product, on the shapes the vector loops
// cut at (rows around 8, 16, 32, 64, 128; columns around 16 and 128; K around 16 and at
// 32767 / 32768), full-range data, odd and even nonzero counts per column, rows of a
// column in any order and repeated, blocks starting inside A and B, padded lda and ldc,
// with and without accumulation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "quire/quire.h"
#include "../src/cpu/isa_record.h"
#include "../src/sparse/spmdm_table.h"
#include "quire/ref/Reference.h"
#include "test_util.h"

namespace quire::test {
namespace {

struct Loop {
  std::string name;
  detail::SpmdmFn fn;
};

// run, by_rows and transposed of every supported path's table, each function once.
std::vector<Loop> all_loops() {
  std::vector<Loop> loops;
  for (const IsaCase& c : all_isas()) {
    if (skip_unsupported(c)) continue;
    const detail::SpmdmKernels& t = *detail::isa_record(detail::isa_from_inst_set(c.isa)).spmdm;
    for (const Loop& l : {Loop{"run", t.run}, Loop{"by_rows", t.by_rows},
                          Loop{"transposed", t.transposed}}) {
      const bool seen = std::any_of(loops.begin(), loops.end(),
                                    [&](const Loop& x) { return x.fn == l.fn; });
      if (!seen) loops.push_back({std::string(t.name) + "." + l.name, l.fn});
    }
  }
  return loops;
}

// A sparse K x N matrix in three forms: dense (for the reference) and CSC arrays whose
// columns list their nonzeros in a shuffled order, some split into two entries of the
// same row (v = v1 + v2), which sum to the same product.
struct Sparse {
  int K, N;
  std::vector<int8_t> dense;  // K x N, row-major
  std::vector<int32_t> colptr;
  std::vector<int16_t> rowidx;
  std::vector<int8_t> values;
};

// Column j holds count(j) nonzeros at distinct random rows, full-range values.
template <class Count>
Sparse make_sparse(int K, int N, Count count, uint32_t seed) {
  std::mt19937 gen(seed);
  Sparse s{K, N, std::vector<int8_t>(static_cast<size_t>(K) * N, 0), {0}, {}, {}};
  std::vector<int> rows(K);
  for (int k = 0; k < K; ++k) rows[k] = k;
  std::uniform_int_distribution<int> value(-128, 126), coin(0, 3);
  for (int j = 0; j < N; ++j) {
    const int n = std::min(K, count(j, gen));
    std::shuffle(rows.begin(), rows.end(), gen);  // the first n, in this order
    for (int t = 0; t < n; ++t) {
      const int v0 = value(gen), v = v0 >= 0 ? v0 + 1 : v0;  // never 0
      s.dense[static_cast<size_t>(rows[t]) * N + j] = static_cast<int8_t>(v);
      if (coin(gen) == 0 && v / 2 != 0) {  // the same row twice: v / 2 and v - v / 2
        const auto k = static_cast<int16_t>(rows[t]);
        s.rowidx.insert(s.rowidx.end(), {k, k});
        s.values.insert(s.values.end(),
                        {static_cast<int8_t>(v / 2), static_cast<int8_t>(v - v / 2)});
      } else {
        s.rowidx.push_back(static_cast<int16_t>(rows[t]));
        s.values.push_back(static_cast<int8_t>(v));
      }
    }
    s.colptr.push_back(static_cast<int32_t>(s.rowidx.size()));
  }
  return s;
}

// Runs `loop` on block b (C relative to the block, ldc = cols + 3) and compares with the
// dense reference P = A * B (M x N, row-major), which the 3 padding columns of C must not
// see.
void check(const Loop& loop, const Sparse& s, const std::vector<uint8_t>& A, int lda,
           const std::vector<int32_t>& P, const block_type_t& b, bool accumulation,
           uint32_t seed) {
  const int ldc = b.col_size + 3;
  const std::vector<int32_t> C0 =
      random_vector<int32_t>(static_cast<size_t>(b.row_size) * ldc, INT32_MIN, INT32_MAX, seed);
  std::vector<int32_t> want = C0, C = C0;
  for (int i = 0; i < b.row_size; ++i) {
    for (int j = 0; j < b.col_size; ++j) {
      const uint32_t p = static_cast<uint32_t>(
          P[static_cast<size_t>(b.row_start + i) * s.N + b.col_start + j]);
      uint32_t& w = reinterpret_cast<uint32_t&>(want[static_cast<size_t>(i) * ldc + j]);
      w = accumulation ? w + p : p;
    }
  }
  const detail::SpmdmArgs args{b, A.data(), lda, s.K, accumulation, C.data(), ldc,
                               s.colptr.data(), s.rowidx.data(), s.values.data()};
  loop.fn(args);
  ASSERT_EQ(C, want) << loop.name << " K " << s.K << " block " << b.row_start << "+"
                     << b.row_size << " x " << b.col_start << "+" << b.col_size
                     << " accumulation " << accumulation;
}

// Row counts around the vector loops' cuts: 8-row and 16-row write-back blocks, 16-row
// ymm and 32-row zmm vectors, 64- and 128-row chunks (avx2, avx512), a last chunk of at
// most 16 rows on ymm (avx512: 129, 144), two full chunks (256) and one past (257).
constexpr int kRows[] = {1, 7, 8, 9, 16, 17, 31, 33, 64, 65, 97, 120, 128, 129, 144, 145, 257};
// Column counts around the 8- and 16-column transposes and the 128-column groups.
constexpr int kCols[] = {1, 7, 8, 9, 15, 16, 17, 127, 128, 129, 144, 150};

TEST(SpmdmLoops, EdgeShapesOnEveryPath) {
  const std::vector<Loop> loops = all_loops();
  const int M = 300, N = 300;
  uint32_t seed = 1;
  // K around the 16-row depth blocks of the transposes (1, 15, 16, 17, 33) and a longer
  // one; per K three patterns: column j holding j % 6 nonzeros (odd and even counts,
  // empty columns), about 2 per column (most depth blocks unused at K = 1000), and half
  // the rows.
  for (const int K : {1, 15, 16, 17, 33, 1000}) {
    const int lda = K + 5;
    const std::vector<uint8_t> A =
        random_vector<uint8_t>(static_cast<size_t>(M) * lda, 0, 255, seed++);
    for (int pattern = 0; pattern < 3; ++pattern) {
      const Sparse s = make_sparse(K, N, [&](int j, std::mt19937& g) {
        if (pattern == 0) return j % 6;
        if (pattern == 1) return static_cast<int>(std::uniform_int_distribution<int>(0, 4)(g));
        return K / 2 + j % 2;
      }, seed++);
      std::vector<int32_t> P(static_cast<size_t>(M) * N);
      ref::matmul_u8s8s32(M, N, K, A.data(), lda, s.dense.data(), N, P.data(), N);
      // Every row count with a rotating column count and every column count with a
      // rotating row count; blocks start at 0, inside A and B, or end at their edges.
      std::vector<block_type_t> blocks;
      int t = 0;
      for (const int rows : kRows) {
        const int cols = kCols[t % std::size(kCols)];
        blocks.push_back({(t * 37) % (M - rows + 1), rows, (t * 53) % (N - cols + 1), cols});
        ++t;
      }
      for (const int cols : kCols) {
        const int rows = kRows[t % std::size(kRows)];
        blocks.push_back({M - rows, rows, N - cols, cols});
        ++t;
      }
      for (const Loop& loop : loops) {
        for (const block_type_t& b : blocks) {
          for (const bool accumulation : {false, true}) {
            check(loop, s, A, lda, P, b, accumulation, seed++);
            if (HasFatalFailure()) return;
          }
        }
      }
    }
  }
}

// K at the int16 row index limit, the partial last depth block (K = 32767) and a full
// one (32768), full-range A: a column with every row at -128 (the largest |sum|), a
// column whose nonzeros all lie in the last depth block, one nonzero at the first and
// last rows, an empty column, and a sparse column.
TEST(SpmdmLoops, DeepKOnEveryPath) {
  const std::vector<Loop> loops = all_loops();
  const int M = 40, N = 5;
  for (const int K : {32767, 32768}) {
    const std::vector<uint8_t> A = random_vector<uint8_t>(static_cast<size_t>(M) * K, 0, 255, K);
    Sparse s{K, N, std::vector<int8_t>(static_cast<size_t>(K) * N, 0), {}, {}, {}};
    std::mt19937 gen(7);
    for (int k = 0; k < K; ++k) {
      int8_t* row = s.dense.data() + static_cast<size_t>(k) * N;
      row[0] = -128;
      if (k >= K - 11) row[1] = static_cast<int8_t>(127 - (K - k));
      if (k == 0 || k == K - 1) row[2] = static_cast<int8_t>(k ? 127 : -128);
      if (gen() % 500 == 0) row[4] = static_cast<int8_t>(gen() % 255 - 127);
    }
    const CompressedSparseColumn csc = CompressedSparseColumn::fromDense(K, N, s.dense.data(), N);
    s.colptr = csc.ColPtr();
    s.rowidx = csc.RowIdx();
    s.values = csc.Values();
    std::vector<int32_t> P(static_cast<size_t>(M) * N);
    ref::matmul_u8s8s32(M, N, K, A.data(), K, s.dense.data(), N, P.data(), N);
    for (const Loop& loop : loops) {
      for (const block_type_t& b : {block_type_t{0, M, 0, N}, block_type_t{3, 33, 1, 3}}) {
        check(loop, s, A, K, P, b, false, 11);
        check(loop, s, A, K, P, b, true, 12);
        if (HasFatalFailure()) return;
      }
    }
  }
}

// CompressedSparseColumn::SpMDM on each forced path (its table's run) on a tile like the
// acc16 driver's (120 x 512, K = 1024), which the vector paths' rules send to the
// vector loop.
TEST(SpmdmLoops, SpMDMOnEveryForcedPath) {
  const int M = 120, N = 512, K = 1024;
  const std::vector<uint8_t> A = random_vector<uint8_t>(static_cast<size_t>(M) * K, 0, 255, 3);
  const Sparse s = make_sparse(K, N, [](int j, std::mt19937&) { return 1 + j % 10; }, 4);
  const CompressedSparseColumn csc = CompressedSparseColumn::fromDense(K, N, s.dense.data(), N);
  std::vector<int32_t> P(static_cast<size_t>(M) * N);
  ref::matmul_u8s8s32(M, N, K, A.data(), K, s.dense.data(), N, P.data(), N);
  for (const IsaCase& c : all_isas()) {
    if (skip_unsupported(c)) continue;
    ScopedIsa forced(c.isa);
    std::vector<int32_t> C(P.size(), 5);
    csc.SpMDM({0, M, 0, N}, A.data(), K, true, C.data(), N);
    for (size_t i = 0; i < C.size(); ++i) {
      ASSERT_EQ(C[i], static_cast<int32_t>(static_cast<uint32_t>(P[i]) + 5u))
          << instSetName(c.isa) << " element " << i;
    }
  }
}

}  // namespace
}  // namespace quire::test
