// Fuzzer for the packed-weight GEMM (cblas_gemm_compute with fp16, bf16 or fp32
// weights, fp32 or bf16 activations): the input chooses the ISA path, m, n, k, the
// transposes, alpha, beta, the K block (brow), the thread split (calls one after another)
// and the operand values (finite, |x| <= 2^10 so nothing overflows). Checked:
//  - every kernel set the CPU can run gives the same bits as the active path;
//  - the result is within the error bound of test/half_gemm_test.cpp:
//      |C - C_ref| <= gamma(K' + 1) * (|beta c| + sum_k |a_k w_k|) + K' 2^-53 (same sum)
//    with gamma(n) = n u / (1 - n u), u = 2^-24, K' = k (fp16, fp32) or 2 ceil(k / 2) (bf16),
//    and C_ref summed in double over the values the kernels multiply: the packed
//    weights (read back with unpack) and, on the bf16 paths, A rounded to bf16 (to
//    nearest even, as the kernels round it);
//  - with beta = 0, C's previous contents (NaN here) are not read.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz_util.h"
#include "quire/FbgemmBF16.h"
#include "quire/FbgemmFP32.h"
#include "../src/fp16/half_gemm.h"

namespace quire::fuzz {
namespace {

using detail::ActType;
using detail::HalfType;

float to_float(float16 h) { return cpu_half2float(h); }
float to_float(bfloat16 h) { return cpu_bf162float(h); }
float to_float(float x) { return x; }

std::vector<float> values(FuzzedDataProvider& in, size_t n) {
  std::vector<float> v(n);
  const float unit = in.ConsumeBool() ? 0x1p-10f : 0x1p-20f;
  for (float& x : v) x = float(in.ConsumeIntegralInRange<int32_t>(-(1 << 20), 1 << 20)) * unit;
  return v;
}

template <class T, class ActT>
void run(FuzzedDataProvider& in) {
  constexpr HalfType kType = std::is_same_v<T, float16>    ? HalfType::fp16
                             : std::is_same_v<T, bfloat16> ? HalfType::bf16
                                                           : HalfType::fp32;
  constexpr bool kBf16A = std::is_same_v<ActT, bfloat16>;
  const int m = in.ConsumeIntegralInRange(1, 40), n = in.ConsumeIntegralInRange(1, 80);
  const int k = in.ConsumeIntegralInRange(1, 300);
  const matrix_op_t ta = in.ConsumeBool() ? matrix_op_t::Transpose : matrix_op_t::NoTranspose;
  const matrix_op_t tb = in.ConsumeBool() ? matrix_op_t::Transpose : matrix_op_t::NoTranspose;
  const float alphas[] = {1.0f, 0.5f, -2.0f, 0.1f};
  const float alpha = alphas[in.ConsumeIntegralInRange(0, 3)];
  const float betas[] = {0.0f, 1.0f, -0.75f, 3.0f};
  const float beta = betas[in.ConsumeIntegralInRange(0, 3)];
  const int brow = in.ConsumeIntegralInRange(1, 600);
  const int threads = in.ConsumeIntegralInRange(1, 5);
  const std::vector<float> b = values(in, size_t(k) * n);  // stored per tb
  const std::vector<float> a32 = values(in, size_t(m) * k);  // stored per ta
  const std::vector<float> c0 = beta == 0.0f ? std::vector<float>(size_t(m) * n, std::nanf(""))
                                             : values(in, size_t(m) * n);
  std::vector<ActT> a(a32.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if constexpr (kBf16A) a[i] = float_to_bfloat16_rne(a32[i]);
    else a[i] = a32[i];
  }
  const PackedGemmMatrixB<T> bp(tb, k, n, alpha, b.data(), brow);
  std::vector<float> c = c0;
  for (int t = 0; t < threads; ++t) cblas_gemm_compute(ta, m, a.data(), bp, beta, c.data(), t, threads);

  // Every kernel set gives the active path's bits.
  for (const detail::HalfKernelSet* set : detail::half_kernel_sets(kType)) {
    std::vector<float> c2 = c0;
    const detail::HalfGemmCall call{kType, kBf16A ? ActType::bf16 : ActType::f32, ta, m, n, k,
                                    a.data(), bp.data(), brow, beta, c2.data()};
    for (int t = 0; t < threads; ++t) detail::half_gemm(call, *set, t, threads);
    FUZZ_CHECK(std::memcmp(c.data(), c2.data(), c.size() * sizeof(float)) == 0);
  }

  std::vector<T> w(size_t(k) * n);
  bp.unpack(w.data(), matrix_op_t::NoTranspose);
  const bool round_a = kType == HalfType::bf16;
  const int steps = kType == HalfType::bf16 ? 2 * ((k + 1) / 2) : k;
  const double u = 0x1p-24, gamma = (steps + 1) * u / (1 - (steps + 1) * u) + steps * 0x1p-53;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = beta == 0.0f ? 0.0 : double(beta * c0[size_t(i) * n + j]);
      double mag = std::fabs(sum);
      for (int kk = 0; kk < k; ++kk) {
        const float x = ta == matrix_op_t::Transpose ? a32[size_t(kk) * m + i] : a32[size_t(i) * k + kk];
        // The bf16 kernels round fp32 A to nearest even (float_to_bfloat16_rne), not with
        // FBGEMM's cpu_float2bfloat16 (ties away from zero).
        const double av = round_a ? cpu_bf162float(float_to_bfloat16_rne(x)) : x;
        const double prod = av * to_float(w[size_t(kk) * n + j]);
        sum += prod;
        mag += std::fabs(prod);
      }
      const float got = c[size_t(i) * n + j];
      FUZZ_CHECK(std::isfinite(got));
      FUZZ_CHECK(std::fabs(double(got) - sum) <= gamma * mag);
    }
}

}  // namespace
}  // namespace quire::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace quire;
  using namespace quire::fuzz;
  FuzzedDataProvider in(data, size);
  ScopedIsa isa(pick_isa(in));
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0: run<float16, float>(in); break;
    case 1: run<bfloat16, float>(in); break;
    case 2: run<bfloat16, bfloat16>(in); break;
    case 3: run<float, float>(in); break;
  }
  return 0;
}
