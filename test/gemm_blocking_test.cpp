// Requantized GEMM under small, overridden cache blocks: every loop of the driver runs
// several times, the row offsets accumulate over K blocks, and the output pipeline runs
// per MCB x NCB tile. Bit for bit against the reference, every path, 1..3 threads.
#include <gtest/gtest.h>

#include <vector>

#include "quire/quire.h"
#include "quire/ref/Reference.h"
#include "quire/ref/ReferenceOutput.h"
#include "test_util.h"

namespace quire::test {
namespace {

class GemmBlocking : public ::testing::TestWithParam<IsaCase> {};

TEST_P(GemmBlocking, RequantizedWithSmallBlocks) {
  if (!GetParam().supported) GTEST_SKIP() << instSetName(GetParam().isa) << " not on this CPU";
  ScopedIsa isa(GetParam().isa);
  BlockingFactors bf = defaultBlocking();
  bf.MCB = 2 * bf.MR;
  bf.KCB = 12;
  bf.NCB = bf.NR;
  uint32_t seed = 900;
  for (int M : {1, 2 * bf.MR + 1, 5 * bf.MR - 1})
    for (int K : {11, 12, 13, 50})
      for (int N : {3, bf.NR + 5})
        for (int G : {1, 2})
          for (int threads : {1, 2, 3}) {
            const int Ktot = G * K, ldc = G * N;
            std::vector<uint8_t> A = random_vector<uint8_t>(size_t(M) * Ktot, 0, 255, seed);
            std::vector<int8_t> B = random_vector<int8_t>(size_t(Ktot) * N, -128, 127, seed + 1);
            std::vector<int32_t> b_zp = random_vector<int32_t>(size_t(ldc), -5, 5, seed + 2);
            std::vector<int32_t> bias = random_vector<int32_t>(size_t(ldc), -1000, 1000, seed + 3);
            std::vector<float> mult(static_cast<size_t>(ldc));
            for (int j = 0; j < ldc; ++j) mult[j] = 0.0005f + 0.0001f * (j % 7);
            const int32_t a_zp = 7, c_zp = 100;
            ++seed;
            std::vector<int32_t> col_off(static_cast<size_t>(ldc)), raw(static_cast<size_t>(M) * ldc),
                row_off(static_cast<size_t>(M));
            std::vector<uint8_t> expected(static_cast<size_t>(M) * ldc), C(static_cast<size_t>(M) * ldc, 0);
            for (int g = 0; g < G; ++g) {
              const int8_t* Bg = B.data() + size_t(g) * K * N;
              ref::col_offsets_with_zero_pt_s8(K, N, Bg, N, b_zp.data() + g * N, col_off.data() + g * N, 1);
              ref::matmul_u8s8s32(M, N, K, A.data() + g * K, Ktot, Bg, N, raw.data() + g * N, ldc);
              ref::row_offsets_u8(M, K, A.data() + g * K, Ktot, row_off.data());
              ref::QuantParams p;
              p.granularity = QuantizationGranularity::OUT_CHANNEL;
              p.groups = G;
              p.nCol = ldc;
              p.Aq_zero_point = a_zp;
              p.Bq_zero_point = b_zp.data();
              p.row_offsets = row_off.data();
              p.col_offsets = col_off.data();
              ref::requantize_u8<int32_t>(expected.data(), raw.data() + g * N, block_type_t{0, M, g * N, N}, ldc,
                                          ldc, p, mult.data(), c_zp, bias.data(), nullptr, true);
            }
            PackBMatrix<int8_t> packedB(matrix_op_t::NoTranspose, Ktot, N, B.data(), N, nullptr, G, &bf);
            std::vector<int32_t> scratch(static_cast<size_t>(M) * ldc);
            for (int t = 0; t < threads; ++t) {
              std::vector<int32_t> row_buf(PackAWithRowOffset<uint8_t>::rowOffsetBufferSize(&bf));
              PackAWithRowOffset<uint8_t> packA(matrix_op_t::NoTranspose, M, Ktot, A.data(), Ktot, nullptr, G,
                                                row_buf.data(), &bf);
              DoNothing<> done;
              ReQuantizeOutput<true, QuantizationGranularity::OUT_CHANNEL> out(
                  done, mult.data(), c_zp, a_zp, b_zp.data(), packA.getRowOffsetBuffer(), col_off.data(),
                  bias.data(), ldc, G);
              fbgemmPacked(packA, packedB, C.data(), scratch.data(), ldc, out, t, threads, &bf);
            }
            ASSERT_EQ(compare_buffers(expected.data(), C.data(), M, ldc, ldc, 0), 0)
                << instSetName(GetParam().isa) << " M=" << M << " N=" << N << " K=" << K << " G=" << G
                << " threads=" << threads;
          }
}

INSTANTIATE_TEST_SUITE_P(AllIsas, GemmBlocking, ::testing::ValuesIn(all_isas()),
                         [](const auto& info) { return std::string(instSetName(info.param.isa)); });

}  // namespace
}  // namespace quire::test
