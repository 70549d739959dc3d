// CompressedSparseColumn and DoSpmdmOnInpBuffer: the structure (construction, fromDense /
// toDense, validate), SpMDM against the dense reference product bit for bit over odd
// blocks, densities from empty to full and full-range data, the op with groups in front
// of memCopy and ReQuantizeOutput, on every ISA path this CPU has (forced: SpMDM runs
// the active path's loops), and every bad argument. sparse_spmdm_loops_test.cpp tests
// each loop of each path on its own.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include <fbgemm/Fbgemm.h>
#include <fbgemm/FbgemmI8Spmdm.h>

#include "quire/quire.h"
#include "quire/ref/Reference.h"
#include "quire/ref/ReferenceOutput.h"
#include "test_util.h"

namespace quire::test {
namespace {

// EXPECT_INVALID (test_util.h) with W("param", ...) for the words the message must hold.
#define W(...) ({__VA_ARGS__})

// rows x cols int8, row-major (ld = cols): each element nonzero (full range, -128..127
// except 0) with probability `density`.
std::vector<int8_t> random_sparse(int rows, int cols, double density, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  std::uniform_int_distribution<int> value(-128, 126);
  std::vector<int8_t> b(static_cast<size_t>(rows) * cols, 0);
  for (int8_t& x : b) {
    if (coin(gen) >= density) continue;
    const int v = value(gen);
    x = static_cast<int8_t>(v >= 0 ? v + 1 : v);
  }
  return b;
}

TEST(CompressedSparseColumn, StartsEmpty) {
  const CompressedSparseColumn csc(5, 7);
  EXPECT_EQ(csc.ColPtr(), std::vector<int32_t>(8, 0));
  EXPECT_TRUE(csc.RowIdx().empty());
  EXPECT_TRUE(csc.Values().empty());
  EXPECT_EQ(csc.NumOfRows(), 5u);
  EXPECT_EQ(csc.NumOfCols(), 7u);
  EXPECT_EQ(csc.NumOfNonZeros(), 0);
  EXPECT_EQ(csc.Density(), 0.0);
  EXPECT_TRUE(csc.IsHyperSparse());
  csc.validate("test");
  EXPECT_EQ(CompressedSparseColumn(0, 0).Density(), 0.0);
  EXPECT_EQ(CompressedSparseColumn(32768, 1).NumOfRows(), 32768u);
}

TEST(CompressedSparseColumn, FromDenseToDenseRoundTrip) {
  for (const double density : {0.0, 0.02, 0.3, 1.0}) {
    const int rows = 37, cols = 11, ldb = 13;
    std::vector<int8_t> B = random_sparse(rows, ldb, density, 7);
    for (int k = 0; k < rows; ++k) B[static_cast<size_t>(k) * ldb + 4] = 0;  // an empty column
    const CompressedSparseColumn csc = CompressedSparseColumn::fromDense(rows, cols, B.data(), ldb);
    csc.validate("test");
    int nonzeros = 0;
    for (int k = 0; k < rows; ++k)
      for (int j = 0; j < cols; ++j) nonzeros += B[static_cast<size_t>(k) * ldb + j] != 0;
    EXPECT_EQ(csc.NumOfNonZeros(), nonzeros);
    EXPECT_DOUBLE_EQ(csc.Density(), nonzeros / double(rows * cols));
    EXPECT_EQ(csc.IsHyperSparse(), nonzeros < 0.3 * rows);
    EXPECT_EQ(csc.ColPtr()[4], csc.ColPtr()[5]);
    for (int j = 0; j < cols; ++j)
      for (int32_t p = csc.ColPtr()[j] + 1; p < csc.ColPtr()[j + 1]; ++p)
        EXPECT_LT(csc.RowIdx()[p - 1], csc.RowIdx()[p]) << "rows ascend in column " << j;
    // Back, with a wider ld whose extra columns must stay untouched.
    const int ld_out = cols + 3;
    std::vector<int8_t> back(static_cast<size_t>(rows) * ld_out, 99);
    csc.toDense(back.data(), ld_out);
    for (int k = 0; k < rows; ++k) {
      for (int j = 0; j < ld_out; ++j) {
        const int8_t want = j < cols ? B[static_cast<size_t>(k) * ldb + j] : int8_t{99};
        ASSERT_EQ(back[static_cast<size_t>(k) * ld_out + j], want) << k << "," << j;
      }
    }
  }
}

// Expected SpMDM: the dense reference on the block's rows of A and columns of B.
std::vector<int32_t> expected_spmdm(const block_type_t& b, const std::vector<uint8_t>& A, int lda,
                                    const std::vector<int8_t>& B, int K, int ldb,
                                    const std::vector<int32_t>& C0, int ldc, bool accumulation) {
  std::vector<int32_t> product(static_cast<size_t>(b.row_size) * b.col_size);
  ref::matmul_u8s8s32(b.row_size, b.col_size, K, A.data() + static_cast<size_t>(b.row_start) * lda,
                      lda, B.data() + b.col_start, ldb, product.data(), b.col_size);
  std::vector<int32_t> C = C0;
  for (int i = 0; i < b.row_size; ++i) {
    for (int j = 0; j < b.col_size; ++j) {
      const int32_t s = product[static_cast<size_t>(i) * b.col_size + j];
      int32_t& c = C[static_cast<size_t>(i) * ldc + j];
      c = accumulation ? static_cast<int32_t>(static_cast<uint32_t>(c) + static_cast<uint32_t>(s)) : s;
    }
  }
  return C;
}

TEST(SpMDM, MatchesDenseProductOnOddBlocks) {
  const int K = 67, N = 140, M = 150, lda = K + 5;
  const std::vector<uint8_t> A = random_vector<uint8_t>(static_cast<size_t>(M) * lda, 0, 255, 1);
  uint32_t seed = 10;
  // 0: empty; 0.002: hyper-sparse; 0.05 .. 1: enough nonzeros for the transposed loop.
  for (const double density : {0.0, 0.002, 0.05, 0.4, 1.0}) {
    std::vector<int8_t> B = random_sparse(K, N, density, seed++);
    for (int k = 0; k < K; ++k) B[static_cast<size_t>(k) * N + 3] = 0;  // an empty column
    const CompressedSparseColumn csc = CompressedSparseColumn::fromDense(K, N, B.data(), N);
    for (const IsaCase& isa : all_isas()) {
      if (skip_unsupported(isa)) continue;
      ScopedIsa forced(isa.isa);
      for (const int rows : {1, 3, 17, 33, 63, 65}) {
        for (const int cols : {1, 3, 17, 63, 65}) {
          for (const block_type_t b :
               {block_type_t{0, rows, 0, cols}, block_type_t{7, rows, 2, cols},
                block_type_t{M - rows, rows, N - cols, cols}}) {
            for (const bool accumulation : {false, true}) {
              const int ldc = cols + 2;  // the 2 extra columns must stay untouched
              const std::vector<int32_t> C0 = random_vector<int32_t>(
                  static_cast<size_t>(rows) * ldc, INT32_MIN, INT32_MAX, seed++);
              std::vector<int32_t> C = C0;
              csc.SpMDM(b, A.data(), lda, accumulation, C.data(), ldc);
              ASSERT_EQ(C, expected_spmdm(b, A, lda, B, K, N, C0, ldc, accumulation))
                  << instSetName(isa.isa) << " density " << density << " block " << b.row_start
                  << "+" << rows << " x " << b.col_start << "+" << cols << " accumulation "
                  << accumulation;
            }
          }
        }
      }
    }
  }
}

// The largest K (32768 rows) with the extreme products: the int32 sums stay exact.
TEST(SpMDM, LargestKFullRange) {
  const int K = 32768, N = 3, M = 5;
  const std::vector<uint8_t> A(static_cast<size_t>(M) * K, 255);
  std::vector<int8_t> B(static_cast<size_t>(K) * N);
  for (int k = 0; k < K; ++k) {
    B[static_cast<size_t>(k) * N + 0] = -128;
    B[static_cast<size_t>(k) * N + 1] = 127;
    B[static_cast<size_t>(k) * N + 2] = static_cast<int8_t>(k % 2 ? -128 : 127);
  }
  const CompressedSparseColumn csc = CompressedSparseColumn::fromDense(K, N, B.data(), N);
  for (const IsaCase& isa : all_isas()) {
    if (skip_unsupported(isa)) continue;
    ScopedIsa forced(isa.isa);
    std::vector<int32_t> C(static_cast<size_t>(M) * N);
    csc.SpMDM({0, M, 0, N}, A.data(), K, false, C.data(), N);
    for (int i = 0; i < M; ++i) {
      EXPECT_EQ(C[i * N + 0], -1069547520) << instSetName(isa.isa);  // 32768 * 255 * -128
      EXPECT_EQ(C[i * N + 1], 1061191680) << instSetName(isa.isa);   // 32768 * 255 * 127
      EXPECT_EQ(C[i * N + 2], -4177920) << instSetName(isa.isa);     // 16384 * 255 * -1
    }
  }
}

// Arrays filled by hand, FBGEMM's way (through the compat header's names), rows in any
// order within a column.
TEST(SpMDM, ArraysFilledByHand) {
  fbgemm::CompressedSparseColumn csc(4, 3);
  csc.ColPtr() = {0, 2, 2, 5};
  csc.RowIdx() = {3, 0, 1, 3, 2};
  csc.Values() = {-128, 127, 5, -1, 2};
  csc.validate("test");
  const std::vector<uint8_t> A = {255, 1, 2, 3, 0, 10, 20, 30};  // 2 x 4
  std::vector<int32_t> C(6, 0);
  csc.SpMDM({0, 2, 0, 3}, A.data(), 4, false, C.data(), 3);
  EXPECT_EQ(C, (std::vector<int32_t>{3 * -128 + 255 * 127, 0, 1 * 5 + 3 * -1 + 2 * 2,
                                     30 * -128 + 0, 0, 10 * 5 + 30 * -1 + 20 * 2}));
}

// Runs the op on every block of `blocks` as the driver does on path `isa`
// (detail::run_output: inp is the block's corner of C_buffer, ld_in = ld_out = ldc).
template <class Op, class OutT>
void run_blocks(const Op& op, inst_set_t isa, OutT* C, std::vector<int32_t>& C_buffer, int ldc,
                const std::vector<block_type_t>& blocks) {
  for (const block_type_t& b : blocks)
    detail::run_output(op, isa, C, C_buffer.data() + b.row_start * ldc + b.col_start, b, ldc);
}

// Blocks that tile M x (groups * N) without crossing a group: odd row and column splits.
std::vector<block_type_t> group_blocks(int M, int N, int groups) {
  std::vector<block_type_t> blocks;
  for (int g = 0; g < groups; ++g)
    for (int r0 = 0; r0 < M; r0 += 7)
      for (int c0 = 0; c0 < N; c0 += 13)
        blocks.push_back({r0, std::min(7, M - r0), g * N + c0, std::min(13, N - c0)});
  return blocks;
}

struct GroupCase {
  int M, Kg, N, groups;
  std::vector<uint8_t> A;        // M x groups * Kg
  std::vector<int8_t> outliers;  // Kg x groups * N (the CSC's dense form)
  std::vector<int32_t> gemm;     // M x groups * N: the "GEMM result" the op starts from
  std::vector<int32_t> expected;  // gemm + the sparse product of each group
};

GroupCase make_group_case(int groups, uint32_t seed) {
  GroupCase c{9, 45, 30, groups, {}, {}, {}, {}};
  const int lda = groups * c.Kg, ldc = groups * c.N;
  c.A = random_vector<uint8_t>(static_cast<size_t>(c.M) * lda, 0, 255, seed);
  c.outliers = random_sparse(c.Kg, ldc, 0.1, seed + 1);
  c.gemm = random_vector<int32_t>(static_cast<size_t>(c.M) * ldc, -100000, 100000, seed + 2);
  c.expected = c.gemm;
  std::vector<int32_t> product(static_cast<size_t>(c.M) * ldc);
  for (int g = 0; g < groups; ++g)
    ref::matmul_u8s8s32(c.M, c.N, c.Kg, c.A.data() + g * c.Kg, lda, c.outliers.data() + g * c.N,
                        ldc, product.data() + g * c.N, ldc);
  for (size_t i = 0; i < product.size(); ++i) c.expected[i] += product[i];
  return c;
}

TEST(DoSpmdmOnInpBuffer, GroupsThenMemCopy) {
  for (const int groups : {1, 2, 4}) {
    const GroupCase c = make_group_case(groups, 100 + groups);
    const int ldc = groups * c.N;
    const CompressedSparseColumn csc =
        CompressedSparseColumn::fromDense(c.Kg, ldc, c.outliers.data(), ldc);
    for (const IsaCase& isa : all_isas()) {
      if (skip_unsupported(isa)) continue;
      ScopedIsa forced(isa.isa);  // SpMDM runs the active path's loops
      DoNothing<int32_t, int32_t> done;
      memCopy<> copy(done);
      DoSpmdmOnInpBuffer<int32_t, int32_t, memCopy<>> op(copy, c.A.data(), groups * c.Kg, csc,
                                                         groups);
      std::vector<int32_t> buffer = c.gemm, C(c.gemm.size(), -1);
      run_blocks(op, isa.isa, C.data(), buffer, ldc, group_blocks(c.M, c.N, groups));
      EXPECT_EQ(C, c.expected) << instSetName(isa.isa) << " groups " << groups;
      EXPECT_EQ(buffer, c.expected) << "the op adds in place into inp";
    }
  }
}

TEST(DoSpmdmOnInpBuffer, GroupsThenRequantize) {
  for (const int groups : {1, 2, 4}) {
    const GroupCase c = make_group_case(groups, 200 + groups);
    const int ldc = groups * c.N;
    const CompressedSparseColumn csc =
        CompressedSparseColumn::fromDense(c.Kg, ldc, c.outliers.data(), ldc);
    const std::vector<float> multiplier = {0.00031f, 0.0007f, 0.00012f, 0.0011f};
    const std::vector<int32_t> b_zp = {3, -2, 0, 7};
    const std::vector<int32_t> row_offsets = random_vector<int32_t>(c.M, 0, 20000, 5);
    const std::vector<int32_t> col_offsets = random_vector<int32_t>(ldc, -3000, 3000, 6);
    const std::vector<int32_t> bias = random_vector<int32_t>(ldc, -5000, 5000, 7);
    const int32_t a_zp = 17, c_zp = 9;
    ref::QuantParams p{QuantizationGranularity::GROUP, groups, static_cast<uint32_t>(ldc), a_zp,
                       b_zp.data(), nullptr, col_offsets.data()};
    const std::vector<block_type_t> blocks = group_blocks(c.M, c.N, groups);
    std::vector<uint8_t> want(c.expected.size());
    for (const block_type_t& b : blocks) {
      p.row_offsets = row_offsets.data() + b.row_start;
      ref::requantize_u8(want.data(), c.expected.data() + b.row_start * ldc + b.col_start, b, ldc,
                         ldc, p, multiplier.data(), c_zp, bias.data(), nullptr, false);
    }
    for (const IsaCase& isa : all_isas()) {
      if (skip_unsupported(isa)) continue;
      ScopedIsa forced(isa.isa);  // SpMDM runs the active path's loops
      DoNothing<> done;
      using Requant = ReQuantizeOutput<false, QuantizationGranularity::GROUP>;
      Requant requant(done, multiplier.data(), c_zp, a_zp, b_zp.data(), nullptr,
                      col_offsets.data(), bias.data(), ldc, groups);
      DoSpmdmOnInpBuffer<uint8_t, int32_t, Requant> op(requant, c.A.data(), groups * c.Kg, csc,
                                                       groups);
      std::vector<int32_t> buffer = c.gemm;
      std::vector<uint8_t> C(c.gemm.size(), 0);
      for (const block_type_t& b : blocks) {
        requant.setRowOffsets(row_offsets.data() + b.row_start);  // per row block, as the driver
        run_blocks(op, isa.isa, C.data(), buffer, ldc, {b});
      }
      EXPECT_EQ(C, want) << instSetName(isa.isa) << " groups " << groups;
    }
  }
}

TEST(CompressedSparseColumn, BadArguments) {
  EXPECT_INVALID(W("num_of_rows"), CompressedSparseColumn(-1, 3));
  EXPECT_INVALID(W("num_of_rows", "32769"), CompressedSparseColumn(32769, 3));
  EXPECT_INVALID(W("num_of_cols"), CompressedSparseColumn(3, -1));
  const std::vector<int8_t> B(64, 1);
  EXPECT_INVALID(W("B"), CompressedSparseColumn::fromDense(4, 4, nullptr, 4));
  EXPECT_INVALID(W("ldb"), CompressedSparseColumn::fromDense(4, 4, B.data(), 3));
  EXPECT_INVALID(W("rows"), CompressedSparseColumn::fromDense(40000, 1, B.data(), 1));
  EXPECT_INVALID(W("cols"), CompressedSparseColumn::fromDense(1, -2, B.data(), 1));

  const CompressedSparseColumn csc = CompressedSparseColumn::fromDense(4, 4, B.data(), 4);
  const std::vector<uint8_t> A(64, 1);
  std::vector<int32_t> C(64);
  EXPECT_INVALID(W("A"), csc.SpMDM({0, 2, 0, 4}, nullptr, 4, false, C.data(), 4));
  EXPECT_INVALID(W("C"), csc.SpMDM({0, 2, 0, 4}, A.data(), 4, false, nullptr, 4));
  EXPECT_INVALID(W("lda", "3"), csc.SpMDM({0, 2, 0, 4}, A.data(), 3, false, C.data(), 4));
  EXPECT_INVALID(W("ldc", "3"), csc.SpMDM({0, 2, 0, 4}, A.data(), 4, false, C.data(), 3));
  EXPECT_INVALID(W("block"), csc.SpMDM({0, 2, 1, 4}, A.data(), 4, false, C.data(), 4));
  EXPECT_INVALID(W("block"), csc.SpMDM({-1, 2, 0, 4}, A.data(), 4, false, C.data(), 4));
  EXPECT_INVALID(W("block"), csc.SpMDM({0, 2, 0, -1}, A.data(), 4, false, C.data(), 4));
  EXPECT_INVALID(W("B"), csc.toDense(nullptr, 4));
  EXPECT_INVALID(W("ldb"), std::vector<int8_t> out(64); csc.toDense(out.data(), 3));
}

// Each inconsistency of hand-filled arrays: validate names the array, and SpMDM and
// toDense refuse to read through it.
TEST(CompressedSparseColumn, InconsistentArrays) {
  const std::vector<uint8_t> A(64, 1);
  std::vector<int32_t> C(64);
  std::vector<int8_t> out(64);
  auto spoiled = [](auto spoil) {
    CompressedSparseColumn csc(4, 3);
    csc.ColPtr() = {0, 2, 2, 5};
    csc.RowIdx() = {3, 0, 1, 3, 2};
    csc.Values() = {1, 2, 3, 4, 5};
    spoil(csc);
    return csc;
  };
  struct Spoil {
    const char* array;
    void (*apply)(CompressedSparseColumn&);
  };
  const Spoil spoils[] = {
      {"ColPtr", [](CompressedSparseColumn& m) { m.ColPtr().push_back(5); }},
      {"ColPtr", [](CompressedSparseColumn& m) { m.ColPtr()[0] = 1; }},
      {"ColPtr", [](CompressedSparseColumn& m) { m.ColPtr()[2] = 1; }},
      {"ColPtr", [](CompressedSparseColumn& m) { m.ColPtr()[1] = 6; }},
      {"ColPtr", [](CompressedSparseColumn& m) { m.ColPtr()[2] = -1; }},
      {"RowIdx", [](CompressedSparseColumn& m) { m.RowIdx().pop_back(); }},
      {"Values", [](CompressedSparseColumn& m) { m.Values().push_back(1); }},
      {"RowIdx", [](CompressedSparseColumn& m) { m.RowIdx()[1] = 4; }},
      {"RowIdx", [](CompressedSparseColumn& m) { m.RowIdx()[4] = -1; }},
  };
  for (const Spoil& s : spoils) {
    const CompressedSparseColumn csc = spoiled(s.apply);
    EXPECT_INVALID(W(s.array), csc.validate("test"));
    EXPECT_INVALID(W(s.array), csc.SpMDM({0, 2, 0, 3}, A.data(), 4, false, C.data(), 3));
    EXPECT_INVALID(W(s.array), csc.toDense(out.data(), 3));
    EXPECT_INVALID(W(s.array), DoNothing<int32_t, int32_t> done;
                   DoSpmdmOnInpBuffer<int32_t> op(done, A.data(), 4, csc));
  }
}

TEST(DoSpmdmOnInpBuffer, BadArguments) {
  const std::vector<int8_t> B(8 * 12, 1);
  const CompressedSparseColumn csc = CompressedSparseColumn::fromDense(8, 12, B.data(), 12);
  const std::vector<uint8_t> A(4 * 24, 1);
  DoNothing<int32_t, int32_t> done;
  using Op = fbgemm::DoSpmdmOnInpBuffer<int32_t>;  // as FBGEMM code spells it
  EXPECT_INVALID(W("A"), Op(done, nullptr, 24, csc, 2));
  EXPECT_INVALID(W("groups"), Op(done, A.data(), 24, csc, 0));
  EXPECT_INVALID(W("groups", "5"), Op(done, A.data(), 40, csc, 5));
  EXPECT_INVALID(W("lda", "23"), Op(done, A.data(), 23, csc, 3));
  const Op op(done, A.data(), 24, csc, 3);  // groups of 4 columns
  std::vector<int32_t> C(4 * 12);
  auto run = [&](const block_type_t& b, int ld_out, int ld_in) {
    op.f<inst_set_t::anyarch>(C.data(), C.data(), b, ld_out, ld_in);
  };
  run({0, 4, 4, 4}, 12, 12);
  EXPECT_INVALID(W("block"), run({0, 4, 2, 4}, 12, 12));    // spans groups 0 and 1
  EXPECT_INVALID(W("block"), run({0, 4, 8, 8}, 16, 12));    // past NumOfCols
  EXPECT_INVALID(W("block"), run({0, -1, 0, 4}, 12, 12));
  EXPECT_INVALID(W("ld_in"), run({0, 4, 0, 4}, 12, 3));
  EXPECT_INVALID(W("ld_out"), run({0, 4, 8, 4}, 11, 12));
}

}  // namespace
}  // namespace quire::test
