// The packed-weight GEMM (quire/FbgemmFP16.h, FbgemmBF16.h, FbgemmFP32.h) on every kernel
// path this CPU has, against a double-precision reference.
//
// The bound. Every path computes, per element, acc_0 = fl(beta * c) and then K (fp16)
// or 2 * ceil(K / 2) (bf16) steps acc = fl(acc + a * w), each one rounding of an exact
// sum (an FMA; for bf16 the product of two bf16 values is exact in fp32, and a padded
// zero pair adds 0 exactly). Unrolling, with |delta| <= u = 2^-24 per rounding:
//   acc_K = beta c prod_{l=0..K} (1 + delta_l) + sum_k a_k w_k prod_{l=k..K} (1 + delta_l)
// and each product of at most K + 1 factors is within gamma(K + 1) of 1, so
//   |C - C_ref| <= gamma(K + 1) * (|beta c| + sum_k |a_k w_k|),  gamma(n) = n u / (1 - n u)
// where C_ref uses the values the kernels multiply: the packed weights w (alpha * B
// rounded once to fp16 / bf16) and, on the bf16 paths, A rounded to bf16. So c = 1 in
// |C - C_ref| <= c * (K + 1) * u * sum |A||w| to first order. The reference itself is
// summed in double: K * 2^-53 * the same sum more, which the checks add.
//
// fp32 weights take the fp16 steps with w = alpha * B unrounded (exact for alpha = 1).
//
// Against the original floats (alpha = 1), each rounded value adds its own error:
// |w - b| <= max(u_h |b|, h_min / 2) with u_h = 2^-11 and h_min = 2^-24 for fp16 (the
// second term covers subnormal halves), u_h = 2^-9 for bf16 (and the same for A on the
// bf16 paths), 0 for fp32, which the BoundAgainstOriginalFloats tests check.
//
// Every path takes the same steps in the same order, so all paths of a weight type give
// the same bits, for any thread count and any K block: checked bit for bit too.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "quire/FbgemmBF16.h"
#include "quire/FbgemmFP32.h"
#include "../src/fp16/half_gemm.h"
#include "test_util.h"

namespace quire::test {
namespace {

using detail::ActType;
using detail::HalfType;

struct Problem {
  int m, n, k;
  matrix_op_t transa = matrix_op_t::NoTranspose;
  matrix_op_t transb = matrix_op_t::NoTranspose;
  float alpha = 1.0f, beta = 0.0f;
  int brow = 512;
  int threads = 1;
};

std::string describe(const Problem& p) {
  return "m=" + std::to_string(p.m) + " n=" + std::to_string(p.n) + " k=" + std::to_string(p.k) +
         " At=" + std::to_string(p.transa == matrix_op_t::Transpose) +
         " Bt=" + std::to_string(p.transb == matrix_op_t::Transpose) +
         " alpha=" + std::to_string(p.alpha) + " beta=" + std::to_string(p.beta) +
         " brow=" + std::to_string(p.brow) + " threads=" + std::to_string(p.threads);
}

std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

template <class T>
constexpr HalfType kType = std::is_same_v<T, float16>    ? HalfType::fp16
                           : std::is_same_v<T, bfloat16> ? HalfType::bf16
                                                         : HalfType::fp32;

template <class T>
float to_float(T h) {
  if constexpr (std::is_same_v<T, float16>) return cpu_half2float(h);
  else if constexpr (std::is_same_v<T, bfloat16>) return cpu_bf162float(h);
  else return h;
}

// Row-major m x k (or k x m when transposed) storage of a logical m x k matrix.
std::vector<float> stored(const std::vector<float>& x, int rows, int cols, matrix_op_t op) {
  if (op == matrix_op_t::NoTranspose) return x;
  std::vector<float> t(x.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) t[size_t(c) * rows + r] = x[size_t(r) * cols + c];
  return t;
}

// Everything one problem needs: the operands, the packed weights, the values the kernels
// multiply, and the reference with its error bound.
template <class T>
struct Fixture {
  Problem p;
  std::vector<float> a;      // logical m x k
  std::vector<float> a_src;  // as passed (transposed per transa)
  std::vector<float> c0;     // C before the call (NaN when beta == 0: must not be read)
  std::vector<float> b_src;  // B as passed (transposed per transb)
  PackedGemmMatrixB<T> bp;
  PackedGemmMatrixB<T> one_block;  // the same weights packed as one K block
  std::vector<double> ref, bound;

