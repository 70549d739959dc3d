// Code written for FBGEMM's sparse API, compiled against quire through the compatibility
// headers only (fbgemm/FbgemmSparse.h, fbgemm/spmmUtils.h): a sparse quantized linear
// layer the way PyTorch's runs it (weights W as BCSR, C^T = W * X^T), and the fp32
// CSR product called as FBGEMM's test calls it; results checked against naive loops.
#include <fbgemm/FbgemmSparse.h>
#include <fbgemm/spmmUtils.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

using namespace fbgemm;

namespace {

// ---- client code, FBGEMM style --------------------------------------------------------

// out^T (OC x batch) = requantized W (OC x IC, int8, mostly zero) * X^T (IC x batch).
std::vector<uint8_t> sparse_linear(const std::vector<int8_t>& W, int OC, int IC,
                                   const std::vector<uint8_t>& Xt, int batch, float act_scale,
                                   int32_t act_zp, const std::vector<float>& w_scale,
                                   const std::vector<float>& bias, float out_scale, int32_t out_zp) {
  std::unique_ptr<BCSRMatrix<>> bcsr = fbgemmDenseToBCSR(OC, IC, W.data());
  std::vector<float> act_times_w_scale(OC);
  for (int i = 0; i < OC; ++i) act_times_w_scale[i] = act_scale * w_scale[i];
  std::vector<int32_t> w_zp(OC, 0);
  trRequantizationParams_t reqParams = {act_zp, w_zp.data(), out_zp, out_scale,
                                        bcsr->row_offsets.data(), nullptr, bias.data(),
                                        act_times_w_scale.data()};
  std::vector<int32_t> out_i32(static_cast<size_t>(OC) * batch);
  std::vector<uint8_t> out(static_cast<size_t>(OC) * batch);
  fbgemmSparseDenseInt8MM<true, QuantizationGranularity::OUT_CHANNEL>(
      batch, bcsr, Xt.data(), batch, out_i32.data(), out.data(), batch, reqParams);
  return out;
}

// ---- the test ---------------------------------------------------------------------------

TEST(SparseCompat, QuantizedLinear) {
  const int OC = 37, IC = 70, batch = 21;
  std::mt19937 gen(5);
  std::uniform_int_distribution<int> u8(0, 255), s8(-128, 127), coin(0, 9);
  std::vector<int8_t> W(OC * IC, 0);
  for (auto& w : W)
    if (coin(gen) < 3) w = static_cast<int8_t>(s8(gen));
  std::vector<uint8_t> Xt(IC * batch);
  for (auto& x : Xt) x = static_cast<uint8_t>(u8(gen));
  std::vector<float> w_scale(OC), bias(OC);
  for (int i = 0; i < OC; ++i) {
    w_scale[i] = 0.001f * (1 + i % 7);
    bias[i] = 0.05f * (i - OC / 2);
  }
  const float act_scale = 0.02f, out_scale = 0.11f;
  const int32_t act_zp = 7, out_zp = 100;
  const std::vector<uint8_t> got =
      sparse_linear(W, OC, IC, Xt, batch, act_scale, act_zp, w_scale, bias, out_scale, out_zp);
  for (int i = 0; i < OC; ++i)
    for (int j = 0; j < batch; ++j) {
      int32_t acc = 0, row_sum = 0;
      for (int k = 0; k < IC; ++k) {
        acc += W[i * IC + k] * Xt[k * batch + j];
        row_sum += W[i * IC + k];
      }
      const float s = act_scale * w_scale[i];
      const float y = (static_cast<float>(acc - act_zp * row_sum) + bias[i] / s) * (s / out_scale);
      const long want = std::lround(std::nearbyint(y)) + out_zp;
      ASSERT_EQ(got[i * batch + j], std::clamp<long>(want, out_zp, 255)) << i << ", " << j;
    }
}

TEST(SparseCompat, Fp32AsFbgemmsTestCallsIt) {
  const int m = 5, n = 9, k = 13;
  std::vector<float> a(m * k), b(k * n, 0.0f);
  std::mt19937 gen(2);
  std::uniform_real_distribution<float> val(-1, 1);
  for (auto& x : a) x = val(gen);
  for (int i = 0; i < k * n; i += 3) b[i] = val(gen);
  // C^T = B^T * A^T with the sparse B^T on the left, leading dimensions 2 * rows.
  const int ldat = 2 * m, ldbt = 2 * k, ldct = 2 * m;
  std::vector<float> at(k * ldat), bt(n * ldbt), ct(n * ldct);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < k; ++j) at[j * ldat + i] = a[i * k + j];
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < n; ++j) bt[j * ldbt + i] = b[i * n + j];
  std::unique_ptr<CSRMatrix<float>> csr = fbgemmDenseToCSR(n, k, bt.data(), ldbt);
  SparseDenseMM(n, m, csr->rowPtr.data(), csr->colIdx.data(), csr->values.data(), at.data(),
                ldat, ct.data(), ldct);
  std::vector<float> ref(n * ldct);
  sparseDenseMMRef(n, m, csr->rowPtr.data(), csr->colIdx.data(), csr->values.data(), at.data(),
                   ldat, ref.data(), ldct);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double want = 0;
      for (int p = 0; p < k; ++p) want += double(a[i * k + p]) * b[p * n + j];
      EXPECT_NEAR(ct[j * ldct + i], want, 1e-5);
      EXPECT_EQ(ct[j * ldct + i], ref[j * ldct + i]);
    }
}

}  // namespace
