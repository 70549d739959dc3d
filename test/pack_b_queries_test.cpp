// PackMatrix's FBGEMM block queries and addr() on the A and B packers, PackBMatrix's
// unpack into the construction layout and ld, printPackedMatrix's format,
// PackingTraits against the blocking the packers use, and DoSpmdmOnInpBuffer's defaults.
#include <gtest/gtest.h>

#include <type_traits>
#include <vector>

#include "fbgemm/Fbgemm.h"
#include "test_util.h"

namespace quire {
namespace {

TEST(PackBQueries, BlockQueriesAndAddr) {
  for (const auto& c : test::all_isas()) {
    if (skip_unsupported(c)) continue;
    test::ScopedIsa scope(c.isa);
    for (int groups : {1, 3}) {
      const int Kg = 67, N = 65, K = Kg * groups;
      const auto b = test::random_vector<int8_t>(static_cast<size_t>(K) * N, -128, 127, 4);
      PackBMatrix<int8_t> p(matrix_op_t::NoTranspose, K, N, b.data(), N, nullptr, groups);
      const BlockingFactors& bf = p.blockingFactors();
      EXPECT_TRUE(p.isPrePacked());
      EXPECT_FALSE(p.isA());
      EXPECT_EQ(p.blockRowSize(), bf.KCB);
      EXPECT_EQ(p.blockColSize(), bf.NR);
      EXPECT_EQ(p.numPackedRows(), Kg);
      EXPECT_EQ(p.numPackedCols(), N);
      EXPECT_EQ(p.packedRowStart(), 0);
      EXPECT_EQ(p.blockRows(), (Kg + bf.KCB - 1) / bf.KCB);
      EXPECT_EQ(p.blockCols(), (N + bf.NR - 1) / bf.NR);
      EXPECT_EQ(p.lastBrow(), Kg % bf.KCB ? Kg % bf.KCB : bf.KCB);
      EXPECT_EQ(p.lastBcol(), N % bf.NR ? N % bf.NR : bf.NR);
      EXPECT_EQ(p.isThereColRemainder(), N % bf.NR != 0);
      EXPECT_TRUE(p.isThisLastKBlock(p.blockRows() - 1));
      EXPECT_EQ(p.getBuf(0, 1), p.getBuf() + p.addr(0, bf.NR));
      // addr locates every element of group 0.
      for (int k = 0; k < Kg; ++k)
        for (int j = 0; j < N; ++j)
          ASSERT_EQ(p.getBuf()[p.addr(k, j)], b[static_cast<size_t>(k) * N + j]) << k << " " << j;
    }
  }
}

TEST(PackBQueries, APackerQueries) {
  const int M = 37, K = 21;
  const auto a = test::random_vector<uint8_t>(static_cast<size_t>(M) * K, 0, 255, 5);
  PackAWithRowOffset<uint8_t> p(matrix_op_t::NoTranspose, M, K, a.data(), K);
  EXPECT_FALSE(p.isPrePacked());
  EXPECT_TRUE(p.isA());
  const BlockingFactors& bf = p.blockingFactors();
  EXPECT_EQ(p.blockRowSize(), bf.MCB);
  EXPECT_EQ(p.blockColSize(), bf.KCB);
  p.pack(block_type_t{4, 10, 0, K});  // K = 21 is copied (not a multiple of 4)
  EXPECT_EQ(p.packedRowStart(), 4);
  EXPECT_EQ(p.numPackedRows(), 10);
  EXPECT_EQ(p.numPackedCols(), 24);  // rounded up to the K interleave
  EXPECT_EQ(p.blockRows(), 1);
  EXPECT_EQ(p.lastBrow(), 10);
  for (int i = 0; i < 10; ++i)
    for (int k = 0; k < 24; ++k)
      ASSERT_EQ(p.getBuf()[p.addr(i, k)], k < K ? a[static_cast<size_t>(4 + i) * K + k] : 0);
  testing::internal::CaptureStdout();
  p.printPackedMatrix("A");
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(out.rfind("A:[10, 24]\n", 0), 0u) << out;
}

TEST(PackBQueries, UnpackWritesTheConstructionLayout) {
  for (matrix_op_t trans : {matrix_op_t::NoTranspose, matrix_op_t::Transpose}) {
    for (int groups : {1, 2}) {
      const int Kg = 19, N = 13, K = Kg * groups;
      const auto b = test::random_vector<int8_t>(static_cast<size_t>(K) * N, -128, 127, 6);
      std::vector<int8_t> in_layout;
      test::b_in_layout(trans, groups, Kg, N, b, in_layout);
      // The same matrix with a padded ld: rows (or, transposed, columns) of row_len
      // values ld apart.
      const int row_len = trans == matrix_op_t::NoTranspose ? N : Kg;
      const int rows = static_cast<int>(in_layout.size()) / row_len, ld = row_len + 5;
      std::vector<int8_t> src(static_cast<size_t>(rows) * ld, 0);
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < row_len; ++c) src[r * ld + c] = in_layout[r * row_len + c];
      PackBMatrix<int8_t> p(trans, K, N, src.data(), ld, nullptr, groups);
      std::vector<int8_t> out(src.size(), 77);
      p.unpack(out.data());
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < ld; ++c)
          ASSERT_EQ(out[r * ld + c], c < row_len ? src[r * ld + c] : 77) << r << " " << c;
    }
  }
}

