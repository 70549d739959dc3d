// The outlier split for acc16 (quire's own helper; not part of FBGEMM's API): B = dense +
// outliers, where dense is chosen so that the saturating int16 accumulation of acc16
// (Acc16.h, ref::matmul_u8s8s32_acc16) computes A * dense exactly, and the outliers, kept
// sparse, are added exactly in int32 by DoSpmdmOnInpBuffer. docs/outlier-split.md has
// the derivation, the cost, and a complete example.
#pragma once

#include <cstdint>
#include <vector>

#include "quire/Acc16.h"
#include "quire/CompressedSparseColumn.h"
#include "quire/Types.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace quire {

struct Acc16OutlierSplit {
  // B with the outliers set to 0, in the input's layout (same trans) with compact ld:
  // N for NoTranspose, K / groups for Transpose. Pack it with PackBMatrix<int8_t, int16_t>.
  std::vector<int8_t> dense;
  // K / groups rows x groups * N columns: column g * N + j holds group g's column j, row
  // k its depth k within the group (the output column and depth of the GEMM).
  CompressedSparseColumn outliers;
};

// Splits B, laid out as PackBMatrix takes it (NoTranspose: K x N row-major, groups
// stacked along K, ldb >= N; Transpose: each group's N x K/groups matrix one after
// another, ldb >= K/groups), so that dense + outliers == B element by element.
//
// Guarantee: for every A with entries in [0, a_max], and every K blocking whose block
// depth is a multiple of 4 dividing block_depth (blocks start at k = 0 of each group),
// the acc16 model never saturates on dense: acc16(A, dense) == A * dense exactly, hence
// acc16(A, dense) + A * outliers == A * B.
//
// Method: for each group, column, block of block_depth depths and half of the block (lo:
// k % 4 in {0, 1}; hi: k % 4 in {2, 3}; k counted from the group's first depth), dense
// keeps the positive weights, smallest first (ties: lower k first), while
// a_max * (their sum) <= 32767, and likewise the negative ones while
// a_max * (sum of |b|) <= 32768; every other weight becomes an outlier. Smallest-first
// keeps the most weights any choice under these budgets can keep.
//
// Proof: every int16 value the model forms on dense within one block and half (a pair
// sat16(a0*b0 + a1*b1), or a running sum of pairs) is, before saturating, a sum of
// products a*b over a subset S of that half's depths (padding contributes 0). Each
// product lies in [a_max * min(b, 0), a_max * max(b, 0)] because 0 <= a <= a_max, so the
// sum lies in [-a_max * sum_{b<0} |b|, a_max * sum_{b>0} b] within [-32768, 32767]. So
// no sat16 changes its argument: by induction over the pairs every step is exact. A
// blocking whose depth d (a multiple of 4) divides block_depth puts each of its blocks
// inside one block of block_depth with the same k % 4, so its halves are subsets of
// ours and the same bound holds. The int32 sum of the blocks' lo + hi is exact.
//
// Throws std::invalid_argument naming the parameter for: trans not a matrix_op_t,
// K < 0, N < 0, groups < 1 or not dividing K, K / groups > 32768 (outliers' row indices
// are int16), K * N beyond int32, null B (unless K * N = 0), ldb below the row length,
// block_depth not a positive multiple of 4, a_max outside [1, 255].
Acc16OutlierSplit splitOutliersForAcc16(matrix_op_t trans, int K, int N, const int8_t* B, int ldb,
                                        int groups = 1, int block_depth = acc16BlockDepth(),
                                        int a_max = 255);

}  // namespace quire
QUIRE_API_END
