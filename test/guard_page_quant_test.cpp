// QuantUtils' array forms with their arrays flush against a PROT_NONE page
// (test/guard_alloc.h), at the end and then at the start, on every quantization path the
// CPU has (portable, AVX2, AVX-512), lengths around the vector widths and 1 to 3
// threads. The arrays are exactly len elements, as a caller allocates them. Each result
// is compared bit for bit with the scalar form applied element by element:
// Quantize / Dequantize / FusedQuantizeDequantize / Requantize / RequantizeFixedPoint
// (uint8, int8, uint16, int16, int32), FindMinMax, QuantizeGroupwise (KCX and KXC).
// The fused row-wise formats are in guard_page_rowwise_test.cpp.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "guard_alloc.h"
#include "quant_test_util.h"
#include "quire/QuantUtils.h"

namespace quire::test {
namespace {

const int64_t kLens[] = {0, 1, 3, 7, 15, 16, 17, 31, 63, 64, 65, 127, 1029};

std::vector<float> floats(size_t n, float span, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-span, span);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
TensorQuantizationParams params_for(uint32_t seed) {
  TensorQuantizationParams qp;
  std::mt19937 gen(seed);
  qp.precision = 8 * sizeof(T);
  qp.scale = std::uniform_real_distribution<float>(0.01f, 0.3f)(gen);
  // A zero point inside T's range (small for the wide types, so values do not all clip).
  const int lo = std::is_signed_v<T> ? -20 : 0;
  qp.zero_point = std::uniform_int_distribution<int>(lo, lo + 40)(gen);
  return qp;
}

template <class T>
void check_type(int64_t len, Guard g, int threads, uint32_t seed) {
  SCOPED_TRACE(std::string(guard_name(g)) + " len=" + std::to_string(len) +
               " T=" + std::to_string(threads) + " bytes=" + std::to_string(sizeof(T)) +
               (std::is_signed_v<T> ? " signed" : " unsigned"));
  const size_t n = size_t(len);
  const TensorQuantizationParams qp = params_for<T>(seed);
  const std::vector<float> src_v = floats(n, 80.0f * qp.scale, seed);
  const GuardedArray<float> src(src_v, g);

  GuardedArray<T> q(n, g);
  for (int t = 0; t < threads; ++t) Quantize<T>(src.data(), q.data(), len, qp, t, threads);
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(q[i], Quantize<T>(src[i], qp.zero_point, qp.scale, qp.precision,
                                std::is_signed_v<T>)) << "Quantize at " << i;

  GuardedArray<float> deq(n, g);
  for (int t = 0; t < threads; ++t) Dequantize<T>(q.data(), deq.data(), len, qp, t, threads);
  for (size_t i = 0; i < n; ++i)
    ASSERT_TRUE(same_bits(deq[i], Dequantize<T>(q[i], qp))) << "Dequantize at " << i;

  if constexpr (sizeof(T) == 1) {
    GuardedArray<float> fqd(n, g);
    for (int t = 0; t < threads; ++t)
      FusedQuantizeDequantize<T>(src.data(), fqd.data(), len, qp, t, threads);
    for (size_t i = 0; i < n; ++i)
      ASSERT_TRUE(same_bits(fqd[i], FusedQuantizeDequantize<T>(src[i], qp)))
          << "FusedQuantizeDequantize at " << i;
  }

  RequantizationParams rp;
  rp.real_multiplier = 0.0123f;
  ChooseRequantizationMultiplier(rp.real_multiplier, &rp.multiplier, &rp.right_shift);
  rp.target_qparams = qp;
  const GuardedArray<int32_t> wide(random_vector<int32_t>(n, -200000, 200000, seed + 1), g);
  GuardedArray<T> rq(n, g), rqf(n, g);
  for (int t = 0; t < threads; ++t) {
    Requantize<T>(wide.data(), rq.data(), len, rp, t, threads);
    RequantizeFixedPoint<T>(wide.data(), rqf.data(), len, rp, t, threads);
  }
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(rq[i], Requantize<T>(wide[i], rp)) << "Requantize at " << i;
    ASSERT_EQ(rqf[i], RequantizeFixedPoint<T>(wide[i], rp)) << "RequantizeFixedPoint at " << i;
  }
}

TEST(GuardPageQuant, ArrayFormsOnEveryPath) {
  for_each_isa([] {
    uint32_t seed = 1;
    for (Guard g : kGuards)
      for (int64_t len : kLens)
        for (int threads : {1, 3}) {
          check_type<uint8_t>(len, g, threads, ++seed);
          check_type<int8_t>(len, g, threads, ++seed);
          check_type<uint16_t>(len, g, threads, ++seed);
          check_type<int16_t>(len, g, threads, ++seed);
          check_type<int32_t>(len, g, threads, ++seed);
          if (HasFatalFailure()) return;
        }
  });
}

TEST(GuardPageQuant, FindMinMaxOnEveryPath) {
  for_each_isa([] {
    for (Guard g : kGuards)
      for (int64_t len : kLens) {
        const GuardedArray<float> m(floats(size_t(len), 100.0f, uint32_t(len)), g);
        GuardedArray<float> lo(1, g), hi(1, g);
        FindMinMax(m.data(), lo.data(), hi.data(), len);
        float want_lo = len ? m[0] : 0.0f, want_hi = want_lo;
        for (int64_t i = 1; i < len; ++i) {
          want_lo = std::min(want_lo, m[size_t(i)]);
          want_hi = std::max(want_hi, m[size_t(i)]);
        }
        EXPECT_EQ(lo[0], want_lo) << guard_name(g) << " len=" << len;
        EXPECT_EQ(hi[0], want_hi) << guard_name(g) << " len=" << len;
      }
  });
}

template <class T, layout_t L>
void check_groupwise(int K, int C, int X, int G, Guard g, uint32_t seed) {
  SCOPED_TRACE(std::string(guard_name(g)) + " K=" + std::to_string(K) + " C=" + std::to_string(C) +
               " X=" + std::to_string(X) + " G=" + std::to_string(G));
  const size_t n = size_t(K) * C * X;
  const GuardedArray<float> src(floats(n, 30.0f, seed), g);
  std::vector<float> scales_v(G);
  std::vector<int32_t> zps_v(G);
  for (int i = 0; i < G; ++i) {
    scales_v[i] = 0.05f + 0.01f * i;
    zps_v[i] = std::is_signed_v<T> ? i % 7 - 3 : i % 50;
  }
  const GuardedArray<float> scales(scales_v, g);
  const GuardedArray<int32_t> zps(zps_v, g);
  GuardedArray<T> dst(n, g);
  QuantizeGroupwise<T, L>(src.data(), K, C, X, G, scales.data(), zps.data(), dst.data());
  const int cpg = C / G;
  for (int k = 0; k < K; ++k)
    for (int c = 0; c < C; ++c)
      for (int x = 0; x < X; ++x) {
        const size_t i =
            L == layout_t::KCX ? (size_t(k) * C + c) * X + x : (size_t(k) * X + x) * C + c;
        const int q = c / cpg;
        ASSERT_EQ(dst[i], Quantize<T>(src[i], zps_v[q], scales_v[q], 8 * sizeof(T),
                                      std::is_signed_v<T>)) << k << " " << c << " " << x;
      }
}

TEST(GuardPageQuant, QuantizeGroupwiseOnEveryPath) {
  for_each_isa([] {
    uint32_t seed = 900;
    for (Guard g : kGuards)
      for (auto [K, C, X, G] : {std::array{1, 1, 1, 1}, {3, 17, 1, 17}, {2, 6, 9, 3},
                                std::array{1, 65, 3, 5}, {2, 64, 17, 1}}) {
        check_groupwise<uint8_t, layout_t::KCX>(K, C, X, G, g, ++seed);
        check_groupwise<uint8_t, layout_t::KXC>(K, C, X, G, g, ++seed);
        check_groupwise<int8_t, layout_t::KCX>(K, C, X, G, g, ++seed);
        check_groupwise<int8_t, layout_t::KXC>(K, C, X, G, g, ++seed);
        check_groupwise<int32_t, layout_t::KXC>(K, C, X, G, g, ++seed);
        if (HasFatalFailure()) return;
      }
  });
}

}  // namespace
}  // namespace quire::test