  Fixture(const Problem& prob, uint32_t seed)
      : p(prob),
        a(random_floats(size_t(p.m) * p.k, seed)),
        a_src(stored(a, p.m, p.k, p.transa)),
        c0(p.beta == 0.0f ? std::vector<float>(size_t(p.m) * p.n, std::nanf(""))
                          : random_floats(size_t(p.m) * p.n, seed + 2)),
        b_src(stored(random_floats(size_t(p.k) * p.n, seed + 1), p.k, p.n, p.transb)),
        bp(p.transb, p.k, p.n, p.alpha, b_src.data(), p.brow),
        one_block(p.transb, p.k, p.n, p.alpha, b_src.data(), p.k + p.k % 2) {
    std::vector<T> w16(size_t(p.k) * p.n);
    bp.unpack(w16.data(), matrix_op_t::NoTranspose);
    const bool round_a = kType<T> == HalfType::bf16;
    const double gamma = (p.k + 1) * 0x1p-24 / (1 - (p.k + 1) * 0x1p-24) + p.k * 0x1p-53;
    ref.resize(size_t(p.m) * p.n);
    bound.resize(ref.size());
    for (int i = 0; i < p.m; ++i) {
      for (int j = 0; j < p.n; ++j) {
        const size_t ij = size_t(i) * p.n + j;
        double sum = p.beta == 0.0f ? 0.0 : double(p.beta * c0[ij]), mag = std::fabs(sum);
        for (int k = 0; k < p.k; ++k) {
          const float x = a[size_t(i) * p.k + k];
          const double av = round_a ? cpu_bf162float(float_to_bfloat16_rne(x)) : x;
          const double prod = av * to_float(w16[size_t(k) * p.n + j]);
          sum += prod;
          mag += std::fabs(prod);
        }
        ref[ij] = sum;
        bound[ij] = gamma * mag;
      }
    }
  }

  // C from one path, the thread calls made one after another (by default with the
  // problem's K block and thread count).
  std::vector<float> run(const detail::HalfKernelSet& set, bool one_k_block = false,
                         int threads = 0) const {
    const PackedGemmMatrixB<T>& b = one_k_block ? one_block : bp;
    threads = threads ? threads : p.threads;
    std::vector<float> c = c0;
    const detail::HalfGemmCall call{kType<T>, ActType::f32, p.transa, p.m, p.n, p.k,
                                    a_src.data(), b.data(), b.blockRowSize(), p.beta, c.data()};
    for (int t = 0; t < threads; ++t) detail::half_gemm(call, set, t, threads);
    return c;
  }

  // Elements outside the bound (printing the first few).
  int outside(const std::vector<float>& c, const std::string& what) const {
    int bad = 0;
    for (size_t e = 0; e < c.size(); ++e) {
      if (std::fabs(c[e] - ref[e]) <= bound[e]) continue;
      if (++bad <= 3) {
        ADD_FAILURE() << what << " " << describe(p) << " element " << e << ": " << c[e]
                      << " vs " << ref[e] << ", bound " << bound[e];
      }
    }
    return bad;
  }
};

bool same_bits(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), sizeof(float) * x.size()) == 0;
}

