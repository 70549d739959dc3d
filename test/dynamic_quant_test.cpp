// Dynamic quantization: float A x packed int8 B -> float C in one fbgemmPacked call
// (PackAWithQuantRowOffset + ReQuantizeForFloat), on every ISA and thread count.
// Two checks: (1) bit for bit against the reference run on A quantized with
// QuantUtils' Quantize; (2) within the error the A scale implies against float math.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "quire/quire.h"
#include "quire/QuantUtils.h"
#include "quire/ref/Reference.h"
#include "quire/ref/ReferenceOutput.h"
#include "test_util.h"

namespace quire::test {
namespace {

struct Shape {
  int M, N, K, groups;
  matrix_op_t atrans;
};

class DynamicQuant : public ::testing::TestWithParam<IsaCase> {};

void run_shape(const Shape& s, int threads, uint32_t seed) {
  const int G = s.groups, Ktot = G * s.K, ldc = G * s.N;
  std::mt19937 gen(seed);
  std::normal_distribution<float> act(0.5f, 2.0f);
  std::vector<float> A(size_t(s.M) * Ktot);
  for (float& x : A) x = act(gen);
  std::vector<int8_t> B = random_vector<int8_t>(size_t(Ktot) * s.N, -128, 127, seed + 1);
  const std::vector<int32_t> b_zp(1, 3);
  const std::vector<float> b_scale(1, 0.02f);

  const int lda = s.atrans == matrix_op_t::Transpose ? s.M : Ktot;
  std::vector<float> Asrc = A;
  if (s.atrans == matrix_op_t::Transpose) ref::transpose(Ktot, s.M, A.data(), Ktot, Asrc.data(), s.M);
  const TensorQuantizationParams qa = ChooseActivationQuantization(Asrc.data(), s.M, Ktot, lda, s.atrans);
  ASSERT_GE(qa.zero_point, 0);
  ASSERT_LE(qa.zero_point, 255);

  // Reference: quantize A with QuantUtils, then the exact int32 GEMM and requantize.
  std::vector<uint8_t> Aq(A.size());
  for (size_t i = 0; i < A.size(); ++i) Aq[i] = Quantize<uint8_t>(A[i], qa);
  std::vector<int32_t> col_offsets(static_cast<size_t>(ldc)), raw(static_cast<size_t>(s.M) * ldc),
      row_off(static_cast<size_t>(s.M));
  std::vector<float> expected(size_t(s.M) * ldc);
  for (int g = 0; g < G; ++g) {
    ref::col_offsets_with_zero_pt_s8(s.K, s.N, B.data() + size_t(g) * s.K * s.N, s.N, b_zp.data(),
                                     col_offsets.data() + g * s.N, ldc);
    ref::matmul_u8s8s32(s.M, s.N, s.K, Aq.data() + g * s.K, Ktot, B.data() + size_t(g) * s.K * s.N,
                        s.N, raw.data() + g * s.N, ldc);
    ref::row_offsets_u8(s.M, s.K, Aq.data() + g * s.K, Ktot, row_off.data());
    ref::QuantParams p;
    p.nCol = ldc;
    p.groups = G;
    p.Aq_zero_point = qa.zero_point;
    p.Bq_zero_point = b_zp.data();
    p.row_offsets = row_off.data();
    p.col_offsets = col_offsets.data();
    ref::requantize_f32(expected.data(), raw.data() + g * s.N, block_type_t{0, s.M, g * s.N, s.N}, ldc,
                        ldc, p, qa.scale, b_scale.data(), nullptr, false);
  }

  PackBMatrix<int8_t> packedB(matrix_op_t::NoTranspose, Ktot, s.N, B.data(), s.N, nullptr, G);
  std::vector<float> C(size_t(s.M) * ldc, -1.0f);
  for (int t = 0; t < threads; ++t) {
    PackAWithQuantRowOffset<uint8_t> packA(s.atrans, s.M, Ktot, Asrc.data(), lda, nullptr, qa.scale,
                                           qa.zero_point, G);
    DoNothing<float, float> done;
    ReQuantizeForFloat<false> out(done, qa.scale, b_scale.data(), qa.zero_point, b_zp.data(),
                                  packA.getRowOffsetBuffer(), col_offsets.data(), nullptr, ldc, G);
    fbgemmPacked(packA, packedB, C.data(), reinterpret_cast<int32_t*>(C.data()), ldc, out, t, threads);
  }
  const std::string what = "M=" + std::to_string(s.M) + " N=" + std::to_string(s.N) + " K=" +
                           std::to_string(s.K) + " G=" + std::to_string(G) + " threads=" +
                           std::to_string(threads);
  ASSERT_EQ(compare_buffers(expected.data(), C.data(), s.M, ldc, ldc, 0, 0.0f), 0) << what;

  // Against float: each A element is off by at most scale / 2 (no value saturates: the
  // range covers the data), so |C - A_real B_real| <= scale / 2 * sum_k |B_real[k][j]|,
  // plus float rounding of the requantization (relative 2^-20 of the magnitudes).
  for (int i = 0; i < s.M; ++i) {
    for (int g = 0; g < G; ++g) {
      for (int j = 0; j < s.N; ++j) {
        double exact = 0, bound = 0, magnitude = 0;
        for (int k = 0; k < s.K; ++k) {
          const double b = b_scale[0] * (B[(size_t(g) * s.K + k) * s.N + j] - b_zp[0]);
          exact += double(A[size_t(i) * Ktot + g * s.K + k]) * b;
          bound += std::fabs(b);
          magnitude += std::fabs(A[size_t(i) * Ktot + g * s.K + k] * b);
        }
        const double tol = qa.scale / 2 * bound + std::ldexp(magnitude + bound, -20);
        ASSERT_LE(std::fabs(C[size_t(i) * ldc + g * s.N + j] - exact), tol) << what << " i=" << i << " j=" << j;
      }
    }
  }
}

TEST_P(DynamicQuant, MatchesQuantizedReferenceAndFloatBound) {
  if (!GetParam().supported) GTEST_SKIP() << instSetName(GetParam().isa) << " not on this CPU";
  ScopedIsa isa(GetParam().isa);
  uint32_t seed = 11;
  for (const Shape& s : {Shape{1, 64, 256, 1, matrix_op_t::NoTranspose}, Shape{6, 33, 129, 1, matrix_op_t::Transpose},
                         Shape{17, 20, 63, 2, matrix_op_t::NoTranspose}, Shape{65, 4, 36, 1, matrix_op_t::NoTranspose},
                         Shape{130, 65, 513, 1, matrix_op_t::Transpose}, Shape{3, 16, 1023, 4, matrix_op_t::NoTranspose}})
    for (int threads : {1, 2, 3}) run_shape(s, threads, seed++);
}

INSTANTIATE_TEST_SUITE_P(AllIsas, DynamicQuant, ::testing::ValuesIn(all_isas()),
                         [](const auto& info) { return std::string(instSetName(info.param.isa)); });

TEST(DynamicQuantArgs, BadInputNamesTheParameter) {
  std::vector<float> a(64, 1.0f);
  auto names = [](auto&& f, const char* param) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what()).find(param) != std::string::npos;
    }
    return false;
  };
  using P = PackAWithQuantRowOffset<uint8_t>;
  EXPECT_TRUE(names([&] { P(matrix_op_t::NoTranspose, 4, 16, nullptr, 16); }, "smat"));
  EXPECT_TRUE(names([&] { P(matrix_op_t::NoTranspose, 4, 16, a.data(), 8); }, "ld"));
  EXPECT_TRUE(names([&] { P(matrix_op_t::NoTranspose, -1, 16, a.data(), 16); }, "nRow"));
  EXPECT_TRUE(names([&] { P(matrix_op_t::NoTranspose, 4, 16, a.data(), 16, nullptr, 0.0f); }, "scale"));
  EXPECT_TRUE(names([&] { P(matrix_op_t::NoTranspose, 4, 16, a.data(), 16, nullptr, 1.0f, 300); }, "zero_pt"));
  EXPECT_TRUE(names([&] { P(matrix_op_t::NoTranspose, 4, 16, a.data(), 16, nullptr, 1.0f, 0, 3); }, "groups"));
  EXPECT_TRUE(names([&] { ChooseActivationQuantization(nullptr, 4, 16, 16); }, "smat"));
}

}  // namespace
}  // namespace quire::test
