// The sparse AdaGrad loops without vector instructions: adagrad_simd.h over one-lane
// "vectors" (std::fma and std::sqrt round once, as vfmadd and vsqrtps do).
#include <bit>
#include <cmath>

#include "embedding/adagrad_simd.h"

namespace quire::detail {
namespace {

struct Scalar {
  static constexpr int W = 1;
  using F = float;
  using I = int32_t;
  struct Lanes {
    explicit Lanes(int) {}
  };
  static F zerof() { return 0.0f; }
  static F set1f(float x) { return x; }
  static I set1i(int32_t x) { return x; }
  static F load(const float* p, const Lanes&) { return *p; }
  static void store(float* p, const Lanes&, F v) { *p = v; }
  static I load(const int32_t* p) { return *p; }
  static void store(int32_t* p, I v) { *p = v; }
  static F add(F a, F b) { return a + b; }
  static F mul(F a, F b) { return a * b; }
  static F div(F a, F b) { return a / b; }
  static F sqrt(F a) { return std::sqrt(a); }
  static F fmadd(F a, F b, F c) { return std::fma(a, b, c); }
  static I addi(I a, I b) { return static_cast<I>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b)); }
  static I xori(I a, I b) { return a ^ b; }
  static I ori(I a, I b) { return a | b; }
  static I andi(I a, I b) { return a & b; }
  template <int N>
  static I srli(I v) {
    return static_cast<I>(static_cast<uint32_t>(v) >> N);
  }
  template <int N>
  static I slli(I v) {
    return static_cast<I>(static_cast<uint32_t>(v) << N);
  }
  static I srlv(I v, I s) { return static_cast<I>(static_cast<uint32_t>(v) >> s); }
  static I bits(F v) { return std::bit_cast<I>(v); }
  static F as_float(I v) { return std::bit_cast<F>(v); }
  static F load_half(const float16* p) { return cpu_half2float(*p); }
  static void store_half_rz(float16* p, F v) { *p = cpu_float2half_rz(v); }
};

}  // namespace

constinit const AdagradKernels kAdagradPortable = make_adagrad_kernels<Scalar>();

}  // namespace quire::detail
