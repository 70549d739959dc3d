// SpmdmTester: one loop of one path's SpmdmKernels (src/sparse/spmdm_table.h) called
// directly, outside CompressedSparseColumn::SpMDM, on a block of a random sparse K x N
// matrix, and compared bit for bit with quire::ref's dense product (Reference.h). A
// builder in the manner of XNNPACK's micro-kernel testers (docs/kernel-tester.md):
//   SpmdmTester().k(17).cols(9).rows(33).row_start(2).col_start(1).nonzeros(3)
//       .accumulate(true).Test(table.transposed);
// The CSC columns list their rows shuffled, some split in two entries of the same row
// (v / 2 and v - v / 2, which sum to v). C's padding columns must keep their values.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "../src/sparse/spmdm_table.h"
#include "quire/ref/Reference.h"
#include "test_util.h"

namespace quire::test {

class SpmdmTester {
 public:
  SpmdmTester& rows(int v) { rows_ = v; return *this; }          // of the block
  SpmdmTester& cols(int v) { cols_ = v; return *this; }          // of the block
  SpmdmTester& k(int v) { k_ = v; return *this; }                // rows of the sparse matrix
  SpmdmTester& row_start(int v) { row_start_ = v; return *this; }  // block's first row of A
  SpmdmTester& col_start(int v) { col_start_ = v; return *this; }  // and column of B
  SpmdmTester& lda_pad(int v) { lda_pad_ = v; return *this; }
  SpmdmTester& ldc_pad(int v) { ldc_pad_ = v; return *this; }
  // Column j holds up to this many nonzeros (j-dependent, some columns empty); -1: about
  // half of K.
  SpmdmTester& nonzeros(int v) { nonzeros_ = v; return *this; }
  SpmdmTester& accumulate(bool v) { accumulate_ = v; return *this; }
  SpmdmTester& seed(uint32_t v) { seed_ = v; return *this; }

  void Test(detail::SpmdmFn fn) const {
    const int n = col_start_ + cols_ + 1, m = row_start_ + rows_ + 1;  // B and A past the block
    const int lda = k_ + lda_pad_, ldc = cols_ + ldc_pad_;
    const std::vector<uint8_t> A = random_vector<uint8_t>(size_t(m) * lda, 0, 255, seed_);
    std::vector<int8_t> dense(size_t(k_) * n, 0);
    std::vector<int32_t> colptr{0};
    std::vector<int16_t> rowidx;
    std::vector<int8_t> values;
    sparse(n, dense, colptr, rowidx, values);
    std::vector<int32_t> P(size_t(rows_) * n);
    ref::matmul_u8s8s32(rows_, n, k_, A.data() + size_t(row_start_) * lda, lda, dense.data(), n,
                        P.data(), n);
    const std::vector<int32_t> C0 =
        random_vector<int32_t>(size_t(rows_) * ldc, INT32_MIN, INT32_MAX, seed_ + 1);
    std::vector<int32_t> got = C0, want = C0;
    for (int i = 0; i < rows_; ++i)
      for (int j = 0; j < cols_; ++j) {  // modulo 2^32, as the contract says
        const auto p = static_cast<uint32_t>(P[size_t(i) * n + col_start_ + j]);
        auto& w = reinterpret_cast<uint32_t&>(want[size_t(i) * ldc + j]);
        w = accumulate_ ? w + p : p;
      }
    const detail::SpmdmArgs args{{row_start_, rows_, col_start_, cols_}, A.data(), lda, k_,
                                 accumulate_, got.data(), ldc, colptr.data(), rowidx.data(),
                                 values.data()};
    fn(args);
    int mismatches = 0;
    for (size_t e = 0; e < got.size() && mismatches < 5; ++e) {
      if (got[e] == want[e]) continue;
      ++mismatches;
      ADD_FAILURE() << "C row " << e / ldc << " column " << e % ldc << ": got " << got[e]
                    << ", want " << want[e] << " (block " << row_start_ << "+" << rows_ << " x "
                    << col_start_ << "+" << cols_ << ", K " << k_ << ", accumulate "
                    << accumulate_ << ")";
    }
  }

 private:
  void sparse(int n, std::vector<int8_t>& dense, std::vector<int32_t>& colptr,
              std::vector<int16_t>& rowidx, std::vector<int8_t>& values) const {
    std::mt19937 gen(seed_ + 2);
    std::vector<int> order(k_);
    for (int r = 0; r < k_; ++r) order[r] = r;
    std::uniform_int_distribution<int> value(-128, 126), coin(0, 3);
    for (int j = 0; j < n; ++j) {
      const int count = nonzeros_ < 0 ? k_ / 2 + j % 2 : j * 7 % (nonzeros_ + 1);
      std::shuffle(order.begin(), order.end(), gen);
      for (int t = 0; t < std::min(k_, count); ++t) {
        const int v0 = value(gen), v = v0 >= 0 ? v0 + 1 : v0;  // never 0
        dense[size_t(order[t]) * n + j] = static_cast<int8_t>(v);
        const auto r = static_cast<int16_t>(order[t]);
        if (coin(gen) == 0 && v / 2 != 0) {
          rowidx.insert(rowidx.end(), {r, r});
          values.insert(values.end(), {static_cast<int8_t>(v / 2), static_cast<int8_t>(v - v / 2)});
        } else {
          rowidx.push_back(r);
          values.push_back(static_cast<int8_t>(v));
        }
      }
      colptr.push_back(static_cast<int32_t>(rowidx.size()));
    }
  }

  int rows_ = 1, cols_ = 1, k_ = 1, row_start_ = 0, col_start_ = 0, lda_pad_ = 0, ldc_pad_ = 0;
  int nonzeros_ = 3;
  bool accumulate_ = false;
  uint32_t seed_ = 1;
};

}  // namespace quire::test
