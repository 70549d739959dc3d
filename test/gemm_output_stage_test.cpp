// ReQuantizeOutput and ReQuantizeForFloat through the kernels' output stage
// (docs/kernel-contract.md, "The output stage"), end to end through fbgemmPacked: the
// uint8 and float outputs must equal the reference requantizations (quire::ref) of the
// int32 product the same path computes
// (fbgemmPacked with memCopy, same packers and blocking; for acc16 that product follows
// the saturating model). The cases are what the stage adds to the plain requantization
// tests: slices that lie in one quantization group or straddle groups (the epilogue then
// takes them, beside fused slices of the same tile), K blocks accumulated before the stage,
// pair-safe and acc16 kernels, narrow outputs (N <= 16: a third of the cases draw 3..8),
// zero points and biases that wrap int32, multipliers of 0, below 0 and huge, every
// c_zero_point edge, 1-3 threads, every path.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "quire/quire.h"
#include "quire/ref/ReferenceOutput.h"
#include "test_util.h"

namespace quire::test {
namespace {

using Gran = QuantizationGranularity;

struct Case {
  int M, N, K;
  Gran gran;
  int qgroups;         // GROUP: quantization groups over N
  int bias;            // 0 none, 1 int32, 2 float
  bool relu;
  int32_t a_zp, c_zp;
  int b_zp_range;      // |b zero points| <= this (0: symmetric B)
  bool pair_bounded;   // |B| <= 64: the pair-safe kernels on avx2 / avx512
  bool small_blocks;   // MCB = 2 MR, KCB = 8, NCB = NR: several K blocks before the stage
  bool special_mult;   // some multipliers 0, negative, tiny, huge
  int threads;
  uint32_t seed;