// m from 1 to 130 with n and k that are not multiples of the panel or block sizes,
// cycling through beta 0 / 1 / -0.75, transposes, K blocks and thread counts; then a few
// large ones (several K blocks, several M blocks, wide tails).
std::vector<Problem> sweep() {
  std::vector<Problem> ps;
  const float betas[] = {0.0f, 1.0f, -0.75f};
  const int brows[] = {512, 7, 64};
  for (int m = 1; m <= 130; ++m) {
    Problem p{m, 1 + (m * 29) % 83, 1 + (m * 53) % 149};
    p.beta = betas[m % 3];
    p.brow = brows[(m / 3) % 3];
    p.transa = m % 4 == 1 ? matrix_op_t::Transpose : matrix_op_t::NoTranspose;
    p.transb = m % 5 == 2 ? matrix_op_t::Transpose : matrix_op_t::NoTranspose;
    p.alpha = m % 7 == 0 ? 1.7f : 1.0f;
    p.threads = 1 + m % 3;
    ps.push_back(p);
  }
  ps.push_back({119, 512, 512});
  ps.push_back({1, 1000, 1300, matrix_op_t::NoTranspose, matrix_op_t::NoTranspose, 1.0f, 1.0f});
  ps.push_back({130, 161, 1025, matrix_op_t::NoTranspose, matrix_op_t::Transpose, 0.5f, -0.75f,
                512, 2});
  ps.push_back({300, 33, 77, matrix_op_t::Transpose, matrix_op_t::NoTranspose, 1.0f, 0.0f, 512, 3});
  // Rows 4 KiB apart (copied, not read in place), and a K block of 1024 (padded buffer rows).
  ps.push_back({29, 70, 1024, matrix_op_t::NoTranspose, matrix_op_t::NoTranspose, 1.0f, 1.0f, 300});
  ps.push_back({17, 40, 2048, matrix_op_t::NoTranspose, matrix_op_t::NoTranspose, 1.0f, 0.0f, 1024, 2});
  // A last K block (1024) whose padded rows are longer than the first block's (1030).
  ps.push_back({126, 40, 2054, matrix_op_t::NoTranspose, matrix_op_t::NoTranspose, 1.0f, 1.0f, 1030});
  return ps;
}

template <class T>
void check_every_path() {
  const std::vector<const detail::HalfKernelSet*> sets = detail::half_kernel_sets(kType<T>);
  uint32_t seed = 1;
  for (const Problem& p : sweep()) {
    const Fixture<T> s(p, seed += 3);
    std::vector<float> first;
    for (const detail::HalfKernelSet* set : sets) {
      const std::string name = detail::half_kernel_set_name(*set);
      const std::vector<float> c = s.run(*set);
      ASSERT_EQ(s.outside(c, name), 0) << name << " " << describe(p);
      if (first.empty()) {
        first = c;
      } else {
        ASSERT_TRUE(same_bits(c, first)) << name << " differs from " << detail::half_kernel_set_name(*sets[0])
                                         << " " << describe(p);
      }
    }
    // One thread and one K block give the same bits as the split problem.
    ASSERT_TRUE(same_bits(s.run(*sets[0], true, 1), first))
        << "split changes results: " << describe(p);
  }
}

TEST(HalfGemm, Fp16EveryPathWithinBoundAndIdentical) { check_every_path<float16>(); }
TEST(HalfGemm, Bf16EveryPathWithinBoundAndIdentical) { check_every_path<bfloat16>(); }
TEST(HalfGemm, Fp32EveryPathWithinBoundAndIdentical) { check_every_path<float>(); }

// The public entry points under every instruction set: the dispatcher's choice runs and
// gives the bits of the portable path.
template <class T>
void check_public_api() {
  const Problem p{37, 70, 300, matrix_op_t::NoTranspose, matrix_op_t::Transpose, 1.0f, 1.0f, 128, 2};
  const Fixture<T> s(p, 99);
  const std::vector<float> expected = s.run(*detail::half_kernel_sets(kType<T>).back());
  for (const IsaCase& isa : all_isas()) {
    if (skip_unsupported(isa)) continue;
    ScopedIsa scoped(isa.isa);
    std::vector<float> c = s.c0;
    for (int t = 0; t < p.threads; ++t)
      cblas_gemm_compute(p.transa, p.m, s.a_src.data(), s.bp, p.beta, c.data(), t, p.threads);
    EXPECT_TRUE(same_bits(c, expected))
        << instSetName(isa.isa) << " runs " << detail::half_kernel_set_name(detail::active_half_kernels(kType<T>));
  }
}

TEST(HalfGemm, Fp16PublicApiOnEveryIsa) { check_public_api<float16>(); }
TEST(HalfGemm, Bf16PublicApiOnEveryIsa) { check_public_api<bfloat16>(); }
TEST(HalfGemm, Fp32PublicApiOnEveryIsa) { check_public_api<float>(); }

