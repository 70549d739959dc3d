// acc16 (PackBMatrix<int8_t, int16_t>): every path against the acc16 model of
// docs/acc16.md bit for bit where the path saturates, against the exact product where it
// does not (VNNI, portable), over odd shapes, groups, transposes, thread counts 1-3,
// overridden K blocks and inputs built to saturate.
#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "quire/quire.h"
#include "quire/ref/Reference.h"
#include "quire/ref/ReferenceConv.h"
#include "test_util.h"

namespace quire::test {
namespace {

struct Case {
  int M, N, K, groups;  // K and N per group
  matrix_op_t atrans, btrans;
  int threads;
};

std::string describe(const Case& c) {
  return std::string(instSetName(fbgemmInstructionSet())) + " M=" + std::to_string(c.M) +
         " N=" + std::to_string(c.N) + " K=" + std::to_string(c.K) +
         " G=" + std::to_string(c.groups) + " At=" + std::to_string(c.atrans == matrix_op_t::Transpose) +
         " Bt=" + std::to_string(c.btrans == matrix_op_t::Transpose) +
         " threads=" + std::to_string(c.threads);
}

// What acc16 must produce on the active path: the acc16 model with the K block depth in
// use where the path saturates, the exact product elsewhere.
void expected_acc16(const Case& c, const std::vector<uint8_t>& A, const std::vector<int8_t>& B,
                    int block_depth, std::vector<int32_t>& out) {
  const int Ktot = c.groups * c.K, ldc = c.groups * c.N;
  out.assign(static_cast<size_t>(c.M) * ldc, 0);
  for (int g = 0; g < c.groups; ++g) {
    const uint8_t* a = A.data() + g * c.K;
    const int8_t* b = B.data() + static_cast<size_t>(g) * c.K * c.N;
    int32_t* o = out.data() + g * c.N;
    if (acc16Saturates()) ref::matmul_u8s8s32_acc16(c.M, c.N, c.K, a, Ktot, b, c.N, o, ldc, block_depth);
    else ref::matmul_u8s8s32(c.M, c.N, c.K, a, Ktot, b, c.N, o, ldc);
  }
}

// Runs acc16 C = A * B (A is M x G*K row-major, B is G*K x N, groups stacked along K)
// with the sources transposed as the case says; returns C (M x G*N).
std::vector<int32_t> run_acc16(const Case& c, const std::vector<uint8_t>& A,
                               const std::vector<int8_t>& B,
                               const BlockingFactors* blocking = nullptr) {
  const int G = c.groups, Ktot = G * c.K, ldc = G * c.N;
  std::vector<uint8_t> Asrc = A;
  int lda = Ktot;
  if (c.atrans == matrix_op_t::Transpose) {
    ref::transpose(Ktot, c.M, A.data(), Ktot, Asrc.data(), c.M);
    lda = c.M;
  }
  std::vector<int8_t> Bsrc;
  const int ldb = b_in_layout(c.btrans, G, c.K, c.N, B, Bsrc);
  PackBMatrix<int8_t, int16_t> packedB(c.btrans, Ktot, c.N, Bsrc.data(), ldb, nullptr, G, blocking);
  std::vector<int32_t> C(static_cast<size_t>(c.M) * ldc + 64, -7);  // 64 sentinels past the end
  for (int t = 0; t < c.threads; ++t) {
    PackAMatrix<uint8_t, int16_t> packA(c.atrans, c.M, Ktot, Asrc.data(), lda, nullptr, G, blocking);
    DoNothing<int32_t, int32_t> done;
    memCopy<> copy(done);
    fbgemmPacked(packA, packedB, C.data(), C.data(), ldc, copy, t, c.threads, blocking);
  }
  for (size_t i = static_cast<size_t>(c.M) * ldc; i < C.size(); ++i)
    EXPECT_EQ(C[i], -7) << "wrote past the end of C: " << describe(c);
  C.resize(static_cast<size_t>(c.M) * ldc);
  return C;
}

// Mismatches of one case with random data in the given ranges.
int check_case(const Case& c, uint32_t seed, int a_lo, int a_hi, int b_lo, int b_hi,
               const BlockingFactors* blocking = nullptr) {
  const size_t a_size = static_cast<size_t>(c.M) * c.groups * c.K;
  const size_t b_size = static_cast<size_t>(c.groups) * c.K * c.N;
  const std::vector<uint8_t> A = random_vector<uint8_t>(a_size, a_lo, a_hi, seed);
  const std::vector<int8_t> B = random_vector<int8_t>(b_size, b_lo, b_hi, seed + 1);
  std::vector<int32_t> want;
  expected_acc16(c, A, B, blocking ? blocking->KCB : acc16BlockDepth(), want);
  const std::vector<int32_t> got = run_acc16(c, A, B, blocking);
  const int ldc = c.groups * c.N;
  return compare_buffers(want.data(), got.data(), c.M, ldc, ldc, 0);
}

class GemmAcc16 : public ::testing::TestWithParam<IsaCase> {
 protected:
  void SetUp() override {
    if (!GetParam().supported) GTEST_SKIP() << instSetName(GetParam().isa) << " not on this CPU";
  }
};

TEST_P(GemmAcc16, SaturatesOnlyOnTheDocumentedPaths) {
  ScopedIsa isa(GetParam().isa);
  const inst_set_t s = GetParam().isa;
  EXPECT_EQ(acc16Saturates(), s == inst_set_t::avx2 || s == inst_set_t::avx512);
  EXPECT_GT(acc16BlockDepth(), 0);
  EXPECT_EQ(acc16BlockDepth() % 4, 0);
}

// Full-range data saturates often, so the model's every clause is exercised.
TEST_P(GemmAcc16, OddShapesGroupsTransposesThreadsFullRange) {
  ScopedIsa isa(GetParam().isa);
  uint32_t seed = 11;
  for (int M : {1, 2, 3, 7, 13, 17, 33, 63, 65})
    for (int N : {1, 3, 4, 8, 15, 17, 47, 64, 65, 130})
      for (int K : {1, 2, 3, 5, 8, 31, 63, 257, 513}) {
        const Case c{M, N, K, 1 + (M + N + K) % 3,
                     (M % 2) ? matrix_op_t::Transpose : matrix_op_t::NoTranspose,
                     (K % 2) ? matrix_op_t::Transpose : matrix_op_t::NoTranspose, 1 + (N % 3)};
        ASSERT_EQ(check_case(c, seed += 3, 0, 255, -128, 127), 0) << describe(c);
      }
}

// Small weights rarely saturate: the common case, where acc16 should equal the exact
// product on every path.
TEST_P(GemmAcc16, SmallValuesMatchTheExactProduct) {
  ScopedIsa isa(GetParam().isa);
  uint32_t seed = 5;
  for (int M : {1, 6, 19, 64})
    for (int N : {5, 16, 64, 100})
      for (int K : {4, 37, 256, 600}) {
        const Case c{M, N, K, 1, matrix_op_t::NoTranspose, matrix_op_t::NoTranspose, 1};
        const std::vector<uint8_t> A = random_vector<uint8_t>(static_cast<size_t>(M) * K, 0, 15, seed);
        const std::vector<int8_t> B = random_vector<int8_t>(static_cast<size_t>(K) * N, -3, 3, seed + 1);
        seed += 2;
        std::vector<int32_t> exact(static_cast<size_t>(M) * N);
        ref::matmul_u8s8s32(M, N, K, A.data(), K, B.data(), N, exact.data(), N);
        const std::vector<int32_t> got = run_acc16(c, A, B);
        ASSERT_EQ(compare_buffers(exact.data(), got.data(), M, N, N, 0), 0) << describe(c);
      }
}

// Constant operands at the extremes: every pair and every running sum pins at +-32767.
TEST_P(GemmAcc16, ExtremeOperandsPinAtTheModelsLimits) {
  ScopedIsa isa(GetParam().isa);
  for (int b_value : {127, -128, -1, 64})
    for (int K : {4, 255, 1023}) {
      const Case c{7, 33, K, 1, matrix_op_t::NoTranspose, matrix_op_t::NoTranspose, 2};
      const std::vector<uint8_t> A(static_cast<size_t>(c.M) * K, 255);
      const std::vector<int8_t> B(static_cast<size_t>(K) * c.N, static_cast<int8_t>(b_value));
      std::vector<int32_t> want;
      expected_acc16(c, A, B, acc16BlockDepth(), want);
      const std::vector<int32_t> got = run_acc16(c, A, B);
      ASSERT_EQ(compare_buffers(want.data(), got.data(), c.M, c.N, c.N, 0), 0)
          << describe(c) << " b=" << b_value;
    }
}

// The int16 window is the K block: a smaller KCB is modelled with that block depth.
TEST_P(GemmAcc16, OverriddenKBlockIsTheAccumulationWindow) {
  ScopedIsa isa(GetParam().isa);
  BlockingFactors bf = defaultBlocking<int16_t>();
  uint32_t seed = 77;
  for (int kcb : {4, 64, 132}) {
    bf.KCB = kcb;
    for (int K : {3, 130, 301}) {
      const Case c{bf.MR * 2 + 1, 2 * bf.NR + 5, K, 2, matrix_op_t::NoTranspose,
                   matrix_op_t::Transpose, 2};
      ASSERT_EQ(check_case(c, seed += 2, 0, 255, -128, 127, &bf), 0)
          << describe(c) << " KCB=" << kcb;
    }
  }
}

// The other A packers feed acc16 the same bytes: im2col (its explicit matrix through the
// model) and float quantization (Quantize, then the model).
TEST_P(GemmAcc16, Im2ColAndQuantizingPackersFollowTheModel) {
  ScopedIsa isa(GetParam().isa);
  const conv_param_t<2> conv(2, 8, 19, {7, 9}, 1, {3, 3}, {1, 2}, {1, 1, 1, 0});
  const int rows = conv.MB * conv.OUT_DIM[0] * conv.OUT_DIM[1];
  const int K = conv.K[0] * conv.K[1] * conv.IC, N = conv.OC;
  const std::vector<uint8_t> act =
      random_vector<uint8_t>(static_cast<size_t>(conv.MB) * 7 * 9 * conv.IC, 0, 255, 3);
  const std::vector<int8_t> W = random_vector<int8_t>(static_cast<size_t>(K) * N, -128, 127, 4);
  const int32_t a_zp = 37;
  std::vector<uint8_t> cols(static_cast<size_t>(rows) * K);
  ref::im2col(conv, act.data(), a_zp, cols.data());
  const Case c{rows, N, K, 1, matrix_op_t::NoTranspose, matrix_op_t::NoTranspose, 1};
  std::vector<int32_t> want;
  expected_acc16(c, cols, W, acc16BlockDepth(), want);

  PackBMatrix<int8_t, int16_t> Bp(matrix_op_t::NoTranspose, K, N, W.data(), N);
  std::vector<int32_t> C(static_cast<size_t>(rows) * N);
  PackAWithIm2Col<uint8_t, int16_t> Ap(conv, act.data(), nullptr, a_zp);
  DoNothing<int32_t, int32_t> done;
  memCopy<> copy(done);
  fbgemmPacked(Ap, Bp, C.data(), C.data(), N, copy, 0, 1);
  EXPECT_EQ(compare_buffers(want.data(), C.data(), rows, N, N, 0), 0) << "im2col";

  const int M = 23;
  std::vector<float> Af(static_cast<size_t>(M) * K);
  const std::vector<uint8_t> seedbytes = random_vector<uint8_t>(Af.size(), 0, 255, 9);
  for (size_t i = 0; i < Af.size(); ++i) Af[i] = (seedbytes[i] - 100) * 0.37f;
  const float scale = 0.41f;
  const int32_t zp = 100;
  std::vector<uint8_t> Aq(Af.size());
  for (size_t i = 0; i < Af.size(); ++i) Aq[i] = Quantize<uint8_t>(Af[i], zp, scale, 8);
  const Case q{M, N, K, 1, matrix_op_t::NoTranspose, matrix_op_t::NoTranspose, 1};
  expected_acc16(q, Aq, W, acc16BlockDepth(), want);
  PackAWithQuantRowOffset<uint8_t, int16_t> Aqp(matrix_op_t::NoTranspose, M, K, Af.data(), K,
                                                nullptr, scale, zp);
  fbgemmPacked(Aqp, Bp, C.data(), C.data(), N, copy, 0, 1);
  EXPECT_EQ(compare_buffers(want.data(), C.data(), M, N, N, 0), 0) << "quantizing packer";
}

// fbgemmConv with ACC_T = int16_t on each kind of shape (a depthwise shape, which takes
// im2col under acc16, groupwise, pointwise, im2col): with operands too small to saturate
// it must equal the int32 run.
template <class AccT>
std::vector<uint8_t> conv_u8(const conv_param_t<2>& p, const std::vector<uint8_t>& A,
                             const std::vector<int8_t>& W) {
  int64_t pixels = p.MB;
  for (int d = 0; d < 2; ++d) pixels *= p.OUT_DIM[d];
  PackWeightsForConv<2, int8_t, AccT> packed(p, W.data());
  std::vector<int32_t> col_offsets(p.OC, 0), scratch(static_cast<size_t>(pixels) * p.OC);
  std::vector<uint8_t> out(scratch.size());
  const std::vector<float> multiplier(1, 0.03f);
  const std::vector<int32_t> b_zp(1, 0);
  DoNothing<> done;
  ReQuantizeOutput<false> requant(done, multiplier.data(), 5, 0, b_zp.data(), nullptr,
                                  col_offsets.data(), nullptr, p.OC, p.G);
  fbgemmConv<ReQuantizeOutput<false>, 2, AccT>(p, A.data(), packed, out.data(), scratch.data(),
                                                requant, 0, 1);
  return out;
}

TEST_P(GemmAcc16, ConvolutionPathsAcceptAcc16) {
  ScopedIsa isa(GetParam().isa);
  const conv_param_t<2> shapes[] = {
      conv_param_t<2>(1, 32, 32, {9, 7}, 32, {3, 3}, {1, 1}, {1, 1, 1, 1}),  // depthwise
      conv_param_t<2>(2, 32, 32, {6, 5}, 4, {3, 3}, {1, 1}, {1, 1, 1, 1}),   // groupwise
      conv_param_t<2>(1, 24, 40, {5, 5}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}),   // pointwise
      conv_param_t<2>(1, 12, 20, {8, 9}, 2, {3, 2}, {2, 1}, {1, 0, 1, 1})};  // im2col
  uint32_t seed = 50;
  for (const conv_param_t<2>& p : shapes) {
    int64_t in = int64_t{p.MB} * p.IC * p.IN_DIM[0] * p.IN_DIM[1];
    const std::vector<uint8_t> A = random_vector<uint8_t>(static_cast<size_t>(in), 0, 15, seed++);
    const std::vector<int8_t> W = random_vector<int8_t>(
        static_cast<size_t>(p.OC) * p.K[0] * p.K[1] * (p.IC / p.G), -3, 3, seed++);
    EXPECT_EQ(conv_u8<int16_t>(p, A, W), conv_u8<int32_t>(p, A, W))
        << "conv path " << static_cast<int>(ConvFastPath<2, int16_t>(p));
  }
}

// Packed weights carry no accumulation type: B saved from an acc32 or an acc16 packer
// loads as acc16 (any panel width is readable) and gives the acc16 result.
TEST_P(GemmAcc16, SavedWeightsLoadForAcc16) {
  ScopedIsa isa(GetParam().isa);
  const Case c{29, 70, 300, 2, matrix_op_t::NoTranspose, matrix_op_t::NoTranspose, 1};
  const int Ktot = c.groups * c.K, ldc = c.groups * c.N;
  const std::vector<uint8_t> A = random_vector<uint8_t>(static_cast<size_t>(c.M) * Ktot, 0, 255, 21);
  const std::vector<int8_t> B = random_vector<int8_t>(static_cast<size_t>(Ktot) * c.N, -128, 127, 22);
  std::vector<int32_t> want;
  expected_acc16(c, A, B, acc16BlockDepth(), want);
  std::stringstream from32, from16;
  PackBMatrix<int8_t>(matrix_op_t::NoTranspose, Ktot, c.N, B.data(), c.N, nullptr, c.groups).save(from32);
  PackBMatrix<int8_t, int16_t>(matrix_op_t::NoTranspose, Ktot, c.N, B.data(), c.N, nullptr, c.groups)
      .save(from16);
  for (std::stringstream* saved : {&from32, &from16}) {
    const auto Bp = PackBMatrix<int8_t, int16_t>::load(*saved);
    PackAMatrix<uint8_t, int16_t> Ap(matrix_op_t::NoTranspose, c.M, Ktot, A.data(), Ktot, nullptr, c.groups);
    std::vector<int32_t> C(want.size());
    DoNothing<int32_t, int32_t> done;
    memCopy<> copy(done);
    fbgemmPacked(Ap, *Bp, C.data(), C.data(), ldc, copy, 0, 1);
    EXPECT_EQ(compare_buffers(want.data(), C.data(), c.M, ldc, ldc, 0), 0)
        << (saved == &from32 ? "saved by an acc32 packer" : "saved by an acc16 packer");
  }
}

// An acc16 blocking is checked against the acc16 kernels' registers.
TEST_P(GemmAcc16, BlockingThatDoesNotFitThrowsNamingTheField) {
  ScopedIsa isa(GetParam().isa);
  if (GetParam().isa == inst_set_t::anyarch) GTEST_SKIP() << "the portable kernel takes any tile";
  BlockingFactors bf{13, 64, 16, 4, 130, 256, 512};
  const std::vector<int8_t> B(64, 1);
  try {
    PackBMatrix<int8_t, int16_t> p(matrix_op_t::NoTranspose, 8, 8, B.data(), 8, nullptr, 1, &bf);
    FAIL() << "MR = 13 accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("MR"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(AllPaths, GemmAcc16, ::testing::ValuesIn(all_isas()),
                         [](const auto& info) { return std::string(instSetName(info.param.isa)); });

// acc16 and acc32 packers do not mix.
static_assert(!std::is_same_v<PackAMatrix<uint8_t, int16_t>::accType, PackBMatrix<int8_t>::accType>);

}  // namespace
}  // namespace quire::test
