// Code written for FBGEMM, compiled against quire through the compatibility headers only
// (include/quire/compat): no quire header is included by name. The client functions are
// written the way FBGEMM users write them (a fully connected layer with uint8 or float
// output, weights packed once, one call per thread); the test checks their results
// against a naive reference written here, bit for bit.
#include <fbgemm/Fbgemm.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

using namespace fbgemm;

namespace {

// ---- client code, FBGEMM style --------------------------------------------------------

// Quantized FC with per-tensor quantization and uint8 output.
void fc_u8(const uint8_t* Aint8, int m, int k, int32_t Aint8_zero_point,
           PackBMatrix<int8_t>& packedBN, int n, const float* C_multiplier, int32_t C_zero_pt,
           const int32_t* Bint8_zero_point, const int32_t* col_offsets, uint8_t* Cint8,
           int32_t* Cint32_buffer, int thread_id, int num_threads) {
  std::vector<int32_t> row_offset_buf(PackAWithRowOffset<uint8_t>::rowOffsetBufferSize());
  PackAWithRowOffset<uint8_t> packAN(matrix_op_t::NoTranspose, m, k, Aint8, k, nullptr, 1,
                                     row_offset_buf.data());
  DoNothing<> doNothingObj{};
  ReQuantizeOutput<false> outputProcObj(doNothingObj, C_multiplier, C_zero_pt, Aint8_zero_point,
                                        Bint8_zero_point, packAN.getRowOffsetBuffer(), col_offsets,
                                        nullptr, n);
  fbgemmPacked(packAN, packedBN, Cint8, Cint32_buffer, n, outputProcObj, thread_id, num_threads);
}

// Quantized FC with per-output-channel quantization, int32 bias and fused ReLU.
void fc_u8_per_channel_relu(const uint8_t* Aint8, int m, int k, int32_t Aint8_zero_point,
                            PackBMatrix<int8_t>& packedBN, int n, const float* C_multiplier,
                            int32_t C_zero_pt, const int32_t* Bint8_zero_point,
                            const int32_t* col_offsets, const int32_t* bias, uint8_t* Cint8,
                            int32_t* Cint32_buffer, int thread_id, int num_threads) {
  std::vector<int32_t> row_offset_buf(PackAWithRowOffset<uint8_t>::rowOffsetBufferSize());
  PackAWithRowOffset<uint8_t> packAN(matrix_op_t::NoTranspose, m, k, Aint8, k, nullptr, 1,
                                     row_offset_buf.data());
  DoNothing<> doNothingObj{};
  ReQuantizeOutput<true, QuantizationGranularity::OUT_CHANNEL> outputProcObj(
      doNothingObj, C_multiplier, C_zero_pt, Aint8_zero_point, Bint8_zero_point,
      packAN.getRowOffsetBuffer(), col_offsets, bias, n);
  fbgemmPacked(packAN, packedBN, Cint8, Cint32_buffer, n, outputProcObj, thread_id, num_threads);
}

// Dequantizing FC: float output, computed in place in the output buffer.
void fc_float(const uint8_t* Aint8, int m, int k, float Aint8_scale, int32_t Aint8_zero_point,
              PackBMatrix<int8_t>& packedBN, int n, const float* Bint8_scale,
              const int32_t* Bint8_zero_point, const int32_t* col_offsets, const float* bias,
              float* Cfp32, int thread_id, int num_threads) {
  std::vector<int32_t> row_offset_buf(PackAWithRowOffset<uint8_t>::rowOffsetBufferSize());
  PackAWithRowOffset<uint8_t> packAN(matrix_op_t::NoTranspose, m, k, Aint8, k, nullptr, 1,
                                     row_offset_buf.data());
  DoNothing<float, float> doNothingObj{};
  ReQuantizeForFloat<false> outputProcObj(doNothingObj, Aint8_scale, Bint8_scale, Aint8_zero_point,
                                          Bint8_zero_point, packAN.getRowOffsetBuffer(),
                                          col_offsets, bias, n);
  fbgemmPacked(packAN, packedBN, Cfp32, reinterpret_cast<int32_t*>(Cfp32), n, outputProcObj,
               thread_id, num_threads);
}

// Column sums of B minus k * B's zero point: what clients compute once with the weights.
std::vector<int32_t> client_col_offsets(const int8_t* B, int k, int n, const int32_t* b_zp,
                                        bool per_channel) {
  std::vector<int32_t> out(n);
  for (int j = 0; j < n; ++j) {
    int32_t sum = 0;
    for (int p = 0; p < k; ++p) sum += B[p * n + j];
    out[j] = sum - k * b_zp[per_channel ? j : 0];
  }
  return out;
}

// ---- naive reference ------------------------------------------------------------------

// raw[i][j] = sum_p (A[i][p] - a_zp) * (B[p][j] - b_zp(j))
std::vector<int32_t> naive_raw(const std::vector<uint8_t>& A, const std::vector<int8_t>& B, int m,
                               int n, int k, int32_t a_zp, const int32_t* b_zp, bool per_channel) {
  std::vector<int32_t> raw(size_t(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      int32_t acc = 0;
      for (int p = 0; p < k; ++p)
        acc += (int32_t(A[i * k + p]) - a_zp) * (int32_t(B[p * n + j]) - b_zp[per_channel ? j : 0]);
      raw[size_t(i) * n + j] = acc;
    }
  return raw;
}

uint8_t naive_requantize(int32_t raw_plus_bias, float multiplier, int32_t c_zp, bool relu) {
  const float x = static_cast<float>(raw_plus_bias) * multiplier;
  const int64_t v = static_cast<int64_t>(std::nearbyint(x)) + c_zp;
  return static_cast<uint8_t>(std::clamp<int64_t>(v, relu ? c_zp : 0, 255));
}

template <class T>
size_t distinct_values(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return static_cast<size_t>(std::unique(v.begin(), v.end()) - v.begin());
}

struct Shape {
  int m, n, k;
};
const Shape kShapes[] = {{1, 128, 512},   {6, 256, 1024}, {13, 70, 37},  {64, 64, 64},
                         {102, 200, 256}, {3, 1, 1},      {33, 65, 1023}};

template <class T>
std::vector<T> rand_fill(size_t n, int lo, int hi, std::mt19937& gen) {
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(dist(gen));
  return v;
}

// Every path the CPU has, as FBGEMM's own tests enumerate them.
std::vector<inst_set_t> isas_to_test() {
  std::vector<inst_set_t> out;
  if (fbgemmHasAvx2Support()) out.push_back(inst_set_t::avx2);
  if (fbgemmHasAvx512Support()) out.push_back(inst_set_t::avx512);
  if (fbgemmHasAvx512VnniSupport()) out.push_back(inst_set_t::avx512_vnni);
  if (out.empty()) out.push_back(inst_set_t::anyarch);
  return out;
}

class CompatFbgemm : public ::testing::Test {
 protected:
  void SetUp() override { saved_ = fbgemmInstructionSet(); }
  void TearDown() override { fbgemmForceIsa(saved_); }
  inst_set_t saved_{};
};

TEST_F(CompatFbgemm, RequantizedFcPerTensor) {
  EXPECT_EQ(fbgemmSupportedCPU(), fbgemmHasAvx2Support());
  std::mt19937 gen(1);
  for (inst_set_t isa : isas_to_test()) {
    fbgemmForceIsa(isa);
    ASSERT_EQ(fbgemmInstructionSet(), isa);
    for (const Shape& s : kShapes) {
      const int m = s.m, n = s.n, k = s.k;
      auto Aint8 = rand_fill<uint8_t>(size_t(m) * k, 0, 255, gen);
      auto Bint8 = rand_fill<int8_t>(size_t(k) * n, -128, 127, gen);
      const int32_t Aint8_zero_point = 128, C_zero_pt = 128;
      const int32_t Bint8_zero_point = -2;
      // About 40 output steps per standard deviation of the corrected sums.
      const float C_multiplier = 40.0f / (5476.0f * std::sqrt(float(k)));
      const std::vector<int32_t> col_offsets =
          client_col_offsets(Bint8.data(), k, n, &Bint8_zero_point, false);
      PackBMatrix<int8_t> packedBN(matrix_op_t::NoTranspose, k, n, Bint8.data(), n, nullptr, 1);

      std::vector<uint8_t> Cint8(size_t(m) * n), Cint8_ref(size_t(m) * n);
      std::vector<int32_t> Cint32_buffer(size_t(m) * n);
      fc_u8(Aint8.data(), m, k, Aint8_zero_point, packedBN, n, &C_multiplier, C_zero_pt,
            &Bint8_zero_point, col_offsets.data(), Cint8.data(), Cint32_buffer.data(), 0, 1);

      const auto raw = naive_raw(Aint8, Bint8, m, n, k, Aint8_zero_point, &Bint8_zero_point, false);
      for (size_t i = 0; i < raw.size(); ++i)
        Cint8_ref[i] = naive_requantize(raw[i], C_multiplier, C_zero_pt, false);
      EXPECT_EQ(compare_buffers(Cint8_ref.data(), Cint8.data(), m, n, n, 0), 0)
          << instSetName(isa) << " m=" << m << " n=" << n << " k=" << k;
      if (m * n >= 1000) {
        EXPECT_GT(distinct_values(Cint8_ref), 50u) << "degenerate data";
      }
    }
  }
}

TEST_F(CompatFbgemm, RequantizedFcPerChannelReluOnThreads) {
  std::mt19937 gen(2);
  for (inst_set_t isa : isas_to_test()) {
    fbgemmForceIsa(isa);
    for (const Shape& s : kShapes) {
      const int m = s.m, n = s.n, k = s.k;
      auto Aint8 = rand_fill<uint8_t>(size_t(m) * k, 0, 255, gen);
      auto Bint8 = rand_fill<int8_t>(size_t(k) * n, -128, 127, gen);
      auto Bint8_zero_point = rand_fill<int32_t>(n, -3, 3, gen);
      auto bias = rand_fill<int32_t>(n, -50000, 50000, gen);
      std::vector<float> C_multiplier(n);
      for (int j = 0; j < n; ++j)
        C_multiplier[j] = (0.5f + 0.01f * float(j % 50)) * 60.0f / (5476.0f * std::sqrt(float(k)));
      const int32_t Aint8_zero_point = 127, C_zero_pt = 100;
      const auto col_offsets =
          client_col_offsets(Bint8.data(), k, n, Bint8_zero_point.data(), true);
      PackBMatrix<int8_t> packedBN(matrix_op_t::NoTranspose, k, n, Bint8.data(), n);

      // Reference.
      const auto raw =
          naive_raw(Aint8, Bint8, m, n, k, Aint8_zero_point, Bint8_zero_point.data(), true);
      std::vector<uint8_t> Cint8_ref(size_t(m) * n);
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j)
          Cint8_ref[size_t(i) * n + j] =
              naive_requantize(raw[size_t(i) * n + j] + bias[j], C_multiplier[j], C_zero_pt, true);
      if (m * n >= 1000) {
        EXPECT_GT(distinct_values(Cint8_ref), 50u) << "degenerate data";
      }

      // The client's parallel region: each thread runs its share.
      for (int num_threads : {1, 3}) {
        std::vector<uint8_t> Cint8(size_t(m) * n, 0);
        std::vector<int32_t> Cint32_buffer(size_t(m) * n);
        std::vector<std::thread> threads;
        for (int tid = 0; tid < num_threads; ++tid) {
          threads.emplace_back([&, tid] {
            fc_u8_per_channel_relu(Aint8.data(), m, k, Aint8_zero_point, packedBN, n,
                                   C_multiplier.data(), C_zero_pt, Bint8_zero_point.data(),
                                   col_offsets.data(), bias.data(), Cint8.data(),
                                   Cint32_buffer.data(), tid, num_threads);
          });
        }
        for (auto& t : threads) t.join();
        EXPECT_EQ(compare_buffers(Cint8_ref.data(), Cint8.data(), m, n, n, 0), 0)
            << instSetName(isa) << " m=" << m << " n=" << n << " k=" << k
            << " threads=" << num_threads;
      }
    }
  }
}

TEST_F(CompatFbgemm, DequantizedFloatFc) {
  std::mt19937 gen(3);
  for (inst_set_t isa : isas_to_test()) {
    fbgemmForceIsa(isa);
    for (const Shape& s : kShapes) {
      const int m = s.m, n = s.n, k = s.k;
      auto Aint8 = rand_fill<uint8_t>(size_t(m) * k, 0, 255, gen);
      auto Bint8 = rand_fill<int8_t>(size_t(k) * n, -128, 127, gen);
      const float Aint8_scale = 0.02f, Bint8_scale = 0.003f;
      const int32_t Aint8_zero_point = 7, Bint8_zero_point = 3;
      std::vector<float> bias(n);
      for (int j = 0; j < n; ++j) bias[j] = 0.25f * float(j % 9) - 1.0f;
      const auto col_offsets = client_col_offsets(Bint8.data(), k, n, &Bint8_zero_point, false);
      PackBMatrix<int8_t> packedBN(matrix_op_t::NoTranspose, k, n, Bint8.data(), n);

      std::vector<float> Cfp32(size_t(m) * n), Cfp32_ref(size_t(m) * n);
      fc_float(Aint8.data(), m, k, Aint8_scale, Aint8_zero_point, packedBN, n, &Bint8_scale,
               &Bint8_zero_point, col_offsets.data(), bias.data(), Cfp32.data(), 0, 1);
      const auto raw = naive_raw(Aint8, Bint8, m, n, k, Aint8_zero_point, &Bint8_zero_point, false);
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j)
          Cfp32_ref[size_t(i) * n + j] =
              static_cast<float>(raw[size_t(i) * n + j]) * (Aint8_scale * Bint8_scale) + bias[j];
      // Exact: the same float operations in the same order.
      EXPECT_EQ(compare_buffers(Cfp32_ref.data(), Cfp32.data(), m, n, n, 0, 0.0f), 0)
          << instSetName(isa) << " m=" << m << " n=" << n << " k=" << k;
    }
  }
}

