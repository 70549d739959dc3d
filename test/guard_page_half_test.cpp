// The packed-weight GEMM (fp16, bf16, fp32 weights) with its caller-owned buffers flush against a PROT_NONE
// page (test/guard_alloc.h), at the end and then at the start: the weights packed from a
// guarded K x N source (and unpacked into a guarded K x N buffer), then
// cblas_gemm_compute with a guarded A (m x K floats, or bf16) and C (m x N) on every ISA
// path the CPU has, and detail::half_gemm with every kernel set the CPU can run
// (AVX-512 bf16 without AVX512-BF16 included). All paths must give the portable path's
// bits (the steps are the same on every path, see half_gemm_test.cpp), for odd m, n, k,
// K past the 512-deep block, transposed A and B, beta 0 (C not read) and nonzero.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "guard_alloc.h"
#include "quire/FbgemmBF16.h"
#include "quire/FbgemmFP32.h"
#include "../src/fp16/half_gemm.h"
#include "test_util.h"

namespace quire::test {
namespace {

using detail::ActType;
using detail::HalfType;

std::vector<float> floats(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

struct Shape {
  int m, n, k;
  matrix_op_t ta, tb;
  float beta;
  int threads;
};

std::vector<Shape> shapes() {
  const int ms[] = {1, 3, 17, 63, 65}, ns[] = {1, 3, 17, 33, 65}, ks[] = {1, 3, 17, 64, 513};
  std::vector<Shape> out;
  int i = 0;
  for (int m : ms)
    for (int n : ns) {
      const auto op = [&](int bit) {
        return (i >> bit) & 1 ? matrix_op_t::Transpose : matrix_op_t::NoTranspose;
      };
      out.push_back({m, n, ks[i % 5], op(0), op(1), i % 3 == 0 ? 0.0f : 0.75f, 1 + i % 3});
      ++i;
    }
  return out;
}

template <class T>
constexpr HalfType kType = std::is_same_v<T, float16>    ? HalfType::fp16
                           : std::is_same_v<T, bfloat16> ? HalfType::bf16
                                                         : HalfType::fp32;

bool same_bits(const std::vector<float>& want, const GuardedArray<float>& got) {
  return std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) == 0;
}

// A (as passed) in ActT, guarded.
template <class ActT>
GuardedArray<ActT> guarded_a(const std::vector<float>& a, Guard g) {
  if constexpr (std::is_same_v<ActT, float>) {
    return GuardedArray<ActT>(a, g);
  } else {
    std::vector<bfloat16> h(a.size());
    for (size_t i = 0; i < a.size(); ++i) h[i] = cpu_float2bfloat16(a[i]);
    return GuardedArray<ActT>(h, g);
  }
}

template <class T, class ActT>
void check(const Shape& s, Guard g, uint32_t seed) {
  SCOPED_TRACE(std::string(guard_name(g)) + " m=" + std::to_string(s.m) + " n=" +
               std::to_string(s.n) + " k=" + std::to_string(s.k) +
               " At=" + std::to_string(s.ta == matrix_op_t::Transpose) +
               " Bt=" + std::to_string(s.tb == matrix_op_t::Transpose) +
               " beta=" + std::to_string(s.beta) + " T=" + std::to_string(s.threads) +
               (std::is_same_v<ActT, float> ? " A=fp32" : " A=bf16"));
  const GuardedArray<float> b(floats(size_t(s.k) * s.n, seed), g);
  const PackedGemmMatrixB<T> bp(s.tb, s.k, s.n, 1.0f, b.data());
  GuardedArray<T> unpacked(size_t(s.k) * s.n, g);
  bp.unpack(unpacked.data(), s.tb);
  const std::vector<float> a_v = floats(size_t(s.m) * s.k, seed + 1);
  const GuardedArray<ActT> a = guarded_a<ActT>(a_v, g);
  const std::vector<float> c0 = s.beta == 0.0f ? std::vector<float>(size_t(s.m) * s.n, std::nanf(""))
                                               : floats(size_t(s.m) * s.n, seed + 2);
  constexpr ActType kAct = std::is_same_v<ActT, float> ? ActType::f32 : ActType::bf16;
  const auto run_set = [&](const detail::HalfKernelSet& set, float* c) {
    const detail::HalfGemmCall call{kType<T>, kAct, s.ta, s.m, s.n, s.k, a.data(), bp.data(),
                                    bp.blockRowSize(), s.beta, c};
    for (int t = 0; t < s.threads; ++t) detail::half_gemm(call, set, t, s.threads);
  };
  const std::vector<const detail::HalfKernelSet*> sets = detail::half_kernel_sets(kType<T>);
  std::vector<float> want = c0;
  run_set(*sets.back(), want.data());  // the portable path, last (best first)
  for (const detail::HalfKernelSet* set : sets) {
    GuardedArray<float> c(c0, g);
    run_set(*set, c.data());
    EXPECT_TRUE(same_bits(want, c)) << detail::half_kernel_set_name(*set);
  }
  for (const IsaCase& isa : all_isas()) {
    if (skip_unsupported(isa)) continue;
    ScopedIsa scoped(isa.isa);
    GuardedArray<float> c(c0, g);
    for (int t = 0; t < s.threads; ++t)
      cblas_gemm_compute(s.ta, s.m, a.data(), bp, s.beta, c.data(), t, s.threads);
    EXPECT_TRUE(same_bits(want, c)) << "cblas_gemm_compute on " << instSetName(isa.isa);
  }
}

TEST(GuardPageHalf, PackingAndGemmOnEveryPath) {
  uint32_t seed = 11;
  for (Guard g : kGuards)
    for (const Shape& s : shapes()) {
      check<float16, float>(s, g, ++seed);
      check<float, float>(s, g, ++seed);
      check<bfloat16, float>(s, g, ++seed);
      check<bfloat16, bfloat16>(s, g, ++seed);
      if (HasFailure()) return;
    }
}

}  // namespace
}  // namespace quire::test
