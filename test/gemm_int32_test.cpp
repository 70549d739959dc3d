// The raw int32 product of every ISA path against the reference, bit for bit, over odd
// shapes, groups, transposes and thread counts.
#include <gtest/gtest.h>

#include <memory>
#include <tuple>
#include <vector>

#include "quire/quire.h"
#include "quire/ref/Reference.h"
#include "test_util.h"

namespace quire::test {
namespace {

struct Case {
  int M, N, K, groups;
  matrix_op_t atrans, btrans;
  int threads;
};

std::string describe(const Case& c, inst_set_t isa) {
  return std::string(instSetName(isa)) + " M=" + std::to_string(c.M) + " N=" + std::to_string(c.N) +
         " K=" + std::to_string(c.K) + " G=" + std::to_string(c.groups) +
         " At=" + std::to_string(c.atrans == matrix_op_t::Transpose) +
         " Bt=" + std::to_string(c.btrans == matrix_op_t::Transpose) +
         " threads=" + std::to_string(c.threads);
}

// Runs C = A * B (int32 out) through quire and the reference, returns mismatch count.
int run_case(const Case& c, uint32_t seed, int a_lo = 0, int a_hi = 255, int b_lo = -128,
             int b_hi = 127, const BlockingFactors* blocking = nullptr) {
  const int G = c.groups, Kg = c.K, Ktot = G * Kg, ldc = G * c.N;
  std::vector<uint8_t> A = random_vector<uint8_t>(size_t(c.M) * Ktot, a_lo, a_hi, seed);
  std::vector<int8_t> B = random_vector<int8_t>(size_t(Ktot) * c.N, b_lo, b_hi, seed + 1);
  std::vector<int32_t> ref(size_t(c.M) * ldc);
  for (int g = 0; g < G; ++g) {
    ref::matmul_u8s8s32(c.M, c.N, Kg, A.data() + g * Kg, Ktot, B.data() + size_t(g) * Kg * c.N,
                        c.N, ref.data() + g * c.N, ldc);
  }
  // Sources in the layouts the packers take.
  std::vector<uint8_t> Asrc = A;
  int lda = Ktot;
  if (c.atrans == matrix_op_t::Transpose) {
    ref::transpose(Ktot, c.M, A.data(), Ktot, Asrc.data(), c.M);
    lda = c.M;
  }
  std::vector<int8_t> Bsrc;
  const int ldb = b_in_layout(c.btrans, G, Kg, c.N, B, Bsrc);
  PackBMatrix<int8_t> packedB(c.btrans, Ktot, c.N, Bsrc.data(), ldb, nullptr, G, blocking);
  // 64 sentinel elements after C: a kernel writing past the last row shows up here.
  std::vector<int32_t> C(size_t(c.M) * ldc + 64, -7);
  for (int t = 0; t < c.threads; ++t) {
    PackAMatrix<uint8_t> packA(c.atrans, c.M, Ktot, Asrc.data(), lda, nullptr, G, blocking);
    DoNothing<int32_t, int32_t> done;
    memCopy<> copy(done);
    fbgemmPacked(packA, packedB, C.data(), C.data(), ldc, copy, t, c.threads, blocking);
  }
  for (size_t i = size_t(c.M) * ldc; i < C.size(); ++i)
    if (C[i] != -7) return -1;  // wrote past the end of C
  return compare_buffers(ref.data(), C.data(), c.M, ldc, ldc, 0);
}

class GemmInt32 : public ::testing::TestWithParam<IsaCase> {};

TEST_P(GemmInt32, OddShapesAllGroupsTransposesThreads) {
  if (!GetParam().supported) GTEST_SKIP() << instSetName(GetParam().isa) << " not on this CPU";
  ScopedIsa isa(GetParam().isa);
  const std::vector<int> sizes = {1, 2, 3, 5, 7, 13, 17, 31, 33, 64, 65};
  uint32_t seed = 1;
  for (int M : sizes)
    for (int N : {1, 3, 4, 7, 8, 15, 17, 48, 65})
      for (int K : {1, 3, 4, 9, 36, 63, 129}) {
        const Case c{M, N, K, 1 + (M + N + K) % 3, (M % 2) ? matrix_op_t::Transpose : matrix_op_t::NoTranspose,
                     (K % 2) ? matrix_op_t::Transpose : matrix_op_t::NoTranspose, 1 + (N % 3)};
        ASSERT_EQ(run_case(c, seed++), 0) << describe(c, GetParam().isa);
      }
}

TEST_P(GemmInt32, KAcrossCacheBlocks) {
  if (!GetParam().supported) GTEST_SKIP() << instSetName(GetParam().isa) << " not on this CPU";
  ScopedIsa isa(GetParam().isa);
  uint32_t seed = 100;
  for (int K : {511, 512, 513, 1023, 1100})
    for (int M : {1, 6, 127, 130}) {
      const Case c{M, 70, K, 1, matrix_op_t::NoTranspose, matrix_op_t::NoTranspose, 2};
      ASSERT_EQ(run_case(c, seed++), 0) << describe(c, GetParam().isa);
    }
}

// Small cache blocks, so that every loop of the driver runs several times (M, K and N
// blocks, row offsets accumulated over K blocks), and K beyond the default KCB.
TEST_P(GemmInt32, ManyCacheBlocks) {
  if (!GetParam().supported) GTEST_SKIP() << instSetName(GetParam().isa) << " not on this CPU";
  ScopedIsa isa(GetParam().isa);
  BlockingFactors small = defaultBlocking();
  small.MCB = 2 * small.MR;
  small.KCB = 20;
  small.NCB = small.NR;
  uint32_t seed = 300;
  for (int K : {19, 20, 21, 63, 101})
    for (int M : {1, small.MCB - 1, 3 * small.MCB + 1})
      for (int N : {5, small.NR + 3}) {
        const Case c{M, N, K, 1 + K % 2, matrix_op_t::NoTranspose, K % 3 ? matrix_op_t::Transpose : matrix_op_t::NoTranspose, 1 + M % 3};
        ASSERT_EQ(run_case(c, seed++, 0, 255, -128, 127, &small), 0) << describe(c, GetParam().isa) << " small blocks";
      }
  const Case deep{5, 40, 4100, 1, matrix_op_t::NoTranspose, matrix_op_t::NoTranspose, 2};
  ASSERT_EQ(run_case(deep, seed++), 0) << describe(deep, GetParam().isa);
}

TEST_P(GemmInt32, ExtremeValuesAreExact) {
  if (!GetParam().supported) GTEST_SKIP() << instSetName(GetParam().isa) << " not on this CPU";
  ScopedIsa isa(GetParam().isa);
  for (int b : {-128, 127}) {
    const Case c{33, 65, 1023, 1, matrix_op_t::NoTranspose, matrix_op_t::NoTranspose, 3};
    ASSERT_EQ(run_case(c, 7, 255, 255, b, b), 0) << describe(c, GetParam().isa) << " B=" << b;
  }
}

INSTANTIATE_TEST_SUITE_P(AllIsas, GemmInt32, ::testing::ValuesIn(all_isas()),
                         [](const auto& info) { return std::string(instSetName(info.param.isa)); });

}  // namespace
}  // namespace quire::test