// pack(block): weights changed in place after packing are packed again block by block;
// the result equals a fresh packing of the changed matrix, pair-safe flags included, and
// the geometry queries still describe the whole matrix.
TEST(PackBQueries, PackBlockRepacksFromTheSource) {
  for (matrix_op_t trans : {matrix_op_t::NoTranspose, matrix_op_t::Transpose}) {
    for (int groups : {1, 3}) {
      const int Kg = 21, N = 37, K = Kg * groups;
      std::vector<int8_t> src;
      test::b_in_layout(trans, groups, Kg, N,
                        test::random_vector<int8_t>(static_cast<size_t>(K) * N, -20, 20, 8), src);
      const int ld = trans == matrix_op_t::NoTranspose ? N : Kg;
      PackBMatrix<int8_t> p(trans, K, N, src.data(), ld, nullptr, groups);
      // Change every weight, then pack the matrix again in three blocks.
      for (int8_t& w : src) w = static_cast<int8_t>(w == 0 ? -128 : 127 - w);
      p.pack(block_type_t{0, 8, 0, 16});
      p.pack(block_type_t{0, 8, 16, N - 16});
      p.pack(block_type_t{8, Kg - 8, 0, N}, nullptr);
      const PackBMatrix<int8_t> fresh(trans, K, N, src.data(), ld, nullptr, groups);
      EXPECT_TRUE(p.equals(fresh));
      for (int g = 0; g < groups; ++g)
        for (int i = 0; i < p.layout().panels(); ++i)
          EXPECT_EQ(p.pairSafePanels(g)[i], fresh.pairSafePanels(g)[i]) << g << " " << i;
      EXPECT_EQ(p.numPackedRows(), Kg);
      EXPECT_EQ(p.numPackedCols(), N);
      p.pack(block_type_t{3, 0, 5, 0});  // an empty block packs nothing
      EXPECT_TRUE(p.equals(fresh));
      for (const block_type_t bad : {block_type_t{-1, 2, 0, 1}, block_type_t{20, 2, 0, 1},
                                     block_type_t{0, 1, 30, 8}, block_type_t{0, 1, -2, 1}})
        EXPECT_THROW(p.pack(bad), std::invalid_argument) << bad.toString();
    }
  }
}

TEST(PackBQueries, PrintPackedMatrixFormat) {
  const std::vector<int8_t> b{1, 2, 3, 4, 5, 6};  // K = 3, N = 2
  PackBMatrix<int8_t> p(matrix_op_t::NoTranspose, 3, 2, b.data(), 2);
  testing::internal::CaptureStdout();
  p.printPackedMatrix("B");
  const std::string out = testing::internal::GetCapturedStdout();
  const std::string head = "B:[3, 2]\nblock size:[" + std::to_string(p.blockRowSize()) + ", " +
                           std::to_string(p.blockColSize()) + "]\ngroup: 0\nblock:0, 0\n" +
                           "    1     3     5     0     2     4     6     0 \n\n";
  EXPECT_EQ(out, head);
}

template <inst_set_t I, typename accT>
void expect_traits_match() {
  using Tr = PackingTraits<uint8_t, accT, I>;
  test::ScopedIsa scope(I);
  const std::vector<uint8_t> a(4, 1);
  PackAMatrix<uint8_t, accT> p(matrix_op_t::NoTranspose, 1, 4, a.data(), 4);
  const BlockingFactors& bf = p.blockingFactors();
  EXPECT_EQ(bf.MR, Tr::MR) << instSetName(I);
  EXPECT_EQ(bf.NR, Tr::NR) << instSetName(I);
  EXPECT_EQ(bf.NR_MIN, Tr::NR_MIN) << instSetName(I);
  EXPECT_EQ(bf.ROW_INTERLEAVE, Tr::ROW_INTERLEAVE) << instSetName(I);
  EXPECT_EQ(bf.MCB, Tr::MCB) << instSetName(I);
  EXPECT_EQ(bf.KCB, Tr::KCB) << instSetName(I);
  EXPECT_EQ(bf.NCB, Tr::NCB) << instSetName(I);
  EXPECT_EQ(std::get<1>(Tr::getCacheBlockParams()), Tr::KCB);
}

template <inst_set_t I>
void expect_traits_match_if(bool supported) {
  if (!supported) return;
  expect_traits_match<I, int32_t>();
  expect_traits_match<I, int16_t>();
}

TEST(PackBQueries, PackingTraitsAreTheDefaultBlocking) {
  expect_traits_match_if<inst_set_t::anyarch>(true);
  expect_traits_match_if<inst_set_t::avx2>(fbgemmHasAvx2Support());
  expect_traits_match_if<inst_set_t::avx_vnni>(fbgemmHasAvxVnniSupport());
  expect_traits_match_if<inst_set_t::avx512>(fbgemmHasAvx512Support());
  expect_traits_match_if<inst_set_t::avx512_vnni_ymm>(fbgemmHasAvx512VnniSupport());
  expect_traits_match_if<inst_set_t::avx512_vnni>(fbgemmHasAvx512VnniSupport());
}

TEST(PackBQueries, DoSpmdmDefaultsAreFbgemms) {
  using Op = fbgemm::DoSpmdmOnInpBuffer<>;
  static_assert(std::is_same_v<Op::outType, int32_t>);
  static_assert(std::is_same_v<Op::inpType, int32_t>);
}

}  // namespace
}  // namespace quire
