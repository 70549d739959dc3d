// Test helpers for the W4A8 GEMM (quire/Int4Gemm.h): random 4-bit problems in every
// kind and scale type, and two references built from the test's own inputs, never from
// the packed object:
//   exact:  the integer sums P - z R (or P and R) in integers, nothing dequantized, then
//           the float steps of Int4Gemm.h's formula in the same order (std::fma), so
//           the library must match it bit for bit;
//   double: sa * sum_k a * w in double from the quantized operands, for the error bound.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "quire/Int4Gemm.h"
#include "quire/Utils.h"
#include "../src/int4/int4_layout.h"

namespace quire::test {

struct Int4Problem {
  int K = 0, N = 0, group = 0;
  Int4Kind kind = Int4Kind::symmetric;
  Int4ScaleType st = Int4ScaleType::f32;
  std::vector<uint8_t> codes;     // K x N row-major, [0, 15] (symmetric: v + 8)
  std::vector<float> scales;      // groups x N, the scale values as the kernel sees them
  std::vector<float> mins;        // groups x N (zero_point: -(s * z); scale_min: m)
  std::vector<uint8_t> zero_points;
  std::vector<float16> s16;       // the scales as given, for f16
  std::vector<bfloat16> sb16;     // for bf16
  std::vector<float16> m16;
  std::vector<bfloat16> mb16;

  int groups() const { return (K + group - 1) / group; }

  // Packs the problem through the public constructors (NoTranspose or Transpose).
  PackedInt4Weights pack(matrix_op_t trans = matrix_op_t::NoTranspose) const {
    std::vector<uint8_t> c = codes;
    int ld = N;
    if (trans == matrix_op_t::Transpose) {
      ld = K + 3;  // a padded leading dimension
      c.assign(static_cast<size_t>(N) * ld, 0);
      for (int k = 0; k < K; ++k)
        for (int j = 0; j < N; ++j) c[size_t(j) * ld + k] = codes[size_t(k) * N + j];
    }
    auto scales_arg = [&]() -> Int4Scales {
      if (st == Int4ScaleType::f16) return s16.data();
      if (st == Int4ScaleType::bf16) return sb16.data();
      return scales.data();
    };
    auto mins_arg = [&]() -> Int4Scales {
      if (st == Int4ScaleType::f16) return m16.data();
      if (st == Int4ScaleType::bf16) return mb16.data();
      return mins.data();
    };
    if (kind == Int4Kind::symmetric) {
      std::vector<int8_t> v(c.size());
      for (size_t i = 0; i < c.size(); ++i) v[i] = static_cast<int8_t>(c[i] - 8);
      return PackedInt4Weights(trans, K, N, v.data(), ld, group, scales_arg());
    }
    if (kind == Int4Kind::zero_point)
      return PackedInt4Weights(trans, K, N, c.data(), ld, group, scales_arg(), zero_points.data());
    return PackedInt4Weights::withMins(trans, K, N, c.data(), ld, group, scales_arg(), mins_arg());
  }
};

// Full-range codes, scales of mixed sign and magnitude in the given type.
inline Int4Problem make_int4_problem(int K, int N, int group, Int4Kind kind, Int4ScaleType st,
                                     uint32_t seed) {
  Int4Problem p;
  p.K = K, p.N = N, p.group = group, p.kind = kind, p.st = st;
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> code(0, 15);
  std::uniform_real_distribution<float> mag(0.001f, 0.05f);
  p.codes.resize(size_t(K) * N);
  for (auto& c : p.codes) c = static_cast<uint8_t>(code(gen));
  const size_t ng = size_t(p.groups()) * N;
  p.scales.resize(ng);
  p.mins.resize(ng);
  p.zero_points.resize(ng);
  p.s16.resize(ng), p.sb16.resize(ng), p.m16.resize(ng), p.mb16.resize(ng);
  for (size_t i = 0; i < ng; ++i) {
    float s = (gen() & 1 ? -1.0f : 1.0f) * mag(gen);
    float m = -8.0f * mag(gen) + 0.01f;
    if (st == Int4ScaleType::f16) {
      p.s16[i] = cpu_float2half_rn(s), s = cpu_half2float(p.s16[i]);
      p.m16[i] = cpu_float2half_rn(m), m = cpu_half2float(p.m16[i]);
    } else if (st == Int4ScaleType::bf16) {
      p.sb16[i] = cpu_float2bfloat16(s), s = cpu_bf162float(p.sb16[i]);
      p.mb16[i] = cpu_float2bfloat16(m), m = cpu_bf162float(p.mb16[i]);
    }
    p.scales[i] = s;
    p.zero_points[i] = static_cast<uint8_t>(code(gen));
    p.mins[i] = kind == Int4Kind::zero_point ? -(s * static_cast<float>(p.zero_points[i])) : m;
  }
  return p;
}

inline std::vector<float> random_activations(int M, int K, int lda, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-3.0f, 2.0f);
  std::vector<float> a(size_t(M) * lda, 1e30f);  // padding past K must not be read
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) a[size_t(i) * lda + k] = dist(gen);
  return a;
}