// bf16 activations: the bf16 x bf16 entry gives the bits of the fp32 entry, which rounds
// A to the same bf16 values itself, on every instruction set.
TEST(HalfGemm, Bf16ActivationsMatchFloatActivations) {
  const Problem problems[] = {
      {5, 67, 33, matrix_op_t::NoTranspose, matrix_op_t::NoTranspose, 1.0f, 1.0f},
      {20, 40, 131, matrix_op_t::Transpose, matrix_op_t::NoTranspose, 1.0f, 0.0f, 64}};
  for (const Problem& p : problems) {
    const Fixture<bfloat16> s(p, 7);
    std::vector<bfloat16> a16(s.a_src.size());
    for (size_t i = 0; i < a16.size(); ++i) a16[i] = float_to_bfloat16_rne(s.a_src[i]);
    for (const IsaCase& isa : all_isas()) {
      if (skip_unsupported(isa)) continue;
      ScopedIsa scoped(isa.isa);
      std::vector<float> c32 = s.c0, c16 = s.c0;
      cblas_gemm_compute(p.transa, p.m, s.a_src.data(), s.bp, p.beta, c32.data());
      cblas_gemm_compute(p.transa, p.m, a16.data(), s.bp, p.beta, c16.data());
      EXPECT_TRUE(same_bits(c32, c16)) << instSetName(isa.isa) << " " << describe(p);
      EXPECT_EQ(s.outside(c16, instSetName(isa.isa)), 0);
    }
  }
}

// Against the exact product of the original floats (alpha = 1): with a~ the A the
// kernels use (A itself for fp16, bf16(A) for bf16) and w the packed weights,
//   |C - sum a b| <= |C - sum a~ w| + sum_k |a~ w - a b|
//                 <= gamma(K + 1) sum |a~ w| + sum_k (|a| |w - b| + |a~ - a| |w|)
// with |w - b| <= max(u_h |b|, h_min / 2) and |a~ - a| <= u_h |a| (bf16 only). To first
// order: ((K + 1) 2^-24 + 2^-11) sum |A||B| for fp16, ((K + 1) 2^-24 + 2^-8) for bf16
// and (K + 1) 2^-24 for fp32.
template <class T>
void check_original_floats() {
  const bool bf16 = kType<T> == HalfType::bf16, fp32 = kType<T> == HalfType::fp32;
  const double u_h = fp32 ? 0 : bf16 ? 0x1p-9 : 0x1p-11;
  const double half_min = fp32 ? 0 : bf16 ? 0x1p-134 : 0x1p-25;
  const Problem p{40, 90, 700, matrix_op_t::NoTranspose, matrix_op_t::NoTranspose, 1.0f, 0.0f};
  const uint32_t seed = 11;
  const Fixture<T> s(p, seed);
  const std::vector<float> b = random_floats(size_t(p.k) * p.n, seed + 1);  // as Fixture made it
  std::vector<T> w16(b.size());
  s.bp.unpack(w16.data(), matrix_op_t::NoTranspose);
  const double gamma = (p.k + 1) * 0x1p-24 / (1 - (p.k + 1) * 0x1p-24) + p.k * 0x1p-53;
  for (const detail::HalfKernelSet* set : detail::half_kernel_sets(kType<T>)) {
    const std::vector<float> c = s.run(*set);
    int bad = 0;
    for (int i = 0; i < p.m; ++i) {
      for (int j = 0; j < p.n; ++j) {
        double exact = 0, used = 0, rounding = 0;
        for (int k = 0; k < p.k; ++k) {
          const double a = s.a[size_t(i) * p.k + k], bv = b[size_t(k) * p.n + j];
          const double w = to_float(w16[size_t(k) * p.n + j]);
          const double a_used = bf16 ? cpu_bf162float(float_to_bfloat16_rne(float(a))) : a;
          exact += a * bv;
          used += std::fabs(a_used * w);
          rounding += std::fabs(a) * std::max(u_h * std::fabs(bv), half_min) +
                      (bf16 ? u_h * std::fabs(a) * std::fabs(w) : 0.0);
        }
        const double err = std::fabs(c[size_t(i) * p.n + j] - exact);
        if (err > gamma * used + rounding && ++bad <= 3) {
          ADD_FAILURE() << detail::half_kernel_set_name(*set) << " (" << i << ", " << j
                        << "): error " << err << " > " << gamma * used + rounding;
        }
      }
    }
    EXPECT_EQ(bad, 0) << detail::half_kernel_set_name(*set);
  }
}

TEST(HalfGemm, Fp16BoundAgainstOriginalFloats) { check_original_floats<float16>(); }
TEST(HalfGemm, Bf16BoundAgainstOriginalFloats) { check_original_floats<bfloat16>(); }
TEST(HalfGemm, Fp32BoundAgainstOriginalFloats) { check_original_floats<float>(); }

}  // namespace
}  // namespace quire::test