namespace quire::test {
namespace {

// Packed B knows its own panel width: B packed on one path (here the portable path with
// 4-column panels, narrower than any vector) must give exact results on every other.
TEST(GemmInt32CrossPath, BPackedWithNarrowPanelsRunsEverywhere) {
  for (int N : {3, 6, 8, 21}) {
    const int M = 29, K = 40;
    const std::vector<uint8_t> A = random_vector<uint8_t>(size_t(M) * K, 0, 255, 40 + N);
    const std::vector<int8_t> B = random_vector<int8_t>(size_t(K) * N, -128, 127, 41 + N);
    std::vector<int32_t> ref(size_t(M) * N);
    ref::matmul_u8s8s32(M, N, K, A.data(), K, B.data(), N, ref.data(), N);
    std::unique_ptr<PackBMatrix<int8_t>> packed;
    {
      ScopedIsa portable(inst_set_t::anyarch);
      BlockingFactors narrow = defaultBlocking();
      narrow.NR = 4;
      narrow.NR_MIN = 4;
      narrow.NCB = 4;
      packed = std::make_unique<PackBMatrix<int8_t>>(matrix_op_t::NoTranspose, K, N, B.data(), N, nullptr, 1, &narrow);
      ASSERT_EQ(packed->layout().panel_width, 4);
    }
    for (const IsaCase& c : all_isas()) {
      if (skip_unsupported(c)) continue;
      ScopedIsa isa(c.isa);
      std::vector<int32_t> C(size_t(M) * N + 64, -7);
      PackAMatrix<uint8_t> packA(matrix_op_t::NoTranspose, M, K, A.data(), K);
      DoNothing<int32_t, int32_t> done;
      memCopy<> copy(done);
      fbgemmPacked(packA, *packed, C.data(), C.data(), N, copy, 0, 1);
      ASSERT_EQ(compare_buffers(ref.data(), C.data(), M, N, N, 0), 0) << instSetName(c.isa) << " N=" << N;
      for (size_t i = size_t(M) * N; i < C.size(); ++i) ASSERT_EQ(C[i], -7) << instSetName(c.isa);
    }
  }
}

}  // namespace
}  // namespace quire::test