  std::string describe() const {
    std::ostringstream s;
    s << M << "x" << N << "x" << K << " gran=" << int(gran) << "/" << qgroups << " bias=" << bias
      << " relu=" << relu << " a_zp=" << a_zp << " c_zp=" << c_zp << " b_zp<=" << b_zp_range
      << " pair_bounded=" << pair_bounded << " small_blocks=" << small_blocks
      << " special_mult=" << special_mult << " threads=" << threads << " seed=" << seed;
    return s.str();
  }
};

int quant_groups(const Case& c) {
  return c.gran == Gran::TENSOR ? 1 : c.gran == Gran::GROUP ? c.qgroups : c.N;
}

template <typename accT, bool kRelu, Gran kGran, typename BiasT>
void run_case(const Case& c) {
  SCOPED_TRACE(c.describe());
  std::mt19937 rng(c.seed);
  const int M = c.M, N = c.N, K = c.K, nq = quant_groups(c);
  const int blim = c.pair_bounded ? 64 : 127;
  std::vector<uint8_t> A = random_vector<uint8_t>(size_t(M) * K, 0, 255, c.seed);
  std::vector<int8_t> B = random_vector<int8_t>(size_t(K) * N, c.pair_bounded ? -64 : -128, blim,
                                                c.seed + 1);
  std::vector<int32_t> b_zp = random_vector<int32_t>(size_t(nq), -c.b_zp_range, c.b_zp_range,
                                                     c.seed + 2);
  std::vector<float> mult(static_cast<size_t>(nq)), aws(static_cast<size_t>(nq));
  std::uniform_real_distribution<float> scale(1e-5f, 4e-3f);
  for (int q = 0; q < nq; ++q) {
    mult[q] = scale(rng);
    aws[q] = 0.01f + scale(rng);
  }
  if (c.special_mult) {
    // (Not inf or NaN: the reference leaves a NaN product undefined.)
    const float specials[] = {0.0f, -0.002f, 1e30f, -1e30f, 1e-30f, 3.0e9f};
    for (int q = 0; q < nq; q += 2) mult[q] = specials[(q / 2) % 6];
  }
  // Column sums as an engine computes them, plus a large wrapping term.
  std::vector<int32_t> col_off(static_cast<size_t>(N));
  for (int j = 0; j < N; ++j) {
    int32_t s = 0;
    for (int k = 0; k < K; ++k) s += B[size_t(k) * N + j];
    col_off[j] = s + static_cast<int32_t>(rng() % 2000001) - 1000000;
  }
  std::vector<BiasT> bias(static_cast<size_t>(N));
  for (int j = 0; j < N; ++j)
    bias[j] = std::is_same_v<BiasT, float>
                  ? static_cast<BiasT>(static_cast<int32_t>(rng() % 200001) - 100000) / 7.0f
                  : static_cast<BiasT>(static_cast<int32_t>(rng()));  // anywhere in int32
  const BiasT* bias_ptr = c.bias == 0 ? nullptr : bias.data();

  BlockingFactors bf = defaultBlocking<accT>();
  if (c.small_blocks) {
    bf.MCB = 2 * bf.MR;
    bf.KCB = 8;
    bf.NCB = bf.NR;
  }
  const BlockingFactors* params = c.small_blocks ? &bf : nullptr;
  PackBMatrix<int8_t, accT> packB(matrix_op_t::NoTranspose, K, N, B.data(), N, nullptr, 1, params);

  // The path's own int32 product (the same kernels, stored as int32).
  std::vector<int32_t> raw(size_t(M) * N), row_sums(static_cast<size_t>(M));
  for (int t = 0; t < c.threads; ++t) {
    PackAWithRowOffset<uint8_t, accT> packA(matrix_op_t::NoTranspose, M, K, A.data(), K, nullptr,
                                            1, nullptr, params);
    DoNothing<int32_t, int32_t> done;
    memCopy<> copy(done);
    fbgemmPacked(packA, packB, raw.data(), raw.data(), N, copy, t, c.threads, params);
  }
  for (int i = 0; i < M; ++i) {
    int32_t s = 0;
    for (int k = 0; k < K; ++k) s += A[size_t(i) * K + k];
    row_sums[i] = s;
  }
  ref::QuantParams qp;
  qp.granularity = kGran;
  qp.groups = c.gran == Gran::GROUP ? c.qgroups : 1;
  qp.nCol = static_cast<uint32_t>(N);
  qp.Aq_zero_point = c.a_zp;
  qp.Bq_zero_point = b_zp.data();
  qp.row_offsets = row_sums.data();
  qp.col_offsets = col_off.data();
  std::vector<uint8_t> expected(size_t(M) * N);
  ref::requantize_u8<BiasT>(expected.data(), raw.data(), block_type_t{0, M, 0, N}, N, N, qp,
                            mult.data(), c.c_zp, bias_ptr, aws.data(), kRelu);

  // The same GEMM with ReQuantizeOutput: the output stage where the kernels have one.
  std::vector<uint8_t> C(size_t(M) * N, 0xA5);
  std::vector<int32_t> C_buffer(size_t(M) * N);
  for (int t = 0; t < c.threads; ++t) {
    std::vector<int32_t> row_offsets(PackAWithRowOffset<uint8_t, accT>::rowOffsetBufferSize(params));
    PackAWithRowOffset<uint8_t, accT> packA(matrix_op_t::NoTranspose, M, K, A.data(), K, nullptr,
                                            1, row_offsets.data(), params);
    DoNothing<> done;
    ReQuantizeOutput<kRelu, kGran, BiasT> op(done, mult.data(), c.c_zp, c.a_zp, b_zp.data(),
                                             packA.getRowOffsetBuffer(), col_off.data(), bias_ptr,
                                             static_cast<uint32_t>(N), qp.groups, aws.data());
    fbgemmPacked(packA, packB, C.data(), C_buffer.data(), N, op, t, c.threads, params);
  }
  for (size_t e = 0; e < C.size(); ++e) {
    if (C[e] != expected[e]) {
      ADD_FAILURE() << "element (" << e / N << ", " << e % N << "): got " << int(C[e])
                    << ", expected " << int(expected[e]) << " (int32 " << raw[e] << ")";
      return;
    }
  }

  // ReQuantizeForFloat, in place as engines call it (C_buffer is the float C), with the
  // multipliers as b_scale and a float bias.
  const float a_scale = 0.37f;
  std::vector<float> fbias(static_cast<size_t>(N));
  for (int j = 0; j < N; ++j) fbias[j] = static_cast<float>(static_cast<int32_t>(rng() % 2001) - 1000) / 3.0f;
  const float* fbias_ptr = c.bias == 0 ? nullptr : fbias.data();
  std::vector<float> expected_f(size_t(M) * N);
  ref::requantize_f32(expected_f.data(), raw.data(), block_type_t{0, M, 0, N}, N, N, qp, a_scale,
                      mult.data(), fbias_ptr, kRelu);
  std::vector<float> Cf(size_t(M) * N, -1.0f);
  for (int t = 0; t < c.threads; ++t) {
    std::vector<int32_t> row_offsets(PackAWithRowOffset<uint8_t, accT>::rowOffsetBufferSize(params));
    PackAWithRowOffset<uint8_t, accT> packA(matrix_op_t::NoTranspose, M, K, A.data(), K, nullptr,
                                            1, row_offsets.data(), params);
    DoNothing<float, float> done;
    ReQuantizeForFloat<kRelu, kGran> op(done, a_scale, mult.data(), c.a_zp, b_zp.data(),
                                        packA.getRowOffsetBuffer(), col_off.data(), fbias_ptr,
                                        static_cast<uint32_t>(N), qp.groups);
    fbgemmPacked(packA, packB, Cf.data(), reinterpret_cast<int32_t*>(Cf.data()), N, op, t,
                 c.threads, params);
  }
  for (size_t e = 0; e < Cf.size(); ++e) {
    if (std::bit_cast<uint32_t>(Cf[e]) != std::bit_cast<uint32_t>(expected_f[e])) {
      ADD_FAILURE() << "float output, element (" << e / N << ", " << e % N << "): got " << Cf[e]
                    << ", expected " << expected_f[e] << " (int32 " << raw[e] << ")";
      return;
    }
  }
}

template <typename accT, bool kRelu, Gran kGran>
void run_bias(const Case& c) {
  if (c.bias == 2) run_case<accT, kRelu, kGran, float>(c);
  else run_case<accT, kRelu, kGran, int32_t>(c);
}

template <typename accT, bool kRelu>
void run_gran(const Case& c) {
  switch (c.gran) {
    case Gran::TENSOR: run_bias<accT, kRelu, Gran::TENSOR>(c); break;
    case Gran::GROUP: run_bias<accT, kRelu, Gran::GROUP>(c); break;
    case Gran::OUT_CHANNEL: run_bias<accT, kRelu, Gran::OUT_CHANNEL>(c); break;
  }
}

template <typename accT>
void run(const Case& c) {
  if (c.relu) run_gran<accT, true>(c);
  else run_gran<accT, false>(c);
}

// Random cases over the dimensions above, the shapes at and around every tile edge.
std::vector<Case> cases(uint32_t seed, int count) {
  std::mt19937 rng(seed);
  const auto pick = [&](std::initializer_list<int> v) { return *(v.begin() + rng() % v.size()); };
  std::vector<Case> out;
  for (int i = 0; i < count; ++i) {
    Case c{};
    c.M = pick({1, 2, 3, 5, 6, 7, 11, 12, 13, 25, 50});
    // A third narrow (3..8: the narrow kernels' stage on AVX-512 paths), a sixth 9..16.
    c.N = pick({1, 3, 4, 5, 6, 7, 8, 3, 4, 8, 9, 12, 15, 16, 17, 31, 33, 47, 48, 49, 63, 64,
                65, 96, 130});
    c.K = pick({1, 3, 4, 17, 64, 300});
    c.gran = static_cast<Gran>(rng() % 3);
    c.qgroups = 1;
    if (c.gran == Gran::GROUP) {
      // Group widths of 1 column up to all of N: slices in one group, and slices across.
      std::vector<int> divisors;
      for (int d = 1; d <= c.N; ++d)
        if (c.N % d == 0) divisors.push_back(d);
      c.qgroups = divisors[rng() % divisors.size()];
    }
    c.bias = static_cast<int>(rng() % 3);
    c.relu = rng() % 2;
    c.a_zp = pick({0, 0, 1, 37, 255});
    c.c_zp = pick({0, 1, 100, 128, 254, 255});
    c.b_zp_range = pick({0, 0, 3, 127, 70000});
    c.pair_bounded = rng() % 3 == 0;
    c.small_blocks = rng() % 3 == 0;
    c.special_mult = rng() % 4 == 0;
    c.threads = 1 + static_cast<int>(rng() % 3);
    c.seed = seed * 1000 + static_cast<uint32_t>(i);
    out.push_back(c);
  }
  return out;
}

class GemmOutputStage : public ::testing::TestWithParam<IsaCase> {};

TEST_P(GemmOutputStage, MatchesTheReferenceOfTheSameProduct) {
  if (!GetParam().supported)
    GTEST_SKIP() << instSetName(GetParam().isa) << " not on this CPU (lacks "
                 << missing_features(GetParam().isa) << ")";
  ScopedIsa isa(GetParam().isa);
  for (const Case& c : cases(11, 1500)) {
    run<int32_t>(c);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST_P(GemmOutputStage, Acc16MatchesTheReferenceOfTheSameProduct) {
  if (!GetParam().supported)
    GTEST_SKIP() << instSetName(GetParam().isa) << " not on this CPU (lacks "
                 << missing_features(GetParam().isa) << ")";
  ScopedIsa isa(GetParam().isa);
  for (const Case& c : cases(12, 500)) {
    run<int16_t>(c);
    if (::testing::Test::HasFailure()) return;
  }
}

// Narrow N on VNNI paths: the kernels form the row sums of A blocks read in place, and
// the packer skips its pass. The packer's row offset buffer must still end holding the
// last block's sums (int32 and uint8 outputs), and an op given its own row offsets (one
// block, values of the caller's) must still read those.
TEST_P(GemmOutputStage, NarrowRowSumsFillThePackersBuffer) {
  if (!GetParam().supported) GTEST_SKIP() << instSetName(GetParam().isa) << " not on this CPU";
  ScopedIsa isa(GetParam().isa);
  for (const int N : {3, 4, 5, 8})
    for (const int M : {7, 120, 250}) {
      const int K = 36;
      SCOPED_TRACE(std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K));
      const std::vector<uint8_t> A = random_vector<uint8_t>(size_t(M) * K, 0, 255, uint32_t(M + N));
      const std::vector<int8_t> B = random_vector<int8_t>(size_t(K) * N, -128, 127, uint32_t(N));
      PackBMatrix<int8_t> packB(matrix_op_t::NoTranspose, K, N, B.data(), N);
      std::vector<int32_t> sums(size_t(M), 0), raw(size_t(M) * N);
      for (int i = 0; i < M; ++i)
        for (int k = 0; k < K; ++k) sums[size_t(i)] += A[size_t(i) * K + k];
      const int mcb = PackAWithRowOffset<uint8_t>::rowOffsetBufferSize();
      const int last = (M - 1) / mcb * mcb;  // the last block's first row
      const auto check_buffer = [&](const int32_t* buffer) {
        for (int i = last; i < M; ++i)
          ASSERT_EQ(buffer[i - last], sums[size_t(i)]) << "row offset of row " << i;
      };
      {
        PackAWithRowOffset<uint8_t> packA(matrix_op_t::NoTranspose, M, K, A.data(), K);
        DoNothing<int32_t, int32_t> done;
        memCopy<> copy(done);
        fbgemmPacked(packA, packB, raw.data(), raw.data(), N, copy, 0, 1);
        check_buffer(packA.getRowOffsetBuffer());
      }
      std::vector<int32_t> b_zp(static_cast<size_t>(N)), col_off(static_cast<size_t>(N), 0);
      std::vector<float> mult(static_cast<size_t>(N), 0.002f);
      for (int j = 0; j < N; ++j) b_zp[size_t(j)] = 3 - j;
      // The caller's own offsets differ from the sums, so reading the wrong ones shows.
      std::vector<int32_t> own(sums);
      for (int i = 0; i < M; ++i) own[size_t(i)] += 1000 * (i % 5);
      for (const bool own_buffer : {false, true}) {
        if (own_buffer && M > mcb) continue;  // the caller's offsets serve one block only
        std::vector<uint8_t> expected(size_t(M) * N);
        ref::QuantParams qp;
        qp.granularity = Gran::OUT_CHANNEL;
        qp.nCol = static_cast<uint32_t>(N);
        qp.Aq_zero_point = 0;
        qp.Bq_zero_point = b_zp.data();
        qp.row_offsets = own_buffer ? own.data() : sums.data();
        qp.col_offsets = col_off.data();
        ref::requantize_u8<int32_t>(expected.data(), raw.data(), block_type_t{0, M, 0, N}, N, N,
                                    qp, mult.data(), 7, nullptr, nullptr, false);
        std::vector<uint8_t> C(size_t(M) * N, 0xA5);
        std::vector<int32_t> C_buffer(size_t(M) * N);
        PackAWithRowOffset<uint8_t> packA(matrix_op_t::NoTranspose, M, K, A.data(), K);
        DoNothing<> done;
        ReQuantizeOutput<false, Gran::OUT_CHANNEL> op(
            done, mult.data(), 7, 0, b_zp.data(), own_buffer ? own.data() : packA.getRowOffsetBuffer(),
            col_off.data(), nullptr, static_cast<uint32_t>(N));
        fbgemmPacked(packA, packB, C.data(), C_buffer.data(), N, op, 0, 1);
        check_buffer(packA.getRowOffsetBuffer());
        for (size_t e = 0; e < C.size(); ++e)
          ASSERT_EQ(int(C[e]), int(expected[e])) << "element (" << e / N << ", " << e % N << ")"
                                                 << (own_buffer ? ", the op's own row offsets" : "");
      }
    }
}

INSTANTIATE_TEST_SUITE_P(AllIsas, GemmOutputStage, ::testing::ValuesIn(all_isas()),
                         [](const ::testing::TestParamInfo<IsaCase>& info) {
                           return std::string(instSetName(info.param.isa));
                         });

}  // namespace
}  // namespace quire::test
