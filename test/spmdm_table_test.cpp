// Every loop of every path's SpmdmKernels (run, by_rows, transposed), called directly (no
// SpMDM, no process-wide path switch) through SpmdmTester, over odd block shapes around
// the vector loops' cuts, depths, nonzero patterns, blocks inside A and B, padded lda and
// ldc, with and without accumulation. A path this CPU lacks is skipped naming the missing
// features. (sparse_spmdm_loops_test sweeps the loops' edge shapes more densely.)
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "spmdm_tester.h"
#include "table_paths.h"

namespace quire::test {
namespace {

class SpmdmTable : public PathTest {
 protected:
  const detail::SpmdmKernels* table() const {
    const detail::IsaRecord* r = record();
    return r != nullptr ? r->spmdm : nullptr;
  }
};

constexpr int kRows[] = {1, 3, 8, 9, 16, 17, 33, 63, 65, 129};
constexpr int kCols[] = {1, 3, 7, 8, 9, 16, 17, 63, 65, 129};
constexpr int kDepths[] = {1, 3, 16, 17, 65, 300};

void sweep(detail::SpmdmFn fn, const char* loop) {
  SCOPED_TRACE(loop);
  uint32_t seed = 1;
  for (int k : kDepths)
    for (int i = 0; i < 10; ++i) {
      const int rows = kRows[i], cols = kCols[(i * 3 + k) % 10];
      for (int nonzeros : {0, 3, -1})
        for (bool accumulate : {false, true}) {
          SpmdmTester()
              .rows(rows).cols(cols).k(k).row_start(seed % 3).col_start(seed % 4)
              .lda_pad(seed % 5).ldc_pad(seed % 2 + 1).nonzeros(nonzeros).accumulate(accumulate)
              .seed(seed).Test(fn);
          ++seed;
        }
    }
}

TEST_P(SpmdmTable, Run) {
  const detail::SpmdmKernels* t = table();
  if (t == nullptr) GTEST_SKIP() << "the CPU lacks " << missing();
  sweep(t->run, "run");
}

TEST_P(SpmdmTable, ByRows) {
  const detail::SpmdmKernels* t = table();
  if (t == nullptr) GTEST_SKIP() << "the CPU lacks " << missing();
  sweep(t->by_rows, "by_rows");
}

TEST_P(SpmdmTable, Transposed) {
  const detail::SpmdmKernels* t = table();
  if (t == nullptr) GTEST_SKIP() << "the CPU lacks " << missing();
  sweep(t->transposed, "transposed");
}

INSTANTIATE_TEST_SUITE_P(AllPaths, SpmdmTable, ::testing::ValuesIn(every_path()), path_name);

}  // namespace
}  // namespace quire::test
