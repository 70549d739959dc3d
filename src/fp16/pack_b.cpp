// Packing the weights of the half-precision GEMM into panels (layout in
// quire/detail/HalfGemm.h) and back. Done once per weight matrix, so plain loops: the
// destination is written in order, the source read 32 columns (a panel row) at a time.
#include <cmath>
#include <cstring>

#include "quire/FloatConversion.h"
#include "quire/detail/HalfGemm.h"

namespace quire::detail {
namespace {

constexpr uint16_t kSign = 0x8000u;

// round(x) in the target type; a finite x beyond its range becomes the largest finite
// value of x's sign (fp16: 65504, bf16: 0x7f7f), infinities and NaN stay.
uint16_t to_half_bits(HalfType type, float x) {
  const bool fp16 = type == HalfType::fp16;
  uint16_t h = fp16 ? cpu_float2half_rn(x).val : float_to_bfloat16_rne(x).val;
  const uint16_t inf = fp16 ? 0x7C00u : 0x7F80u;
  if ((h & ~kSign) == inf && std::isfinite(x)) h = static_cast<uint16_t>((h & kSign) | (inf - 1u));
  return h;
}

// Packed position of element (k, n).
int64_t packed_index(HalfType type, int64_t panel, int k, int n) {
  const int col = n % kHalfPanel;
  const int64_t base = n / kHalfPanel * panel;
  if (type == HalfType::fp16) return base + int64_t{k} * kHalfPanel + col;
  return base + int64_t{k / 2} * 2 * kHalfPanel + 2 * col + k % 2;
}

}  // namespace

void pack_half_weights(HalfType type, matrix_op_t trans, int nrow, int ncol, float alpha,
                       const float* smat, uint16_t* dst) {
  const int64_t panel = half_panel_elems(type, nrow);
  std::memset(dst, 0, sizeof(uint16_t) * half_packed_elems(type, nrow, ncol));
  const bool transposed = trans == matrix_op_t::Transpose;
  for (int k = 0; k < nrow; ++k) {
    for (int n = 0; n < ncol; ++n) {
      const float b = transposed ? smat[int64_t{n} * nrow + k] : smat[int64_t{k} * ncol + n];
      dst[packed_index(type, panel, k, n)] = to_half_bits(type, alpha * b);
    }
  }
}

void unpack_half_weights(HalfType type, const uint16_t* packed, int nrow, int ncol,
                         matrix_op_t trans, uint16_t* dst) {
  const int64_t panel = half_panel_elems(type, nrow);
  const bool transposed = trans == matrix_op_t::Transpose;
  for (int k = 0; k < nrow; ++k) {
    for (int n = 0; n < ncol; ++n) {
      const int64_t out = transposed ? int64_t{n} * nrow + k : int64_t{k} * ncol + n;
      dst[out] = packed[packed_index(type, panel, k, n)];
    }
  }
}

}  // namespace quire::detail
