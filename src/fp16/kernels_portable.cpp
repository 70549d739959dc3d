// Portable C++ kernels of the packed-weight GEMM (fp16, bf16, fp32 weights), and the
// scalar A conversion.
// std::fma gives the single rounding of the vector FMA, so every path gives these bits.
#include <cmath>
#include <cstring>
#include <utility>

#include "fp16/half_kernels.h"
#include "quire/FloatConversion.h"

namespace quire::detail {
namespace {

constexpr int kPortableMr = 4;

template <int MR>
struct PortableAcc {
  float v[MR][kHalfPanel];

  explicit PortableAcc(const HalfKernelArgs& p) {
    for (int i = 0; i < MR; ++i) {
      for (int j = 0; j < kHalfPanel; ++j) {
        const float c = j < p.cols && p.beta != 0.0f ? p.c[i * p.ldc + j] : 0.0f;
        v[i][j] = p.beta == 1.0f ? c : p.beta * c;
      }
    }
  }
  void store(const HalfKernelArgs& p) const {
    for (int i = 0; i < MR; ++i)
      for (int j = 0; j < p.cols; ++j) p.c[i * p.ldc + j] = v[i][j];
  }
};

float widen(uint16_t h) { return cpu_half2float(float16{h}); }
float widen(float x) { return x; }

// One panel of fp16 (E = uint16_t) or fp32 weights: acc[i][j] = fma(A[i][k], w[k][j],
// acc[i][j]) for each k.
template <class E, int MR>
void one_step_tile(const HalfKernelArgs& p) {
  PortableAcc<MR> acc(p);
  const float* a = static_cast<const float*>(p.a);
  const E* b = static_cast<const E*>(p.b);
  for (int64_t s = 0; s < p.steps; ++s, b += kHalfPanel) {
    float w[kHalfPanel];
    for (int j = 0; j < kHalfPanel; ++j) w[j] = widen(b[j]);
    for (int i = 0; i < MR; ++i) {
      const float x = a[i * p.lda + s];
      for (int j = 0; j < kHalfPanel; ++j) acc.v[i][j] = std::fma(x, w[j], acc.v[i][j]);
    }
  }
  acc.store(p);
}

// One panel of bf16 pairs: for each pair of k, the odd k first, then the even one.
template <int MR>
void bf16_tile(const HalfKernelArgs& p) {
  PortableAcc<MR> acc(p);
  const float* a = static_cast<const float*>(p.a);
  const uint16_t* b = static_cast<const uint16_t*>(p.b);
  for (int64_t s = 0; s < p.steps; ++s, b += 2 * kHalfPanel) {
    float odd[kHalfPanel], even[kHalfPanel];
    for (int j = 0; j < kHalfPanel; ++j) {
      even[j] = cpu_bf162float(bfloat16{b[2 * j]});
      odd[j] = cpu_bf162float(bfloat16{b[2 * j + 1]});
    }
    for (int i = 0; i < MR; ++i) {
      const float x_odd = a[i * p.lda + 2 * s + 1], x_even = a[i * p.lda + 2 * s];
      for (int j = 0; j < kHalfPanel; ++j) {
        acc.v[i][j] = std::fma(x_odd, odd[j], acc.v[i][j]);
        acc.v[i][j] = std::fma(x_even, even[j], acc.v[i][j]);
      }
    }
  }
  acc.store(p);
}

template <template <int> class Kernel>
constexpr HalfKernelSet portable_set(const char* name, HalfType weights, AFormat fmt,
                                     ConvertAFn convert) {
  HalfKernelSet s{name, weights, fmt, kPortableMr, 64, {}, {}, convert};
  [&]<int... R>(std::integer_sequence<int, R...>) {
    ((s.main[R + 1] = HalfTile{&Kernel<R + 1>::run, kHalfPanel}), ...);
    ((s.edge[R + 1] = HalfTile{&Kernel<R + 1>::run, kHalfPanel}), ...);
  }(std::make_integer_sequence<int, kPortableMr>{});
  return s;
}

template <int MR>
struct Fp16Tile {
  static void run(const HalfKernelArgs& p) { one_step_tile<uint16_t, MR>(p); }
};
template <int MR>
struct Fp32Tile {
  static void run(const HalfKernelArgs& p) { one_step_tile<float, MR>(p); }
};
template <int MR>
struct Bf16Tile {
  static void run(const HalfKernelArgs& p) { bf16_tile<MR>(p); }
};

void convert_a_f32_pairs(const void* src, ActType act, int64_t ld, int rows, int cols,
                         int cols_pad, void* dst, int64_t ld_dst) {
  convert_a_scalar(AFormat::f32_pairs, src, act, ld, false, rows, cols, cols_pad, dst, ld_dst);
}

// The A value element idx holds, as the bits of the format's element.
float a_as_float(const void* src, ActType act, int64_t idx) {
  if (act == ActType::f32) return static_cast<const float*>(src)[idx];
  return cpu_bf162float(static_cast<const bfloat16*>(src)[idx]);
}

}  // namespace

void convert_a_scalar(AFormat fmt, const void* src, ActType act, int64_t ld, bool transposed,
                      int rows, int cols, int cols_pad, void* dst, int64_t ld_dst) {
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols_pad; ++c) {
      const int64_t idx = transposed ? c * ld + r : r * ld + c;
      const int64_t out = r * ld_dst + c;
      if (fmt == AFormat::bf16_pairs) {
        uint16_t bits = 0;
        if (c < cols) {
          bits = act == ActType::bf16 ? static_cast<const bfloat16*>(src)[idx].val
                                      : float_to_bfloat16_rne(a_as_float(src, act, idx)).val;
        }
        static_cast<uint16_t*>(dst)[out] = bits;
        continue;
      }
      float x = c < cols ? a_as_float(src, act, idx) : 0.0f;
      if (fmt == AFormat::f32_pairs && act == ActType::f32) x = cpu_bf162float(float_to_bfloat16_rne(x));
      static_cast<float*>(dst)[out] = x;
    }
  }
}

const HalfKernelSet kHalfFp16Portable =
    portable_set<Fp16Tile>("fp16_portable", HalfType::fp16, AFormat::f32, nullptr);
const HalfKernelSet kHalfBf16Portable = portable_set<Bf16Tile>(
    "bf16_portable", HalfType::bf16, AFormat::f32_pairs, &convert_a_f32_pairs);
const HalfKernelSet kHalfFp32Portable =
    portable_set<Fp32Tile>("fp32_portable", HalfType::fp32, AFormat::f32, nullptr);

}  // namespace quire::detail
