#include "quire/OutlierSplit.h"

#include <algorithm>

#include "quire/detail/Check.h"

namespace quire {
namespace {

// Offset of depth k (within group g) of column j in a B laid out as PackBMatrix takes it.
int64_t element_index(matrix_op_t trans, int k_per_group, int N, int64_t ld, int g, int k,
                      int j) {
  if (trans == matrix_op_t::NoTranspose) return (int64_t{g} * k_per_group + k) * ld + j;
  return (int64_t{g} * N + j) * ld + k;
}

// Marks keep[k] for the weights of sign `sign` (+1 or -1) among `depths` (ascending),
// smallest magnitude first and, among equal magnitudes, lowest depth first (stable
// sort), for as long as their magnitudes sum to at most `budget`. The first weight that
// does not fit ends it: every later one is at least as large.
void keep_smallest(const int8_t* col, const std::vector<int>& depths, int sign, int budget,
                   std::vector<int>& order, std::vector<uint8_t>& keep) {
  order.clear();
  for (const int k : depths)
    if (sign * col[k] > 0) order.push_back(k);
  std::stable_sort(order.begin(), order.end(),
                   [&](int x, int y) { return sign * col[x] < sign * col[y]; });
  for (const int k : order) {
    const int magnitude = sign * col[k];
    if (magnitude > budget) break;
    budget -= magnitude;
    keep[k] = 1;
  }
}

void check_split_args(matrix_op_t trans, int K, int N, const int8_t* B, int ldb, int groups,
                      int block_depth, int a_max) {
  const char* where = "splitOutliersForAcc16";
  detail::check_arg(trans == matrix_op_t::NoTranspose || trans == matrix_op_t::Transpose,
                    where, "trans", static_cast<int>(trans), "is not a matrix_op_t");
  detail::check_arg(K >= 0, where, "K", K, "must be >= 0");
  detail::check_arg(N >= 0, where, "N", N, "must be >= 0");
  detail::check_arg(groups >= 1, where, "groups", groups, "must be >= 1");
  detail::check_arg(K % groups == 0, where, "groups", groups, "must divide K");
  detail::check_arg(K / groups <= 32768, where, "K / groups", K / groups,
                    "must be <= 32768 (the outliers' row indices are int16)");
  detail::check_product(K, N, where, "K x N");
  detail::check_product(groups, N, where, "groups x N");
  if (int64_t{K} * N > 0) detail::check_not_null(B, where, "B");
  const int row_length = trans == matrix_op_t::NoTranspose ? N : K / groups;
  detail::check_arg(ldb >= row_length, where, "ldb", ldb,
                    trans == matrix_op_t::NoTranspose ? "must be >= N" : "must be >= K / groups");
  detail::check_arg(block_depth > 0 && block_depth % 4 == 0, where, "block_depth", block_depth,
                    "must be a positive multiple of 4");
  detail::check_arg(a_max >= 1 && a_max <= 255, where, "a_max", a_max, "must be in [1, 255]");
}

}  // namespace

Acc16OutlierSplit splitOutliersForAcc16(matrix_op_t trans, int K, int N, const int8_t* B, int ldb,
                                        int groups, int block_depth, int a_max) {
  check_split_args(trans, K, N, B, ldb, groups, block_depth, a_max);
  const int k_per_group = K / groups;
  const int dense_ld = trans == matrix_op_t::NoTranspose ? N : k_per_group;
  // a_max * sum <= 32767 for the positive weights kept, a_max * sum |b| <= 32768 for the
  // negative ones (int16's range; see the proof in the header).
  const int positive_budget = 32767 / a_max, negative_budget = 32768 / a_max;

  Acc16OutlierSplit split{std::vector<int8_t>(static_cast<size_t>(K) * N, 0),
                          CompressedSparseColumn(k_per_group, groups * N)};
  std::vector<int32_t>& colptr = split.outliers.ColPtr();
  std::vector<int16_t>& rowidx = split.outliers.RowIdx();
  std::vector<int8_t>& values = split.outliers.Values();

  std::vector<int8_t> col(static_cast<size_t>(k_per_group));
  std::vector<uint8_t> keep(static_cast<size_t>(k_per_group));
  std::vector<int> depths, order;
  for (int g = 0; g < groups; ++g) {
    for (int j = 0; j < N; ++j) {
      for (int k = 0; k < k_per_group; ++k) {
        col[k] = B[element_index(trans, k_per_group, N, ldb, g, k, j)];
        keep[k] = col[k] == 0;
      }
      for (int k0 = 0; k0 < k_per_group; k0 += block_depth) {
        const int k1 = std::min(k0 + block_depth, k_per_group);
        for (int half = 0; half < 2; ++half) {  // lo: k % 4 in {0, 1}; hi: {2, 3}
          depths.clear();
          for (int k = k0 + 2 * half; k < k1; k += 4) {
            depths.push_back(k);
            if (k + 1 < k1) depths.push_back(k + 1);
          }
          keep_smallest(col.data(), depths, +1, positive_budget, order, keep);
          keep_smallest(col.data(), depths, -1, negative_budget, order, keep);
        }
      }
      // Depths ascend, so each outlier column comes out sorted by row.
      for (int k = 0; k < k_per_group; ++k) {
        if (keep[k]) {
          split.dense[element_index(trans, k_per_group, N, dense_ld, g, k, j)] = col[k];
        } else {
          rowidx.push_back(static_cast<int16_t>(k));
          values.push_back(col[k]);
        }
      }
      colptr[static_cast<size_t>(g) * N + j + 1] = static_cast<int32_t>(values.size());
    }
  }
  return split;
}

}  // namespace quire
