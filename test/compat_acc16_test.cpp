// FBGEMM client code for 16-bit accumulation with outliers, compiled against quire through
// the compatibility headers only: weights split by a magnitude threshold (the usual
// FBGEMM recipe), the small ones packed for acc16, the large ones in a
// CompressedSparseColumn applied by DoSpmdmOnInpBuffer before requantization. With the
// data chosen so that no int16 sum can saturate (activations <= 63, dense weights within
// +-4, K <= 256 per group), the result must equal a naive exact reference on every path.
#include <fbgemm/Fbgemm.h>
#include <fbgemm/FbgemmI8Spmdm.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

using namespace fbgemm;

namespace {

// ---- client code, FBGEMM style --------------------------------------------------------

// Moves the weights with |w| > threshold into B_csc (K/groups rows, groups*n columns) and
// zeroes them in B (K x n, groups stacked along K).
std::unique_ptr<CompressedSparseColumn> extract_outliers(std::vector<int8_t>& B, int k, int n,
                                                         int groups, int threshold) {
  const int k_per_group = k / groups;
  auto B_csc = std::make_unique<CompressedSparseColumn>(k_per_group, groups * n);
  B_csc->ColPtr()[0] = 0;
  for (int g = 0; g < groups; ++g) {
    for (int j = 0; j < n; ++j) {
      for (int kk = 0; kk < k_per_group; ++kk) {
        int8_t& w = B[(g * k_per_group + kk) * n + j];
        if (std::abs(w) > threshold) {
          B_csc->RowIdx().push_back(static_cast<int16_t>(kk));
          B_csc->Values().push_back(w);
          w = 0;
        }
      }
      B_csc->ColPtr()[g * n + j + 1] = static_cast<int32_t>(B_csc->RowIdx().size());
    }
  }
  return B_csc;
}

void fc_acc16_with_outliers(const uint8_t* Aint8, int m, int k, int groups,
                            int32_t Aint8_zero_point, PackBMatrix<int8_t, int16_t>& packedB,
                            const CompressedSparseColumn& B_csc, int n, const float* C_multiplier,
                            int32_t C_zero_pt, const int32_t* Bint8_zero_point,
                            const int32_t* col_offsets, const int32_t* bias, uint8_t* Cint8,
                            int32_t* Cint32_buffer, int thread_id, int num_threads) {
  std::vector<int32_t> row_offset_buf(PackAWithRowOffset<uint8_t, int16_t>::rowOffsetBufferSize());
  PackAWithRowOffset<uint8_t, int16_t> packA(matrix_op_t::NoTranspose, m, k, Aint8, k, nullptr,
                                             groups, row_offset_buf.data());
  DoNothing<> doNothingObj{};
  ReQuantizeOutput<false> outputProcObj(doNothingObj, C_multiplier, C_zero_pt, Aint8_zero_point,
                                        Bint8_zero_point, packA.getRowOffsetBuffer(), col_offsets,
                                        bias, groups * n, groups);
  DoSpmdmOnInpBuffer<ReQuantizeOutput<false>::outType, int32_t, ReQuantizeOutput<false>> spmdmObj(
      outputProcObj, Aint8, k, B_csc, groups);
  fbgemmPacked(packA, packedB, Cint8, Cint32_buffer, groups * n, spmdmObj, thread_id, num_threads);
}

// ---- the check ------------------------------------------------------------------------

template <class T>
std::vector<T> uniform(size_t n, int lo, int hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(d(gen));
  return v;
}

TEST(CompatAcc16, ThresholdOutliersGiveTheExactRequantizedResult) {
  for (int groups : {1, 2}) {
    const int m = 37, n = 45, k_per_group = 200, k = groups * k_per_group;
    const std::vector<uint8_t> A = uniform<uint8_t>(static_cast<size_t>(m) * k, 0, 63, 1);
    std::vector<int8_t> B = uniform<int8_t>(static_cast<size_t>(k) * n, -4, 4, 2);
    const std::vector<uint8_t> where = uniform<uint8_t>(B.size(), 0, 40, 3);
    const std::vector<int8_t> big = uniform<int8_t>(B.size(), -128, 127, 4);
    for (size_t i = 0; i < B.size(); ++i)
      if (where[i] == 0) B[i] = big[i];  // about 2.5% outliers
    const std::vector<int8_t> B_full = B;

    const int32_t a_zp = 9, c_zp = 100, b_zp = 1;
    const float multiplier = 1.0f / 256;
    std::vector<int32_t> col_offsets(groups * n), bias(groups * n);
    for (int g = 0; g < groups; ++g)
      for (int j = 0; j < n; ++j) {
        int32_t sum = 0;
        for (int kk = 0; kk < k_per_group; ++kk) sum += B_full[(g * k_per_group + kk) * n + j];
        col_offsets[g * n + j] = sum - k_per_group * b_zp;
        bias[g * n + j] = 3 * j - 50;
      }

    // Naive exact reference: the requantized product of A and the whole B.
    std::vector<uint8_t> want(static_cast<size_t>(m) * groups * n);
    for (int i = 0; i < m; ++i)
      for (int g = 0; g < groups; ++g) {
        int32_t row_sum = 0;
        for (int kk = 0; kk < k_per_group; ++kk) row_sum += A[i * k + g * k_per_group + kk];
        for (int j = 0; j < n; ++j) {
          int32_t acc = 0;
          for (int kk = 0; kk < k_per_group; ++kk)
            acc += A[i * k + g * k_per_group + kk] * B_full[(g * k_per_group + kk) * n + j];
          const int32_t raw = acc - a_zp * col_offsets[g * n + j] - b_zp * row_sum + bias[g * n + j];
          const long q = std::lrintf(static_cast<float>(raw) * multiplier) + c_zp;
          want[i * groups * n + g * n + j] = static_cast<uint8_t>(q < 0 ? 0 : q > 255 ? 255 : q);
        }
      }

    std::unique_ptr<CompressedSparseColumn> B_csc = extract_outliers(B, k, n, groups, 4);
    EXPECT_GT(B_csc->NumOfNonZeros(), 0);
    PackBMatrix<int8_t, int16_t> packedB(matrix_op_t::NoTranspose, k, n, B.data(), n, nullptr, groups);
    std::vector<uint8_t> C(want.size());
    std::vector<int32_t> C_buffer(want.size());
    for (int t = 0; t < 2; ++t)
      fc_acc16_with_outliers(A.data(), m, k, groups, a_zp, packedB, *B_csc, n, &multiplier, c_zp,
                             &b_zp, col_offsets.data(), bias.data(), C.data(), C_buffer.data(), t, 2);
    EXPECT_EQ(C, want) << "groups " << groups;
  }
}

}  // namespace
