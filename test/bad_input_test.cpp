// Argument checking of the int8 GEMM entry points: every bad input throws
// std::invalid_argument whose message names the parameter (shared/DESIGN.md, "Errors"),
// before any work or allocation is done. The parameter is searched for as a word in
// e.what(), so "C" is not found inside "C_buffer".
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "quire/quire.h"
#include "test_util.h"

namespace quire::test {
namespace {

using Gran = QuantizationGranularity;

// EXPECT_INVALID (test_util.h) with W("param", ...) for the words the message must hold.
#define W(...) ({__VA_ARGS__})

constexpr auto kN = matrix_op_t::NoTranspose;
constexpr auto kT = matrix_op_t::Transpose;

// Small valid inputs the cases below spoil one at a time: A is M x K, B is K x N.
class BadInput : public ::testing::Test {
 protected:
  static constexpr int M = 4, K = 8, N = 16;
  std::vector<uint8_t> a = std::vector<uint8_t>(1024, 1);
  std::vector<int8_t> b = std::vector<int8_t>(1024, 1);
  std::vector<int32_t> c32 = std::vector<int32_t>(1024, 0);
  std::vector<uint8_t> c8 = std::vector<uint8_t>(1024, 0);
  std::vector<float> multiplier = std::vector<float>(64, 0.01f);
  std::vector<int32_t> zeros = std::vector<int32_t>(64, 0);
  std::vector<int32_t> ones = std::vector<int32_t>(64, 1);
  DoNothing<int32_t, int32_t> done32;
  memCopy<> copy{done32};
  DoNothing<> done8;

