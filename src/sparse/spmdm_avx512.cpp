// kSpmdmAvx512: SpMDM on AVX-512 (F/BW), the vector loop of spmdm_simd.h on zmm
// registers (chunks of up to 64 rows; a last chunk of at most 16 rows on ymm), or by
// rows where the rule below expects that to be faster.
#include "simd/vec_avx512.h"
#include "sparse/sparse_dense_kernels.h"
#include "sparse/spmdm_simd.h"
#include "sparse/spmdm_ymm.h"

namespace quire::detail {
namespace {

// Chunks of up to 64 rows. On 120 x 512 x 1024 blocks (Zen 4) 128-row chunks were
// 25-40% slower at 0.1% outliers and up to 7% slower at 10%; 32-row ones about as
// fast at 0.1% and 35% slower at 10%.
using SpmdmZmm = SpmdmVectors<Avx512, 2>;

// The rule's constants (SpmdmCosts, ns), fitted to both loops timed on 384 blocks on
// Zen 4: 1 to 240 rows, 4 to 512 columns, K 64 to 32768, 0.05 to 100 nonzeros per
// column. Picking by them costs 1% more than always picking the faster loop, summed
// over the blocks; where they pick the slower one it is at most ~2x slower, on blocks
// that take about a microsecond. By rows wins on blocks of a few rows and columns; the
// acc16 driver's 120 x 512 and 8 x 512 tiles go to the vector loop from their first
// nonzero.
constexpr SpmdmCosts kCosts{1.2, 0.7, 110, 0.08, 0.03, 0.16, 0.10};

void run(const SpmdmArgs& a) { spmdm_run<SpmdmZmm, SpmdmYmm>(a, kCosts); }

}  // namespace

constinit const SpmdmKernels kSpmdmAvx512 = {"avx512", &run, &spmdm_by_rows,
                                         &spmdm_transposed_vector<SpmdmZmm, SpmdmYmm>,
                                         &kSparseDenseAvx512};
constinit const SpmdmKernels kSpmdmAvx512Vnni = {"avx512_vnni", &run, &spmdm_by_rows,
                                             &spmdm_transposed_vector<SpmdmZmm, SpmdmYmm>,
                                             &kSparseDenseAvx512Vnni};

}  // namespace quire::detail