// Weights code that serializes through unpack, and compares packed matrices.
TEST_F(CompatFbgemm, PackedWeightsUnpackAndCompare) {
  std::mt19937 gen(4);
  const int k = 100, n = 77;
  auto Bint8 = rand_fill<int8_t>(size_t(k) * n, -128, 127, gen);
  PackBMatrix<int8_t> packedBN(matrix_op_t::NoTranspose, k, n, Bint8.data(), n, nullptr, 1);
  std::vector<int8_t> unpacked(size_t(k) * n);
  packedBN.unpack(unpacked.data());
  EXPECT_EQ(compare_buffers(Bint8.data(), unpacked.data(), k, n, n, 0), 0);
  PackBMatrix<int8_t> again(matrix_op_t::NoTranspose, k, n, unpacked.data(), n, nullptr, 1);
  EXPECT_TRUE(packedBN.metaEquals(again));
  EXPECT_TRUE(packedBN.equals(again));
  EXPECT_EQ(packedBN.numRows(), k);
  EXPECT_EQ(packedBN.numCols(), n);
  EXPECT_EQ(packedBN.numGroups(), 1);

  // Aligned scratch as clients allocate it.
  void* p = fbgemmAlignedAlloc(64, 1000);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  fbgemmAlignedFree(p);
  int64_t start = 0, end = 0;
  fbgemmPartition1D(1, 3, 10, start, end);  // FBGEMM's ceil(10 / 3) = 4 per thread
  EXPECT_EQ(end - start, 4);
}

}  // namespace
