// Engine-shaped conformance: the call sequences inference and training engines
// make into FBGEMM, compiled only through the compat headers (no quire header
// by name), each result checked against FBGEMM's documented formula written out
// here. Covered: dynamic quantized linear (observe, choose qparams, quantize
// while packing, float output), fp16-weight linear, row-wise embedding prepack
// / unpack (8-bit and 4-bit), QAT observers and fake quantization, and an empty
// conv batch. The static quantized linear and the convolutions are in
// compat_fbgemm_test.cpp, conv_compat_test.cpp and
// conv_transposed_compat_test.cpp.
#include <fbgemm/Fbgemm.h>
#include <fbgemm/FbgemmFP16.h>
#include <fbgemm/QuantUtils.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

using namespace fbgemm;

namespace {

std::vector<float> uniform(size_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

// ---- dynamic quantized linear, as an engine's fbgemm backend runs it
// -----------------

struct PackedLinear {  // prepacked once: int8 weights, per-channel scales and
                       // offsets
  int K, N;
  std::vector<int8_t> W;  // K x N
  std::vector<float> w_scale;
  std::vector<int32_t> w_zp, col_offsets;
  std::unique_ptr<PackBMatrix<int8_t>> packed;
};

PackedLinear prepack_linear(int K, int N, uint32_t seed) {
  PackedLinear l{K, N, {}, {}, {}, {}, {}};
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> w(-128, 127), zp(-3, 3);
  l.W.resize(size_t(K) * N);
  for (auto& x : l.W) x = static_cast<int8_t>(w(gen));
  for (int j = 0; j < N; ++j) {
    l.w_scale.push_back(0.001f * (1 + j % 7));
    l.w_zp.push_back(zp(gen));
    int32_t sum = 0;
    for (int k = 0; k < K; ++k) sum += l.W[size_t(k) * N + j];
    l.col_offsets.push_back(sum - K * l.w_zp[j]);  // col_offsets_with_zero_pt_s8acc32
  }
  l.packed = std::make_unique<PackBMatrix<int8_t>>(matrix_op_t::NoTranspose, K, N, l.W.data(), N);
  return l;
}

void dynamic_linear(const float* x, int M, const PackedLinear& l, const float* bias, float* y,
                    TensorQuantizationParams* chosen, int thread_id, int num_threads) {
  float x_min, x_max;
  FindMinMax(x, &x_min, &x_max, int64_t(M) * l.K);
  const TensorQuantizationParams q = ChooseQuantizationParams(x_min, x_max, 0, 255);
  *chosen = q;
  std::vector<int32_t> row_offsets(PackAWithQuantRowOffset<uint8_t>::rowOffsetBufferSize());
  PackAWithQuantRowOffset<uint8_t> packA(matrix_op_t::NoTranspose, M, l.K, x, l.K, nullptr, q.scale,
                                         q.zero_point, 1, row_offsets.data());
  DoNothing<float, float> done;
  ReQuantizeForFloat<false, QuantizationGranularity::OUT_CHANNEL> out(
      done, q.scale, l.w_scale.data(), q.zero_point, l.w_zp.data(), packA.getRowOffsetBuffer(),
      l.col_offsets.data(), bias, l.N);
  std::vector<int32_t> buffer(size_t(M) * l.N);
  fbgemmPacked(packA, *l.packed, y, buffer.data(), l.N, out, thread_id, num_threads);
}

// The paths this CPU has, as an engine would force them (fbgemmForceIsa; anyarch means
// "nothing forced" there, as in FBGEMM).
std::vector<inst_set_t> supported_paths() {
  std::vector<inst_set_t> paths{inst_set_t::anyarch};
  if (fbgemmHasAvx2Support()) paths.push_back(inst_set_t::avx2);
  if (fbgemmHasAvx512Support()) paths.push_back(inst_set_t::avx512);
  if (fbgemmHasAvx512VnniSupport()) paths.push_back(inst_set_t::avx512_vnni);
  return paths;
}

TEST(EngineConformance, DynamicQuantizedLinear) {
  const inst_set_t initial = fbgemmInstructionSet();
  for (const inst_set_t isa : supported_paths()) {
    fbgemmForceIsa(isa);
    for (const auto& [M, K, N] : {std::tuple{1, 64, 33}, {7, 130, 65}, {17, 17, 3}}) {
      const PackedLinear l = prepack_linear(K, N, 11 + M);
      const auto x = uniform(size_t(M) * K, -2.5f, 4.0f, 5 + M);
      const auto bias = uniform(N, -1, 1, 9);
      for (int threads = 1; threads <= 3; ++threads) {
        std::vector<float> y(size_t(M) * N, NAN);
        TensorQuantizationParams q{};
        for (int t = 0; t < threads; ++t)
          dynamic_linear(x.data(), M, l, bias.data(), y.data(), &q, t, threads);
        // FBGEMM's formulas: q = clamp(zp + nearbyint(x * (1 / scale)), 0,
        // 255); y = float(acc - a_zp * col_off - b_zp * row_sum) * (a_scale *
        // w_scale) + bias, the multiplier formed first as FBGEMM's x86
        // requantizeForFloatAvx2 does.
        const float inv = 1.0f / q.scale;
        std::vector<int32_t> xq(x.size());
        for (size_t i = 0; i < x.size(); ++i)
          xq[i] = std::clamp<int32_t>(
              q.zero_point + static_cast<int32_t>(std::nearbyint(x[i] * inv)), 0, 255);
        for (int i = 0; i < M; ++i) {
          int32_t row_sum = 0;
          for (int k = 0; k < K; ++k) row_sum += xq[size_t(i) * K + k];
          for (int j = 0; j < N; ++j) {
            int32_t acc = 0;
            for (int k = 0; k < K; ++k) acc += xq[size_t(i) * K + k] * l.W[size_t(k) * N + j];
            const int32_t raw = acc - q.zero_point * l.col_offsets[j] - row_sum * l.w_zp[j];
            const float want = static_cast<float>(raw) * (q.scale * l.w_scale[j]) + bias[j];
            ASSERT_EQ(std::bit_cast<uint32_t>(y[size_t(i) * N + j]), std::bit_cast<uint32_t>(want))
                << instSetName(isa) << " " << M << "x" << N << "x" << K << " (" << i << ", " << j
                << ")";
          }
        }
      }
    }
  }
  fbgemmForceIsa(initial);
}

// ---- fp16-weight linear
// -----------------------------------------------------------------

TEST(EngineConformance, Fp16WeightLinear) {
  for (const auto& [M, K, N] : {std::tuple{1, 512, 64}, {5, 65, 33}, {33, 17, 1}}) {
    const auto W = uniform(size_t(K) * N, -1, 1, 3);
    const auto A = uniform(size_t(M) * K, -1, 1, 4);
    PackedGemmMatrixFP16 packed(matrix_op_t::NoTranspose, K, N, 1.0f, W.data());
    std::vector<float> C(size_t(M) * N, NAN);
    cblas_gemm_compute(matrix_op_t::NoTranspose, M, A.data(), packed, 0.0f, C.data());
    // Against the product with the weights rounded to fp16, in double; the
    // bound is the fp32 accumulation's: K * 2^-24 * sum |a * w| (plus one
    // rounding).
    for (int i = 0; i < M; ++i) {
      for (int j = 0; j < N; ++j) {
        double exact = 0, magnitude = 0;
        for (int k = 0; k < K; ++k) {
          const double w = cpu_half2float(cpu_float2half_rn(W[size_t(k) * N + j]));
          exact += double(A[size_t(i) * K + k]) * w;
          magnitude += std::fabs(double(A[size_t(i) * K + k]) * w);
        }
        const double bound = (K + 1) * std::ldexp(1.0, -24) * magnitude;
        ASSERT_LE(std::fabs(C[size_t(i) * N + j] - exact), bound) << M << "x" << N << "x" << K;
      }
    }
  }
}

// ---- row-wise embedding tables: prepack and unpack
// ----------------------------------

TEST(EngineConformance, Embedding8BitPrepackUnpack) {
  const int rows = 13, dim = 37,
            width = dim + 2 * sizeof(float);  // values, then scale, bias
  const auto table = uniform(size_t(rows) * dim, -3, 5, 21);
  std::vector<uint8_t> packed(size_t(rows) * width);  // exactly the documented size
  FloatOrHalfToFused8BitRowwiseQuantizedSBFloat(table.data(), rows, dim, packed.data());
  std::vector<float> unpacked(size_t(rows) * dim);
  // The engine passes the fused row width in bytes, as FBGEMM documents.
  Fused8BitRowwiseQuantizedSBFloatToFloatOrHalf(packed.data(), rows, width, unpacked.data());
  for (int r = 0; r < rows; ++r) {
    const float* row = table.data() + size_t(r) * dim;
    const float lo = *std::min_element(row, row + dim), hi = *std::max_element(row, row + dim);
    float scale_bias[2];
    std::memcpy(scale_bias, packed.data() + size_t(r) * width + dim, sizeof scale_bias);
    ASSERT_EQ(scale_bias[0], (hi - lo) / 255.0f);
    ASSERT_EQ(scale_bias[1], lo);
    const float inverse = 255.0f / ((hi - lo) + 1e-8f);
    for (int c = 0; c < dim; ++c) {
      const uint8_t code = packed[size_t(r) * width + c];
      ASSERT_EQ(code, static_cast<uint8_t>(std::lrintf((row[c] - lo) * inverse)));
      ASSERT_NEAR(unpacked[size_t(r) * dim + c], row[c], scale_bias[0] / 2 * 1.001f + 1e-6f);
    }
  }
}

TEST(EngineConformance, Embedding4BitPrepackUnpack) {
  const int rows = 9, dim = 30, bits = 4;
  const int width = (dim * bits + 7) / 8 + 2 * sizeof(float16);  // codes, then fp16 scale, bias
  const auto table = uniform(size_t(rows) * dim, -1, 2, 22);
  std::vector<uint8_t> packed(size_t(rows) * width);
  FloatOrHalfToFusedNBitRowwiseQuantizedSBHalf(bits, table.data(), rows, dim, packed.data());
  std::vector<float> unpacked(size_t(rows) * dim);
  FusedNBitRowwiseQuantizedSBHalfToFloatOrHalf(bits, packed.data(), rows, width, unpacked.data());
  for (int r = 0; r < rows; ++r) {
    float16 sb[2];
    std::memcpy(sb, packed.data() + size_t(r) * width + (dim * bits + 7) / 8, sizeof sb);
    const float scale = cpu_half2float(sb[0]), bias = cpu_half2float(sb[1]);
    for (int c = 0; c < dim; ++c) {
      const uint8_t byte = packed[size_t(r) * width + c / 2];
      const int code = (c % 2 == 0) ? (byte & 0xF) : (byte >> 4);
      // The unpacked value is the code's: scale * code + bias, and within a
      // step (plus the fp16 rounding of scale and bias) of the original.
      ASSERT_NEAR(unpacked[size_t(r) * dim + c], scale * code + bias, 1e-6f);
      ASSERT_NEAR(unpacked[size_t(r) * dim + c], table[size_t(r) * dim + c], scale * 0.51f + 2e-3f);
    }
  }
}

// ---- QAT: observers choose qparams, fake quantization
// ---------------------------------

TEST(EngineConformance, QatObserversAndFakeQuantization) {
  const int channels = 5, per_channel = 41;
  const auto w = uniform(size_t(channels) * per_channel, -0.7f, 0.3f, 31);
  for (int c = 0; c < channels; ++c) {
    const float* x = w.data() + size_t(c) * per_channel;
    float lo, hi;
    FindMinMax(x, &lo, &hi, per_channel);  // the min/max observer
    for (bool symmetric : {false, true}) {
      const TensorQuantizationParams q = symmetric
                                             ? ChooseQuantizationParams(lo, hi, -128, 127, true)
                                             : ChooseQuantizationParams(lo, hi, -128, 127);
      ASSERT_GT(q.scale, 0.0f);
      ASSERT_GE(q.zero_point, -128);
      ASSERT_LE(q.zero_point, 127);
      if (symmetric) {
        ASSERT_EQ(q.zero_point, 0);  // (qmin + qmax) / 2, rounded
      }
      // Zero is exact: it quantizes to the zero point and back to 0.
      ASSERT_EQ(Quantize<int8_t>(0.0f, q.zero_point, q.scale, 8), q.zero_point);
      ASSERT_EQ(Dequantize<int8_t>(static_cast<int8_t>(q.zero_point), q), 0.0f);
      std::vector<int8_t> codes(per_channel);
      std::vector<float> fake(per_channel);
      Quantize<int8_t>(x, codes.data(), per_channel, q);
      Dequantize<int8_t>(codes.data(), fake.data(), per_channel, q);
      for (int i = 0; i < per_channel; ++i) {
        ASSERT_EQ(codes[i], Quantize<int8_t>(x[i], q.zero_point, q.scale, 8)) << i;
        ASSERT_LE(std::fabs(fake[i] - x[i]), q.scale * 0.5001f) << "observed range covers x";
      }
      std::vector<float> fused(per_channel);
      FusedQuantizeDequantize<int8_t>(x, fused.data(), per_channel,
                                      q);  // fake-quant op
      ASSERT_EQ(fused, fake);
    }
  }
}

// ---- an empty batch through fbgemmConv
// ------------------------------------------------

TEST(EngineConformance, EmptyConvBatch) {
  conv_param_t<2> p(0, 16, 32, {14, 14}, 1, {3, 3}, {1, 1}, {1, 1, 1, 1});
  const auto weights = std::vector<int8_t>(size_t(32) * 9 * 16, 1);
  PackWeightsForConv<2> packed(p, weights.data());
  std::vector<int32_t> b_zp(1, 0), col_offsets(32, 0);
  std::vector<float> mult(1, 0.5f);
  DoNothing<> done;
  ReQuantizeOutput<false> out(done, mult.data(), 0, 0, b_zp.data(), nullptr, col_offsets.data(),
                              nullptr, 32);
  uint8_t sentinel = 0x5A;
  int32_t buffer = 0;
  EXPECT_EQ(
      fbgemmConv(p, static_cast<const uint8_t*>(nullptr), packed, &sentinel, &buffer, out, 0, 1),
      0);
  EXPECT_EQ(sentinel, 0x5A);
}

}  // namespace