  // The active path's default blocking.
  BlockingFactors defaults() const {
    return defaultBlocking();
  }
  bool portable() const { return fbgemmInstructionSet() == inst_set_t::anyarch; }
};

// ---- packer sizes ---------------------------------------------------------------------

// Zero sizes are valid, as in FBGEMM (an empty batch, an empty K or N: see
// gemm_empty_test.cpp); negative ones are not.
TEST_F(BadInput, PackBNegativeSizes) {
  EXPECT_INVALID(W("nRow", "-5"), PackBMatrix<int8_t>(kN, -5, N, b.data(), N));
  EXPECT_INVALID(W("nCol", "-1"), PackBMatrix<int8_t>(kN, K, -1, b.data(), N));
}

TEST_F(BadInput, PackANegativeSizes) {
  // A negative int passed to the uint32_t parameters arrives as a huge size.
  const int minus3 = -3, minus1 = -1;
  EXPECT_INVALID(W("nRow"), PackAWithRowOffset<uint8_t>(kN, minus3, K, a.data(), K));
  EXPECT_INVALID(W("nCol"), PackAWithRowOffset<uint8_t>(kN, M, minus1, a.data(), K));
  EXPECT_INVALID(W("nRow", "-2"), PackAMatrix<uint8_t>(kN, -2, K, a.data(), K));
  EXPECT_INVALID(W("nCol", "-4"), PackAMatrix<uint8_t>(kN, M, -4, a.data(), K));
}

// ---- leading dimensions ---------------------------------------------------------------

TEST_F(BadInput, LeadingDimensionShorterThanTheRow) {
  EXPECT_INVALID(W("ld"), PackAWithRowOffset<uint8_t>(kN, M, K, a.data(), K - 1));
  EXPECT_INVALID(W("ld"), PackAWithRowOffset<uint8_t>(kT, M, K, a.data(), M - 1));  // K x M source
  EXPECT_INVALID(W("ld"), PackAMatrix<uint8_t>(kN, M, K, a.data(), 0));
  EXPECT_INVALID(W("ld"), PackBMatrix<int8_t>(kN, K, N, b.data(), N - 1));
  EXPECT_INVALID(W("ld"), PackBMatrix<int8_t>(kT, K, N, b.data(), K - 1));  // N x K source
  // Transposed B with groups: each group is N x K/G, so ld >= K/G = 4 is needed.
  EXPECT_INVALID(W("ld"), PackBMatrix<int8_t>(kT, K, N, b.data(), 3, nullptr, 2));
  EXPECT_INVALID(W("ld"), PackBMatrix<int8_t>(kN, K, N, b.data(), -N));
}

// A negative int given as PackAWithRowOffset's uint32_t ld is 2^32 - 1: rows that far
// apart lie outside any buffer, so it must be refused like a short one.
TEST_F(BadInput, PackANegativeLdAsUint32) {
  const int minus1 = -1;
  EXPECT_INVALID(W("ld"), PackAWithRowOffset<uint8_t>(kN, M, K, a.data(), minus1));
  EXPECT_INVALID(W("ld"), PackAWithRowOffset<uint8_t>(kT, M, K, a.data(), minus1));
}

TEST_F(BadInput, NullSourceMatrices) {
  EXPECT_INVALID(W("smat"), PackAWithRowOffset<uint8_t>(kN, M, K, nullptr, K));
  EXPECT_INVALID(W("smat"), PackAMatrix<uint8_t>(kT, M, K, nullptr, M));
  EXPECT_INVALID(W("smat"), PackBMatrix<int8_t>(kN, K, N, nullptr, N));
}

TEST_F(BadInput, InvalidTransposeValue) {
  const auto bogus = static_cast<matrix_op_t>(7);
  EXPECT_INVALID(W("trans"), PackBMatrix<int8_t>(bogus, K, N, b.data(), N));
  EXPECT_INVALID(W("trans"), PackAWithRowOffset<uint8_t>(bogus, M, K, a.data(), K));
}

// ---- groups ---------------------------------------------------------------------------

TEST_F(BadInput, PackerGroups) {
  EXPECT_INVALID(W("groups"), PackAWithRowOffset<uint8_t>(kN, M, K, a.data(), K, nullptr, 0));
  EXPECT_INVALID(W("groups", "-1"),
                 PackAWithRowOffset<uint8_t>(kN, M, K, a.data(), K, nullptr, -1));
  EXPECT_INVALID(W("groups", "3"), PackAWithRowOffset<uint8_t>(kN, M, K, a.data(), K, nullptr, 3));
  EXPECT_INVALID(W("groups"), PackBMatrix<int8_t>(kN, K, N, b.data(), N, nullptr, 0));
  EXPECT_INVALID(W("groups", "-2"), PackBMatrix<int8_t>(kN, K, N, b.data(), N, nullptr, -2));
  EXPECT_INVALID(W("groups", "3"), PackBMatrix<int8_t>(kN, K, N, b.data(), N, nullptr, 3));
}

// ---- sizes whose products overflow int32: refused before anything is allocated --------

TEST_F(BadInput, SizeProductsOverflowInt32) {
  EXPECT_INVALID(W("nRow", "nCol"), PackBMatrix<int8_t>(kN, 70000, 70000, b.data(), 70000));
  EXPECT_INVALID(W("nRow", "nCol"), PackAWithRowOffset<uint8_t>(kN, 70000, 70000, a.data(), 70000));
  EXPECT_INVALID(W("nRow", "nCol"), PackAMatrix<uint8_t>(kT, 70000, 70000, a.data(), 70000));
  // M x ldc of C: 70000 x 40000. The checks come before C is touched.
  std::vector<uint8_t> tall(70000, 1);
  std::vector<int8_t> wide(40000, 1);
  PackAMatrix<uint8_t> packA(kN, 70000, 1, tall.data(), 1);
  PackBMatrix<int8_t> packB(kN, 1, 40000, wide.data(), 40000);
  EXPECT_INVALID(W("ldc"), fbgemmPacked(packA, packB, c32.data(), c32.data(), 40000, copy, 0, 1));
}

// ---- fbgemmPacked ---------------------------------------------------------------------

TEST_F(BadInput, GemmNullOutputs) {
  PackAMatrix<uint8_t> packA(kN, M, K, a.data(), K);
  PackBMatrix<int8_t> packB(kN, K, N, b.data(), N);
  EXPECT_INVALID(W("C"), fbgemmPacked(packA, packB, static_cast<int32_t*>(nullptr), c32.data(), N,
                                      copy, 0, 1));
  EXPECT_INVALID(W("C_buffer"), fbgemmPacked(packA, packB, c32.data(), nullptr, N, copy, 0, 1));
}

TEST_F(BadInput, GemmGroupAndDepthMismatch) {
  PackAMatrix<uint8_t> packA2(kN, M, K, a.data(), K, nullptr, 2);
  PackBMatrix<int8_t> packB1(kN, K, N, b.data(), N, nullptr, 1);
  EXPECT_INVALID(W("numGroups"),
                 fbgemmPacked(packA2, packB1, c32.data(), c32.data(), 2 * N, copy, 0, 1));
  PackAMatrix<uint8_t> packA(kN, M, K, a.data(), K);
  PackBMatrix<int8_t> packB12(kN, K + 4, N, b.data(), N);
  EXPECT_INVALID(W("K"), fbgemmPacked(packA, packB12, c32.data(), c32.data(), N, copy, 0, 1));
}

TEST_F(BadInput, GemmLdcBelowOutputWidth) {
  PackAMatrix<uint8_t> packA(kN, M, K, a.data(), K, nullptr, 2);
  PackBMatrix<int8_t> packB(kN, K, N, b.data(), N, nullptr, 2);
  // C has G * N = 32 columns.
  EXPECT_INVALID(W("ldc", "31"),
                 fbgemmPacked(packA, packB, c32.data(), c32.data(), 2 * N - 1, copy, 0, 1));
  EXPECT_INVALID(W("ldc"), fbgemmPacked(packA, packB, c32.data(), c32.data(),
                                        static_cast<uint32_t>(-1), copy, 0, 1));
}

TEST_F(BadInput, GemmThreads) {
  PackAMatrix<uint8_t> packA(kN, M, K, a.data(), K);
  PackBMatrix<int8_t> packB(kN, K, N, b.data(), N);
  EXPECT_INVALID(W("thread_id", "3"),
                 fbgemmPacked(packA, packB, c32.data(), c32.data(), N, copy, 3, 3));
  EXPECT_INVALID(W("thread_id", "-1"),
                 fbgemmPacked(packA, packB, c32.data(), c32.data(), N, copy, -1, 3));
  EXPECT_INVALID(W("num_threads", "0"),
                 fbgemmPacked(packA, packB, c32.data(), c32.data(), N, copy, 0, 0));
  EXPECT_INVALID(W("num_threads"),
                 fbgemmPacked(packA, packB, c32.data(), c32.data(), N, copy, 0, -4));
}

// ---- blocking factors -----------------------------------------------------------------

TEST_F(BadInput, BlockingFactorFields) {
  const BlockingFactors d = defaults();
  auto with = [&](auto change) {
    BlockingFactors p = d;
    change(p);
    return p;
  };
  BlockingFactors p;
  p = with([](BlockingFactors& x) { x.MR = 0; });
  EXPECT_INVALID(W("MR", "0"), PackBMatrix<int8_t>(kN, K, N, b.data(), N, nullptr, 1, &p));
  p = with([](BlockingFactors& x) { x.MR = 13; });
  EXPECT_INVALID(W("MR", "13"),
                 PackAWithRowOffset<uint8_t>(kN, M, K, a.data(), K, nullptr, 1, nullptr, &p));
  p = with([](BlockingFactors& x) { x.NR_MIN = 0; });
  EXPECT_INVALID(W("NR_MIN"), PackBMatrix<int8_t>(kN, K, N, b.data(), N, nullptr, 1, &p));
  p = with([](BlockingFactors& x) { x.ROW_INTERLEAVE = 2; });
  EXPECT_INVALID(W("ROW_INTERLEAVE", "2"),
                 PackBMatrix<int8_t>(kN, K, N, b.data(), N, nullptr, 1, &p));
  p = with([](BlockingFactors& x) { x.MCB = x.MR * 10 + 1; });
  EXPECT_INVALID(W("MCB"), PackAMatrix<uint8_t>(kN, M, K, a.data(), K, nullptr, 1, &p));
  p = with([](BlockingFactors& x) { x.KCB = 510; });
  EXPECT_INVALID(W("KCB", "510"), PackAMatrix<uint8_t>(kN, M, K, a.data(), K, nullptr, 1, &p));
  p = with([](BlockingFactors& x) { x.NCB = x.NR * 4 + x.NR / 2; });
  EXPECT_INVALID(W("NCB"), PackBMatrix<int8_t>(kN, K, N, b.data(), N, nullptr, 1, &p));
  p = with([](BlockingFactors& x) { x.MR = 0; });
  EXPECT_INVALID(W("MR"), PackAWithRowOffset<uint8_t>::rowOffsetBufferSize(&p));
}

TEST_F(BadInput, BlockingFactorsAgainstTheVectorUnit) {
  if (portable()) GTEST_SKIP() << "the portable path takes any NR and tile";
  const BlockingFactors d = defaults();
  BlockingFactors p = d;
  p.NR = d.NR_MIN / 2;  // half a vector
  p.NR_MIN = p.NR;
  p.NCB = p.NR * 8;
  EXPECT_INVALID(W("NR"), PackBMatrix<int8_t>(kN, K, N, b.data(), N, nullptr, 1, &p));
  p = d;
  p.MR = 12;
  p.NR = 64;  // 12 x 64 int32 accumulators: more than 32 zmm or 16 ymm registers
  p.NCB = 64 * 8;
  p.MCB = 120;
  EXPECT_INVALID(W("MR", "NR"), PackBMatrix<int8_t>(kN, K, N, b.data(), N, nullptr, 1, &p));
}

TEST_F(BadInput, GemmBlockingParamsDisagreeWithThePacker) {
  const BlockingFactors d = defaults();
  PackAMatrix<uint8_t> packA(kN, M, K, a.data(), K);  // built with the defaults
  PackBMatrix<int8_t> packB(kN, K, N, b.data(), N);
  BlockingFactors p = d;
  p.MCB = d.MCB + d.MR;
  EXPECT_INVALID(W("MCB"), fbgemmPacked(packA, packB, c32.data(), c32.data(), N, copy, 0, 1, &p));
  p = d;
  p.KCB = d.KCB + 4;
  EXPECT_INVALID(W("KCB"), fbgemmPacked(packA, packB, c32.data(), c32.data(), N, copy, 0, 1, &p));
  p = d;
  p.MR = d.MR - 1;
  p.MCB = d.MR * (d.MR - 1) * 4;
  EXPECT_INVALID(W("MR"), fbgemmPacked(packA, packB, c32.data(), c32.data(), N, copy, 0, 1, &p));
  p = d;
  p.KCB = 3;  // not valid at all
  EXPECT_INVALID(W("KCB"), fbgemmPacked(packA, packB, c32.data(), c32.data(), N, copy, 0, 1, &p));
}

// ---- instruction sets -----------------------------------------------------------------

TEST_F(BadInput, ForcedIsa) {
  const inst_set_t before = fbgemmInstructionSet();
  EXPECT_INVALID(W("inst_set_t", "42"), forceIsa(static_cast<inst_set_t>(42)));
  EXPECT_INVALID(W("inst_set_t", "42"), fbgemmForceIsa(static_cast<inst_set_t>(42)));
  EXPECT_INVALID(W("sve"), forceIsa(inst_set_t::sve));
  for (const IsaCase& c : all_isas()) {
    if (c.supported) continue;
    EXPECT_INVALID(W(instSetName(c.isa)), forceIsa(c.isa));
  }
  EXPECT_EQ(fbgemmInstructionSet(), before);
}

// ---- utilities ------------------------------------------------------------------------

TEST_F(BadInput, Utilities) {
  // A bad alignment is FBGEMM's defined failure: null, or std::bad_alloc on request.
  EXPECT_EQ(fbgemmAlignedAlloc(3, 64), nullptr);
  EXPECT_EQ(fbgemmAlignedAlloc(0, 64), nullptr);
  EXPECT_THROW(fbgemmAlignedAlloc(48, 64, true), std::bad_alloc);
  // num_threads = 0 and thread_id >= num_threads are FBGEMM's empty ranges.
  int64_t start = 0, end = 0;
  EXPECT_INVALID(W("num_threads", "-1"), fbgemmPartition1D(0, -1, 10, start, end));
  EXPECT_INVALID(W("thread_id"), fbgemmPartition1D(-1, 4, 10, start, end));
  EXPECT_INVALID(W("total_work"), fbgemmPartition1D(0, 4, -10, start, end));
}

// ---- output pipeline constructors ------------------------------------------------------

TEST_F(BadInput, ReQuantizeOutputConstructor) {
  const float* m = multiplier.data();
  const int32_t* zp = zeros.data();
  const int32_t* co = ones.data();
  EXPECT_INVALID(W("C_zero_point", "256"),
                 ReQuantizeOutput<false>(done8, m, 256, 0, zp, nullptr, co, nullptr, N));
  EXPECT_INVALID(W("C_zero_point", "-1"),
                 ReQuantizeOutput<true>(done8, m, -1, 0, zp, nullptr, co, nullptr, N));
  EXPECT_INVALID(W("C_multiplier"),
                 ReQuantizeOutput<false>(done8, nullptr, 0, 0, zp, nullptr, co, nullptr, N));
  // nCol = 0 is an empty output (N = 0), accepted as FBGEMM does.
  EXPECT_NO_THROW(ReQuantizeOutput<false>(done8, m, 0, 0, zp, nullptr, co, nullptr, 0));
  EXPECT_NO_THROW((ReQuantizeOutput<false, Gran::GROUP>(done8, m, 0, 0, zp, nullptr, co, nullptr,
                                                        0, 2)));
  EXPECT_INVALID(W("nCol"), ReQuantizeOutput<false>(done8, m, 0, 0, zp, nullptr, co, nullptr,
                                                    static_cast<uint32_t>(-16)));
  EXPECT_INVALID(W("groups", "3"), ReQuantizeOutput<false, Gran::GROUP>(done8, m, 0, 0, zp, nullptr,
                                                                        co, nullptr, N, 3));
  EXPECT_INVALID(W("groups", "0"), ReQuantizeOutput<false, Gran::GROUP>(done8, m, 0, 0, zp, nullptr,
                                                                        co, nullptr, N, 0));
  EXPECT_INVALID(W("Bq_zero_point"),
                 ReQuantizeOutput<false>(done8, m, 0, 0, nullptr, nullptr, co, nullptr, N));
  const std::vector<float> bias(N, 1.0f);
  EXPECT_INVALID(W("act_times_w_scale"), ReQuantizeOutput<false, Gran::TENSOR, float>(
                                             done8, m, 0, 0, zp, nullptr, co, bias.data(), N));
}

TEST_F(BadInput, ReQuantizeForFloatConstructor) {
  DoNothing<float, float> donef;
  const int32_t* zp = zeros.data();
  EXPECT_INVALID(W("Bq_scale"), ReQuantizeForFloat<false>(donef, 0.5f, nullptr, 0, zp, nullptr,
                                                          nullptr, nullptr, N));
  EXPECT_INVALID(W("nCol"), ReQuantizeForFloat<false>(donef, 0.5f, multiplier.data(), 0, zp,
                                                      nullptr, nullptr, nullptr,
                                                      static_cast<uint32_t>(-16)));
  EXPECT_NO_THROW(ReQuantizeForFloat<false>(donef, 0.5f, multiplier.data(), 0, zp, nullptr,
                                            nullptr, nullptr, 0));
  EXPECT_INVALID(W("groups"),
                 ReQuantizeForFloat<true, Gran::GROUP>(donef, 0.5f, multiplier.data(), 0, zp,
                                                       nullptr, nullptr, nullptr, N, 5));
  EXPECT_INVALID(W("Bq_zero_point"),
                 ReQuantizeForFloat<false>(donef, 0.5f, multiplier.data(), 0, nullptr, nullptr,
                                           nullptr, nullptr, N));
}

// Checks only the GEMM can make: zero points without the offsets they need, and an op
// whose nCol is narrower than the product.
TEST_F(BadInput, OutputOpInconsistentWithTheGemm) {
  PackAWithRowOffset<uint8_t> packA(kN, M, K, a.data(), K);
  PackBMatrix<int8_t> packB(kN, K, N, b.data(), N);
  const float* m = multiplier.data();
  {
    ReQuantizeOutput<false> op(done8, m, 0, /*Aq_zero_point*/ 3, zeros.data(), nullptr, nullptr,
                               nullptr, N);
    EXPECT_INVALID(W("col_offsets"),
                   fbgemmPacked(packA, packB, c8.data(), c32.data(), N, op, 0, 1));
  }
  {
    ReQuantizeOutput<false> op(done8, m, 0, 0, /*Bq_zero_point*/ ones.data(), nullptr, nullptr,
                               nullptr, N);
    EXPECT_INVALID(W("row_offsets"),
                   fbgemmPacked(packA, packB, c8.data(), c32.data(), N, op, 0, 1));
  }
  {
    ReQuantizeOutput<false> op(done8, m, 0, 0, zeros.data(), packA.getRowOffsetBuffer(),
                               ones.data(), nullptr, N / 2);
    EXPECT_INVALID(W("nCol"), fbgemmPacked(packA, packB, c8.data(), c32.data(), N, op, 0, 1));
  }
}

// ---- QUIRE_ISA, read once per process: checked in a fresh child process ------------------

// Child: set QUIRE_ISA, make the first call that reads it, print the error, exit 0 if it
// threw std::invalid_argument.
void first_use_with_quire_isa(const char* value) {
  setenv("QUIRE_ISA", value, 1);
  try {
    fbgemmInstructionSet();
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "invalid_argument: %s\n", e.what());
    std::fflush(stderr);
    std::_Exit(0);
  }
  std::fprintf(stderr, "QUIRE_ISA=%s was accepted\n", value);
  std::fflush(stderr);
  std::_Exit(1);
}

TEST(BadInputDeathTest, QuireIsaUnknownName) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // re-executes: QUIRE_ISA is read anew
  EXPECT_EXIT(first_use_with_quire_isa("avx9"), ::testing::ExitedWithCode(0),
              "invalid_argument: .*QUIRE_ISA.*avx9");
}

TEST(BadInputDeathTest, QuireIsaUnsupportedPath) {
  for (const IsaCase& c : all_isas()) {
    if (c.supported) continue;
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(first_use_with_quire_isa(instSetName(c.isa)), ::testing::ExitedWithCode(0),
                std::string("invalid_argument: .*QUIRE_ISA.*") + instSetName(c.isa));
    return;
  }
  GTEST_SKIP() << "this CPU has every path";
}

}  // namespace
}  // namespace quire::test
