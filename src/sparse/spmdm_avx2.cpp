// kSpmdmAvx2: SpMDM on AVX2, the vector loop of spmdm_simd.h on ymm registers (chunks of
// up to 64 rows), or by rows where the rule below expects that to be faster.
#include "sparse/sparse_dense_kernels.h"
#include "sparse/spmdm_simd.h"
#include "sparse/spmdm_ymm.h"

namespace quire::detail {
namespace {

// The rule's constants (SpmdmCosts, ns), fitted to both loops timed on 384 blocks on
// Zen 4: 1 to 240 rows, 4 to 512 columns, K 64 to 32768, 0.05 to 100 nonzeros per
// column. Picking by them costs 1% more than always picking the faster loop, summed
// over the blocks; where they pick the slower one it is at most ~2x slower, on blocks
// that take about a microsecond. By rows wins on blocks of a few rows and columns; the
// acc16 driver's 120 x 512 and 8 x 512 tiles go to the vector loop from their first
// nonzero.
constexpr SpmdmCosts kCosts{1.0, 0.7, 100, 0.065, 0.033, 0.10, 0.10};

void run(const SpmdmArgs& a) { spmdm_run<SpmdmYmm, SpmdmYmm>(a, kCosts); }

}  // namespace

constinit const SpmdmKernels kSpmdmAvx2 = {"avx2", &run, &spmdm_by_rows,
                                         &spmdm_transposed_vector<SpmdmYmm, SpmdmYmm>,
                                         &kSparseDenseAvx2};

}  // namespace quire::detail
