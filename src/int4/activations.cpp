// Quantization of int4Gemm's activations (activations.h).
#include "int4/activations.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "quire/QuantUtils.h"

namespace quire::int4 {

int64_t quantized_row_bytes(const detail::Int4Layout& l) {
  const int64_t k = int64_t{l.kp8} * detail::Int4Layout::kBlockK;
  return k % 4096 == 0 ? k + 64 : k;
}

void quantize_rows(const float* A, int64_t lda, int rows, int first_row,
                   const detail::Int4Layout& l, const QuantizedRows& out) {
  for (int r = 0; r < rows; ++r) {
    const float* x = A + r * lda;
    float lo, hi;
    FindMinMax(x, &lo, &hi, l.K);
    const float amax = std::fmax(std::fabs(lo), std::fabs(hi));
    if (!std::isfinite(amax)) {
      throw std::invalid_argument("int4Gemm: A row " + std::to_string(first_row + r) +
                                  " holds a non-finite value (max |A| = " +
                                  std::to_string(amax) + ")");
    }
    const float scale = amax > 0.0f ? amax / 127.0f : 1.0f;
    int8_t* q = out.q + r * out.ld;
    Quantize<int8_t>(x, q, l.K, TensorQuantizationParams{scale, 0, 8});
    std::memset(q + l.K, 0, static_cast<size_t>(out.ld - l.K));
    out.scale[r] = scale;
    int32_t* rs = out.rsum + int64_t{r} * l.groups;
    for (int g = 0; g < l.groups; ++g) {
      const int k0 = g * l.group_k8 * detail::Int4Layout::kBlockK;
      const int k1 = std::min(l.K, k0 + l.group_k8 * detail::Int4Layout::kBlockK);
      int32_t sum = 0;
      for (int k = k0; k < k1; ++k) sum += q[k];
      rs[g] = sum;
    }
  }
}

QuantizedRows RowScratch::get(const detail::Int4Layout& l, int rows) {
  const int64_t ld = quantized_row_bytes(l);
  const size_t q = static_cast<size_t>(ld) * rows, rs = static_cast<size_t>(rows) * l.groups;
  if (q_.size() < q) q_.resize(q);
  if (scale_.size() < static_cast<size_t>(rows)) scale_.resize(static_cast<size_t>(rows));
  if (rsum_.size() < rs) rsum_.resize(rs);
  return QuantizedRows{q_.data(), ld, scale_.data(), rsum_.data()};
}

}  // namespace quire::int4
