// A scalar embedding-bag reference written from docs/embedding.md (FBGEMM's reference
// contract), and the table builders the embedding tests share.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "quire/FloatConversion.h"

namespace quire::test {

enum class Rows { f32, f16, bf16, u8, u8_half, u4, u2 };
enum class Out { f32, f16, bf16 };

inline int bits_of(Rows r) {
  switch (r) {
    case Rows::f32: return 32;
    case Rows::f16:
    case Rows::bf16: return 16;
    case Rows::u8:
    case Rows::u8_half: return 8;
    case Rows::u4: return 4;
    case Rows::u2: return 2;
  }
  return 0;
}
inline bool is_quantized(Rows r) { return bits_of(r) <= 8; }
inline int64_t data_bytes(Rows r, int64_t block) { return (block * bits_of(r) + 7) / 8; }
// Scale and bias bytes: two floats for u8 rows with scale_bias_last, else two fp16.
inline int64_t sb_bytes(Rows r) { return r == Rows::u8 ? 8 : is_quantized(r) ? 4 : 0; }
inline int64_t row_bytes(Rows r, int64_t block) { return data_bytes(r, block) + sb_bytes(r); }

struct Layout {
  Rows rows;
  int64_t block;
  int64_t stride;  // bytes between rows
  bool sb_last;    // quantized rows: scale and bias after the data
};

// Element j of row r, dequantized as FBGEMM's reference does, with weight w:
// float rows w * x (fused with the sum); quantized rows q with scale w * s, bias w * b.
struct RowView {
  const uint8_t* row;
  const Layout& l;
  float x(int64_t j) const {
    const uint8_t* d = row + (is_quantized(l.rows) && !l.sb_last ? sb_bytes(l.rows) : 0);
    uint16_t h;
    switch (l.rows) {
      case Rows::f32: {
        float f;
        std::memcpy(&f, d + 4 * j, 4);
        return f;
      }
      case Rows::f16: std::memcpy(&h, d + 2 * j, 2); return cpu_half2float(float16{h});
      case Rows::bf16: std::memcpy(&h, d + 2 * j, 2); return cpu_bf162float(bfloat16{h});
      case Rows::u8:
      case Rows::u8_half: return d[j];
      case Rows::u4: return static_cast<float>((d[j / 2] >> (4 * (j % 2))) & 15);
      case Rows::u2: return static_cast<float>((d[j / 4] >> (2 * (j % 4))) & 3);
    }
    return 0;
  }
  void scale_bias(float& s, float& b) const {
    const uint8_t* p = row + (l.sb_last ? data_bytes(l.rows, l.block) : 0);
    if (l.rows == Rows::u8) {
      std::memcpy(&s, p, 4);
      std::memcpy(&b, p + 4, 4);
    } else {
      uint16_t h[2];
      std::memcpy(h, p, 4);
      s = cpu_half2float(float16{h[0]});
      b = cpu_half2float(float16{h[1]});
    }
  }
};

inline uint16_t out_bits(float v, Out o) {
  return o == Out::f16 ? cpu_float2half_rn(v).val : cpu_float2bfloat16(v).val;
}

// Bags given as lengths; returns false where the contract does. out has output_size rows
// of out_stride floats (the sums before the output conversion, which the caller applies).
template <class Index>
bool reference_bags(const Layout& l, const std::vector<uint8_t>& table, int64_t data_size,
                    const std::vector<Index>& idx, const std::vector<int64_t>& lengths,
                    const float* weights, bool positional, bool normalize, bool skip_minus_one,
                    std::vector<float>& out) {
  int64_t current = 0;
  out.assign(lengths.size() * static_cast<size_t>(l.block), 0.0f);
  for (size_t m = 0; m < lengths.size(); ++m) {
    const int64_t len = lengths[m];
    if (len < 0 || current + len > static_cast<int64_t>(idx.size())) return false;
    float* acc = out.data() + m * static_cast<size_t>(l.block);
    for (int64_t i = 0; i < len; ++i, ++current) {
      const int64_t r = idx[static_cast<size_t>(current)];
      if (skip_minus_one && r == -1) continue;
      if (r < 0 || r >= data_size) return false;
      const float w = weights ? weights[positional ? i : current] : 1.0f;
      const RowView v{table.data() + r * l.stride, l};
      if (is_quantized(l.rows)) {
        float s, b;
        v.scale_bias(s, b);
        const float scale = w * s, bias = w * b;
        for (int64_t j = 0; j < l.block; ++j) acc[j] = std::fma(scale, v.x(j), acc[j] + bias);
      } else {
        for (int64_t j = 0; j < l.block; ++j) acc[j] = std::fma(w, v.x(j), acc[j]);
      }
    }
    if (normalize && len != 0) {
      const float inv = 1.0f / static_cast<float>(len);
      for (int64_t j = 0; j < l.block; ++j) acc[j] *= inv;
    }
  }
  return current == static_cast<int64_t>(idx.size());
}

// A table of n rows in layout l, random elements (finite for float rows) and scales.
inline std::vector<uint8_t> random_table(const Layout& l, int64_t n, std::mt19937& gen) {
  const int64_t bytes = n == 0 ? 0 : (n - 1) * l.stride + row_bytes(l.rows, l.block);
  std::vector<uint8_t> t(static_cast<size_t>(bytes));
  std::uniform_int_distribution<int> byte(0, 255);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  for (int64_t r = 0; r < n; ++r) {
    uint8_t* row = t.data() + r * l.stride;
    uint8_t* d = row + (is_quantized(l.rows) && !l.sb_last ? sb_bytes(l.rows) : 0);
    for (int64_t j = 0; j < l.block; ++j) {
      const float f = normal(gen);
      if (l.rows == Rows::f32) std::memcpy(d + 4 * j, &f, 4);
      if (l.rows == Rows::f16) {
        const uint16_t h = cpu_float2half_rn(f).val;
        std::memcpy(d + 2 * j, &h, 2);
      }
      if (l.rows == Rows::bf16) {
        const uint16_t h = float_to_bfloat16_rne(f).val;
        std::memcpy(d + 2 * j, &h, 2);
      }
    }
    if (!is_quantized(l.rows)) continue;
    for (int64_t b = 0; b < data_bytes(l.rows, l.block); ++b) d[b] = static_cast<uint8_t>(byte(gen));
    uint8_t* sb = row + (l.sb_last ? data_bytes(l.rows, l.block) : 0);
    const float s = std::ldexp(1.0f + normal(gen) * 0.1f, -5), b = normal(gen);
    if (l.rows == Rows::u8) {
      std::memcpy(sb, &s, 4);
      std::memcpy(sb + 4, &b, 4);
    } else {
      const uint16_t h[2] = {cpu_float2half_rn(s).val, cpu_float2half_rn(b).val};
      std::memcpy(sb, h, 4);
    }
  }
  return t;
}

}  // namespace quire::test
