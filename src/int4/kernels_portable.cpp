// The portable W4A8 kernels: the contract of int4_kernels.h in plain C++, for CPUs
// without AVX2 and as the path the others must match bit for bit.
#include <cmath>
#include <cstring>

#include "int4/int4_kernels.h"
#include "quire/FloatConversion.h"

namespace quire::int4 {
namespace {

float scale_at(const void* base, Int4ScaleType st, int64_t i) {
  switch (st) {
    case Int4ScaleType::f32: return static_cast<const float*>(base)[i];
    case Int4ScaleType::f16: return cpu_half2float(static_cast<const float16*>(base)[i]);
    case Int4ScaleType::bf16: return cpu_bf162float(static_cast<const bfloat16*>(base)[i]);
  }
  return 0.0f;
}

void run(const Int4KernelArgs& p, int rows, Int4ScaleType st, bool scale_min) {
  constexpr int kPanel = Int4Layout::kPanel;
  float acc[kInt4MaxRows][kPanel] = {};
  const uint8_t* w = p.codes;
  const int8_t* a = p.a;
  for (int g = 0; g < p.groups; ++g) {
    const int k8 = g + 1 == p.groups ? p.last_k8 : p.group_k8;
    int32_t P[kInt4MaxRows][kPanel] = {};
    for (int t = 0; t < k8; ++t, w += Int4Layout::kBlockBytes, a += 8) {
      for (int j = 0; j < kPanel; ++j) {
        // Column j: chunk j / 16, byte 4 * (j % 16) + r for K steps r and 4 + r.
        const uint8_t* b = w + 64 * (j / 16) + 4 * (j % 16);
        for (int r = 0; r < rows; ++r) {
          const int8_t* ar = a + r * p.lda;
          int32_t sum = 0;
          for (int q = 0; q < 4; ++q) sum += ar[q] * (b[q] & 15) + ar[4 + q] * (b[q] >> 4);
          P[r][j] += sum;
        }
      }
    }
    for (int r = 0; r < rows; ++r) {
      const int32_t R = p.rsum[r * p.ld_rsum + g];
      for (int j = 0; j < kPanel; ++j) {
        const float s = scale_at(p.scales, st, int64_t{g} * kPanel + j);
        if (scale_min) {
          acc[r][j] = std::fma(static_cast<float>(P[r][j]), s, acc[r][j]);
          acc[r][j] = std::fma(p.mins[int64_t{g} * kPanel + j], static_cast<float>(R), acc[r][j]);
        } else {
          acc[r][j] = std::fma(static_cast<float>(P[r][j] - 8 * R), s, acc[r][j]);
        }
      }
    }
  }
  for (int r = 0; r < rows; ++r) {
    float* c = p.c + r * p.ldc;
    if (!p.final_output) {
      std::memcpy(c, acc[r], sizeof(float) * kPanel);
      continue;
    }
    for (int j = 0; j < p.cols; ++j) {
      float o = std::fma(p.a_scale[r], acc[r][j], p.bias ? p.bias[j] : 0.0f);
      if (p.relu) o = o > 0.0f ? o : 0.0f;
      c[j] = o;
    }
  }
}

template <int MR, Int4ScaleType ST, bool kMin>
void kernel(const Int4KernelArgs& p) {
  run(p, MR, ST, kMin);
}

constexpr Int4Kernels make_kernels() {
  Int4Kernels k{"int4_portable", 4, {}};
  using ST = Int4ScaleType;
  auto fill = [&]<bool kMin, ST S>() {
    auto& row = k.fn[kMin ? 1 : 0][static_cast<int>(S)];
    row[1] = &kernel<1, S, kMin>;
    row[2] = &kernel<2, S, kMin>;
    row[3] = &kernel<3, S, kMin>;
    row[4] = &kernel<4, S, kMin>;
  };
  fill.template operator()<false, ST::f32>();
  fill.template operator()<false, ST::f16>();
  fill.template operator()<false, ST::bf16>();
  fill.template operator()<true, ST::f32>();
  fill.template operator()<true, ST::f16>();
  fill.template operator()<true, ST::bf16>();
  return k;
}

}  // namespace

const Int4Kernels kInt4Portable = make_kernels();

}  // namespace quire::int4