// Row i of A quantized as Int4Gemm.h says.
struct QuantRow {
  std::vector<int8_t> q;
  float scale;
};
inline QuantRow quantize_row(const float* x, int K) {
  float amax = 0;
  for (int k = 0; k < K; ++k) amax = std::max(amax, std::fabs(x[k]));
  QuantRow r{std::vector<int8_t>(K), amax > 0 ? amax / 127.0f : 1.0f};
  const float inv = 1.0f / r.scale;
  for (int k = 0; k < K; ++k)
    r.q[k] = static_cast<int8_t>(std::clamp(std::nearbyint(x[k] * inv), -128.0f, 127.0f));
  return r;
}

// The exact reference, with the groups summed in k_parts ranges (fbgemmPartition1D)
// that are then added in order.
inline std::vector<float> int4_reference(const Int4Problem& p, int M, const float* A, int lda,
                                         const float* bias, bool relu, int k_parts) {
  std::vector<float> C(size_t(M) * p.N);
  const int ng = p.groups();
  for (int i = 0; i < M; ++i) {
    const QuantRow a = quantize_row(A + size_t(i) * lda, p.K);
    for (int j = 0; j < p.N; ++j) {
      float total = 0;
      for (int part = 0; part < k_parts; ++part) {
        int64_t g0, g1;
        fbgemmPartition1D(part, k_parts, ng, g0, g1);
        float acc = 0;
        for (int64_t g = g0; g < g1; ++g) {
          int32_t P = 0, R = 0;
          for (int k = int(g) * p.group; k < std::min(p.K, int(g + 1) * p.group); ++k) {
            P += a.q[k] * p.codes[size_t(k) * p.N + j];
            R += a.q[k];
          }
          const size_t gi = size_t(g) * p.N + j;
          if (p.kind == Int4Kind::symmetric) {
            acc = std::fma(static_cast<float>(P - 8 * R), p.scales[gi], acc);
          } else {
            acc = std::fma(static_cast<float>(P), p.scales[gi], acc);
            acc = std::fma(p.mins[gi], static_cast<float>(R), acc);
          }
        }
        total = part == 0 ? acc : total + acc;
      }
      float o = std::fma(a.scale, total, bias ? bias[j] : 0.0f);
      if (relu) o = o > 0 ? o : 0.0f;
      C[size_t(i) * p.N + j] = o;
    }
  }
  return C;
}

// The weight a code stands for, in double.
inline double int4_weight(const Int4Problem& p, int k, int j) {
  const size_t gi = size_t(k / p.group) * p.N + j;
  const double c = p.codes[size_t(k) * p.N + j];
  return p.kind == Int4Kind::symmetric ? p.scales[gi] * (c - 8) : p.scales[gi] * c + p.mins[gi];
}

// max |C - C_double| / bound over all elements (<= 1 passes). The float steps are one
// conversion and one fma per group term (two terms per group with minimums), the part
// additions and the final fma: at most n = 2 * groups + 4 roundings, each within
// u = 2^-24 of its result, so |error| <= gamma_n * (sa * sum of |terms| + |bias|),
// gamma_n = n u / (1 - n u).
inline double int4_error_ratio(const Int4Problem& p, int M, const float* A, int lda,
                               const float* bias, const std::vector<float>& C) {
  const double n = 2.0 * p.groups() + 4, u = 0x1p-24, gamma = n * u / (1 - n * u);
  double worst = 0;
  for (int i = 0; i < M; ++i) {
    const QuantRow a = quantize_row(A + size_t(i) * lda, p.K);
    for (int j = 0; j < p.N; ++j) {
      double exact = 0, mag = 0;
      for (int g = 0; g < p.groups(); ++g) {
        double P = 0, R = 0;
        for (int k = g * p.group; k < std::min(p.K, (g + 1) * p.group); ++k) {
          P += double(a.q[k]) * p.codes[size_t(k) * p.N + j];
          R += a.q[k];
        }
        const size_t gi = size_t(g) * p.N + j;
        const double t1 = p.kind == Int4Kind::symmetric ? p.scales[gi] * (P - 8 * R) : p.scales[gi] * P;
        const double t2 = p.kind == Int4Kind::symmetric ? 0.0 : double(p.mins[gi]) * R;
        exact += t1 + t2;
        mag += std::fabs(t1) + std::fabs(t2);
      }
      const double b = bias ? bias[j] : 0.0;
      const double ref = a.scale * exact + b;
      const double bound = gamma * (a.scale * mag + std::fabs(b)) + 1e-30;
      worst = std::max(worst, std::fabs(C[size_t(i) * p.N + j] - ref) / bound);
    }
  }
  return worst;
}

}  // namespace quire::test
