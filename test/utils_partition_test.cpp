// FBGEMM's work splits, checked against its formulas re-derived here, and their cover
// property (every unit exactly once).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "test_util.h"

namespace quire {
namespace {

#define W(...) ({__VA_ARGS__})

TEST(UtilsPartition, OneDimensionalUsesCeilChunks) {
  for (int nt : {1, 2, 3, 4, 7}) {
    for (int64_t total : {0, 1, 3, 5, 17, 63, 65}) {
      const int64_t w = (total + nt - 1) / nt;
      int64_t covered = 0;
      for (int t = 0; t < nt; ++t) {
        int64_t s = -1, e = -1;
        fbgemmPartition1D(t, nt, total, s, e);
        EXPECT_EQ(s, std::min(t * w, total));
        EXPECT_EQ(e, std::min((t + 1) * w, total));
        EXPECT_EQ(s, covered);
        covered = e;
      }
      EXPECT_EQ(covered, total);
    }
  }
  int64_t s = 7, e = 7;
  fbgemmPartition1D(0, 0, 10, s, e);  // no threads: no work
  EXPECT_EQ(s, 0);
  EXPECT_EQ(e, 0);
  fbgemmPartition1D(5, 4, 10, s, e);  // beyond the team: empty
  EXPECT_EQ(s, e);
}

TEST(UtilsPartition, BlockedMatchesFbgemmsExamples) {
  // The tables in FBGEMM's documentation of fbgemmPartition1DBlocked (block_size 2).
  struct Case {
    int nt;
    int64_t total;
    std::vector<std::pair<int64_t, int64_t>> ranges;
  };
  const Case cases[] = {{2, 4, {{0, 2}, {2, 4}}},
                        {2, 5, {{0, 2}, {2, 5}}},
                        {3, 4, {{0, 2}, {2, 4}, {4, 4}}},
                        {3, 5, {{0, 2}, {2, 4}, {4, 5}}},
                        {4, 4, {{0, 2}, {2, 4}, {4, 4}, {4, 4}}},
                        {4, 5, {{0, 2}, {2, 4}, {4, 4}, {4, 5}}}};
  for (const Case& c : cases) {
    for (int t = 0; t < c.nt; ++t) {
      int64_t s, e;
      fbgemmPartition1DBlocked(t, c.nt, c.total, 2, s, e);
      EXPECT_EQ(s, c.ranges[t].first) << c.nt << " " << c.total << " " << t;
      EXPECT_EQ(e, c.ranges[t].second) << c.nt << " " << c.total << " " << t;
    }
  }
}

TEST(UtilsPartition, BlockedFormulaAndCover) {
  for (int nt : {1, 2, 3, 5}) {
    for (int bs : {1, 3, 4, 6}) {
      for (int64_t total : {0, 1, 17, 63, 65, 100}) {
        int64_t covered = 0;
        for (int t = 0; t < nt; ++t) {
          int64_t s, e;
          fbgemmPartition1DBlocked(t, nt, total, bs, s, e);
          int64_t bw, be, bb;
          if (bs == 1) {
            bw = (total + nt - 1) / nt;
            EXPECT_EQ(s, std::min(t * bw, total));
            EXPECT_EQ(e, std::min((t + 1) * bw, total));
          } else {
            bb = total / bs;
            bw = (bb + nt - 1) / nt;
            be = std::min((t + 1) * bw, bb);
            EXPECT_EQ(s, std::min(std::min(t * bw, bb) * bs, total));
            EXPECT_EQ(e, t == nt - 1 ? std::max(be * bs, total) : std::min(be * bs, total));
          }
          if (s < e) {
            EXPECT_EQ(s, covered);
            covered = e;
          }
        }
        EXPECT_EQ(covered, total) << nt << " " << bs << " " << total;
      }
    }
  }
}

// FBGEMM's 2D heuristic, re-derived.
int expected_2d(int m, int n, int nthreads, int n_align, double ar) {
  if (nthreads > 16 && static_cast<double>(m) / n < 0.2) ar = 0.2;
  auto delta = [&](int mb) {
    int nb = nthreads / mb;
    int bm = (m + mb - 1) / mb;
    int bn = ((n + n_align - 1) / n_align + nb - 1) / nb * n_align;
    return std::abs(static_cast<double>(bm) / bn - ar);
  };
  int best_mb = 1;
  double best = delta(1);
  for (int mb = 2; mb <= nthreads; ++mb) {
    if (nthreads <= 16 && nthreads % mb) continue;
    double d = delta(mb);
    if (d < best) {
      best = d;
      best_mb = mb;
    } else {
      break;
    }
  }
  return best_mb;
}

TEST(UtilsPartition, TwoDimensionalAndThreadGrid) {
  for (int nt : {1, 2, 3, 4, 6, 8, 12, 17, 24, 32}) {
    for (int m : {1, 17, 64, 1000}) {
      for (int n : {1, 63, 256, 4096}) {
        const int mb = fbgemmGet2DPartition(m, n, nt, 64, 0.5);
        ASSERT_EQ(mb, expected_2d(m, n, nt, 64, 0.5)) << m << " " << n << " " << nt;
        for (int g : {1, 2, 3, 8, 40}) {
          const int gt = nt == 1 ? 1 : g > nt ? nt : (nt % g == 0 ? g : 1);
          const int rest = nt / gt;
          const int mt = nt == 1 ? 1 : expected_2d(m, n, rest, 64, 0.5);
          const int ntn = rest / mt;
          for (int t = 0; t < nt; ++t) {
            const thread_type_t th = fbgemmGetThreadPartition(g, m, n, t, nt);
            if (t >= gt * mt * ntn) {
              EXPECT_EQ(th.g_num_threads + th.m_num_threads + th.n_num_threads, 0);
              continue;
            }
            EXPECT_EQ(th.g_num_threads, gt);
            EXPECT_EQ(th.m_num_threads, mt);
            EXPECT_EQ(th.n_num_threads, ntn);
            EXPECT_EQ(th.n_thread_id, t % ntn);
            EXPECT_EQ(th.m_thread_id, t / ntn % mt);
            EXPECT_EQ(th.g_thread_id, t / ntn / mt % gt);
          }
        }
      }
    }
  }
  const thread_type_t th = fbgemmGetThreadPartition(2, 10, 10, 3, 4);
  EXPECT_EQ(th.toString(),
            "g num threads: 2, m num threads: 1, n num threads: 2, g thread id: 1, "
            "m thread id: 0, n thread id: 1");
}

TEST(UtilsPartition, BadArguments) {
  int64_t s, e;
  EXPECT_INVALID(W("num_threads", "-1"), fbgemmPartition1D(0, -1, 10, s, e));
  EXPECT_INVALID(W("thread_id", "-1"), fbgemmPartition1D(-1, 4, 10, s, e));
  EXPECT_INVALID(W("total_work", "-10"), fbgemmPartition1D(0, 4, -10, s, e));
  EXPECT_INVALID(W("block_size", "0"), fbgemmPartition1DBlocked(0, 4, 10, 0, s, e));
  EXPECT_INVALID(W("nthreads", "0"), fbgemmGet2DPartition(4, 4, 0, 64, 0.5));
  EXPECT_INVALID(W("num_threads", "0"), fbgemmGetThreadPartition(1, 4, 4, 0, 0));
}

}  // namespace
}  // namespace quire
