// The outlier split end to end, on every path: B split by splitOutliersForAcc16, the
// dense part through the acc16 GEMM (PackBMatrix<int8_t, int16_t>) and the outliers added
// by DoSpmdmOnInpBuffer in the output pipeline, must give the exact int32 product, and
// with ReQuantizeOutput after it the exact requantized output, bit for bit. Random and
// adversarial weights, activations at their bound, groups, transposed B, 1-3 threads.
#include <gtest/gtest.h>

#include <vector>

#include "quire/OutlierSplit.h"
#include "quire/quire.h"
#include "quire/ref/Reference.h"
#include "quire/ref/ReferenceOutput.h"
#include "test_util.h"

namespace quire::test {
namespace {

struct Case {
  int M, N, K, groups;  // K, N per group
  matrix_op_t btrans;
  int threads;
  int a_max;
};

std::string describe(const Case& c, const char* weights) {
  return std::string(instSetName(fbgemmInstructionSet())) + " " + weights +
         " M=" + std::to_string(c.M) + " N=" + std::to_string(c.N) + " K=" + std::to_string(c.K) +
         " G=" + std::to_string(c.groups) + " Bt=" + std::to_string(c.btrans == matrix_op_t::Transpose) +
         " threads=" + std::to_string(c.threads) + " a_max=" + std::to_string(c.a_max);
}

// Weight patterns: full-range random, and the adversarial ones.
enum class Weights { random, all_max, all_min, alternating, one_huge_column, small_with_spikes };

const char* name(Weights w) {
  switch (w) {
    case Weights::random: return "random";
    case Weights::all_max: return "all127";
    case Weights::all_min: return "all-128";
    case Weights::alternating: return "alternating";
    case Weights::one_huge_column: return "one-huge-column";
    case Weights::small_with_spikes: return "small-with-spikes";
  }
  return "?";
}

// B as (G*K) x N row-major, groups stacked along K.
std::vector<int8_t> make_weights(Weights w, int rows, int N, uint32_t seed) {
  std::vector<int8_t> B = random_vector<int8_t>(static_cast<size_t>(rows) * N, -128, 127, seed);
  const std::vector<int8_t> small = random_vector<int8_t>(B.size(), -2, 2, seed + 7);
  for (int k = 0; k < rows; ++k)
    for (int j = 0; j < N; ++j) {
      int8_t& b = B[static_cast<size_t>(k) * N + j];
      switch (w) {
        case Weights::random: break;
        case Weights::all_max: b = 127; break;
        case Weights::all_min: b = -128; break;
        case Weights::alternating: b = (k + j) % 2 ? 127 : -128; break;
        case Weights::one_huge_column: b = j == N / 2 ? 127 : small[static_cast<size_t>(k) * N + j]; break;
        case Weights::small_with_spikes:
          b = (k * 7 + j * 3) % 29 == 0 ? b : small[static_cast<size_t>(k) * N + j];
          break;
      }
    }
  return B;
}

// Runs the split GEMM (int32 out and requantized u8 out) and compares both with the exact
// reference; returns mismatches.
int run_case(const Case& c, Weights w, uint32_t seed) {
  const int G = c.groups, Ktot = G * c.K, ldc = G * c.N;
  const std::vector<uint8_t> A = random_vector<uint8_t>(static_cast<size_t>(c.M) * Ktot, 0, c.a_max, seed);
  std::vector<uint8_t> A_at_bound = A;  // every other row pinned at a_max: the worst case
  for (int i = 0; i < c.M; i += 2)
    for (int k = 0; k < Ktot; ++k) A_at_bound[static_cast<size_t>(i) * Ktot + k] = static_cast<uint8_t>(c.a_max);
  const std::vector<int8_t> B = make_weights(w, Ktot, c.N, seed + 1);

  std::vector<int32_t> exact(static_cast<size_t>(c.M) * ldc);
  for (int g = 0; g < G; ++g)
    ref::matmul_u8s8s32(c.M, c.N, c.K, A_at_bound.data() + g * c.K, Ktot,
                        B.data() + static_cast<size_t>(g) * c.K * c.N, c.N,
                        exact.data() + g * c.N, ldc);

  // The caller's B in the case's layout.
  std::vector<int8_t> Bsrc;
  const int ldb = b_in_layout(c.btrans, G, c.K, c.N, B, Bsrc);
  const Acc16OutlierSplit split =
      splitOutliersForAcc16(c.btrans, Ktot, c.N, Bsrc.data(), ldb, G, acc16BlockDepth(), c.a_max);
  const int ld_dense = c.btrans == matrix_op_t::Transpose ? c.K : c.N;
  PackBMatrix<int8_t, int16_t> Bp(c.btrans, Ktot, c.N, split.dense.data(), ld_dense, nullptr, G);

  // Requantization parameters: per-tensor, A and B zero points, int32 bias.
  const int32_t a_zp = 3, c_zp = 7;
  const std::vector<int32_t> b_zp(1, -2);
  const std::vector<float> multiplier(1, 1.0f / 4096);
  std::vector<int32_t> col_offsets(ldc), row_offsets(c.M), bias(ldc);
  for (int g = 0; g < G; ++g)
    ref::col_offsets_with_zero_pt_s8(c.K, c.N, B.data() + static_cast<size_t>(g) * c.K * c.N, c.N,
                                     b_zp.data(), col_offsets.data() + g * c.N, c.N);
  for (int j = 0; j < ldc; ++j) bias[j] = j * 13 - 200;

  int mismatches = 0;
  std::vector<int32_t> C32(static_cast<size_t>(c.M) * ldc, -1);
  std::vector<uint8_t> C8(static_cast<size_t>(c.M) * ldc);
  std::vector<int32_t> scratch(C8.size());
  for (int t = 0; t < c.threads; ++t) {
    PackAMatrix<uint8_t, int16_t> Ap(matrix_op_t::NoTranspose, c.M, Ktot, A_at_bound.data(), Ktot,
                                     nullptr, G);
    DoNothing<int32_t, int32_t> done;
    memCopy<> copy(done);
    DoSpmdmOnInpBuffer<int32_t, int32_t, memCopy<>> sparse(copy, A_at_bound.data(), Ktot,
                                                           split.outliers, G);
    fbgemmPacked(Ap, Bp, C32.data(), C32.data(), ldc, sparse, t, c.threads);
  }
  mismatches += compare_buffers(exact.data(), C32.data(), c.M, ldc, ldc, 0);

  // The same through ReQuantizeOutput, against the reference requantization of the exact
  // product. The row offsets are per group, so each group runs as its own output block.
  std::vector<uint8_t> want(C8.size());
  for (int g = 0; g < G; ++g) {
    ref::row_offsets_u8(c.M, c.K, A_at_bound.data() + g * c.K, Ktot, row_offsets.data());
    ref::QuantParams p;
    p.nCol = static_cast<uint32_t>(ldc);
    p.groups = G;
    p.Aq_zero_point = a_zp;
    p.Bq_zero_point = b_zp.data();
    p.row_offsets = row_offsets.data();
    p.col_offsets = col_offsets.data();
    const block_type_t block{0, c.M, g * c.N, c.N};
    ref::requantize_u8<int32_t>(want.data(), exact.data() + g * c.N, block, ldc, ldc, p,
                                multiplier.data(), c_zp, bias.data(), nullptr, false);
  }
  for (int t = 0; t < c.threads; ++t) {
    PackAWithRowOffset<uint8_t, int16_t> Ap(matrix_op_t::NoTranspose, c.M, Ktot, A_at_bound.data(),
                                            Ktot, nullptr, G);
    DoNothing<> done;
    ReQuantizeOutput<false> requant(done, multiplier.data(), c_zp, a_zp, b_zp.data(),
                                    Ap.getRowOffsetBuffer(), col_offsets.data(), bias.data(),
                                    static_cast<uint32_t>(ldc), G);
    DoSpmdmOnInpBuffer<uint8_t, int32_t, ReQuantizeOutput<false>> sparse(
        requant, A_at_bound.data(), Ktot, split.outliers, G);
    fbgemmPacked(Ap, Bp, C8.data(), scratch.data(), ldc, sparse, t, c.threads);
  }
  mismatches += compare_buffers(want.data(), C8.data(), c.M, ldc, ldc, 0);
  return mismatches;
}

class Acc16OutlierSplitGemm : public ::testing::TestWithParam<IsaCase> {
 protected:
  void SetUp() override {
    if (!GetParam().supported) GTEST_SKIP() << instSetName(GetParam().isa) << " not on this CPU";
  }
};

TEST_P(Acc16OutlierSplitGemm, DenseAcc16PlusSparseIsTheExactProduct) {
  ScopedIsa isa(GetParam().isa);
  uint32_t seed = 100;
  for (Weights w : {Weights::random, Weights::all_max, Weights::all_min, Weights::alternating,
                    Weights::one_huge_column, Weights::small_with_spikes})
    for (int K : {1, 3, 17, 63, 65, 257, 600})
      for (int a_max : {255, 31}) {
        const Case c{1 + K % 20, 1 + (K * 7) % 70, K, 1 + K % 3,
                     K % 2 ? matrix_op_t::Transpose : matrix_op_t::NoTranspose, 1 + K % 3, a_max};
        ASSERT_EQ(run_case(c, w, seed += 2), 0) << describe(c, name(w));
      }
}

TEST_P(Acc16OutlierSplitGemm, OddShapesAndThreads) {
  ScopedIsa isa(GetParam().isa);
  uint32_t seed = 900;
  for (int M : {1, 3, 17, 63, 65})
    for (int N : {1, 3, 17, 64, 65})
      for (int threads : {1, 2, 3}) {
        const Case c{M, N, 300, 1, matrix_op_t::NoTranspose, threads, 255};
        ASSERT_EQ(run_case(c, Weights::small_with_spikes, seed += 2), 0)
            << describe(c, name(Weights::small_with_spikes));
      }
}

INSTANTIATE_TEST_SUITE_P(AllPaths, Acc16OutlierSplitGemm, ::testing::ValuesIn(all_isas()),
                         [](const auto& info) { return std::string(instSetName(info.param.isa)); });

}  // namespace
}  // namespace quire::test
