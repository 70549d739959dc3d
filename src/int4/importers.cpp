// Importers from the GGUF block formats (docs/int4.md). A tensor of N rows (output
// channels) of K weights is N * K / 32 blocks, row after row; each block holds 32
// consecutive weights of one row and begins with its scale d as fp16 (little endian):
//   Q4_0, 18 bytes: d, then 16 bytes; byte i holds weight i in its low nibble and weight
//         i + 16 in its high nibble; w = (nibble - 8) * d
//   Q4_1, 20 bytes: d, then the minimum m as fp16, then 16 bytes as in Q4_0;
//         w = nibble * d + m
//   Q8_0, 34 bytes: d, then 32 int8 q; w = q * d
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "quire/Int4Gemm.h"
#include "quire/detail/Check.h"

namespace quire {
namespace {

// Checks K and N and the pointer; returns the number of blocks per row.
int check_blocks(int K, int N, const void* blocks, const char* where) {
  detail::check_arg(K >= 32 && K % 32 == 0, where, "K", K,
                    "must be a positive multiple of 32 (the block size)");
  detail::check_arg(N >= 1, where, "N", N, "must be >= 1");
  detail::check_product(K, N, where, "K x N");
  detail::check_not_null(blocks, where, "blocks");
  return K / 32;
}

float16 read_half(const uint8_t* p) {
  float16 h;
  std::memcpy(&h.val, p, 2);
  return h;
}

// Q4_0 / Q4_1: the nibbles of block b of row j into codes (N x K) and the block's
// scale (and minimum) into groups x N arrays.
void read_nibble_blocks(int K, int N, const uint8_t* src, int block_bytes,
                        std::vector<uint8_t>& codes, std::vector<float16>& d,
                        std::vector<float16>* m) {
  const int nb = K / 32;
  codes.resize(static_cast<size_t>(K) * N);
  d.resize(static_cast<size_t>(nb) * N);
  if (m) m->resize(d.size());
  for (int j = 0; j < N; ++j) {
    for (int b = 0; b < nb; ++b) {
      const uint8_t* blk = src + (int64_t{j} * nb + b) * block_bytes;
      d[int64_t{b} * N + j] = read_half(blk);
      if (m) (*m)[int64_t{b} * N + j] = read_half(blk + 2);
      const uint8_t* qs = blk + (m ? 4 : 2);
      uint8_t* row = codes.data() + int64_t{j} * K + 32 * b;
      for (int i = 0; i < 16; ++i) {
        row[i] = qs[i] & 15;
        row[i + 16] = qs[i] >> 4;
      }
    }
  }
}

}  // namespace

PackedInt4Weights PackedInt4Weights::fromQ4_0(int K, int N, const void* blocks) {
  check_blocks(K, N, blocks, "PackedInt4Weights::fromQ4_0");
  std::vector<uint8_t> codes;
  std::vector<float16> d;
  read_nibble_blocks(K, N, static_cast<const uint8_t*>(blocks), 18, codes, d, nullptr);
  std::vector<int8_t> values(codes.size());
  for (size_t i = 0; i < codes.size(); ++i) values[i] = static_cast<int8_t>(codes[i] - 8);
  return PackedInt4Weights(matrix_op_t::Transpose, K, N, values.data(), K, 32, d.data());
}

PackedInt4Weights PackedInt4Weights::fromQ4_1(int K, int N, const void* blocks) {
  check_blocks(K, N, blocks, "PackedInt4Weights::fromQ4_1");
  std::vector<uint8_t> codes;
  std::vector<float16> d, m;
  read_nibble_blocks(K, N, static_cast<const uint8_t*>(blocks), 20, codes, d, &m);
  return withMins(matrix_op_t::Transpose, K, N, codes.data(), K, 32, d.data(), m.data());
}

// Each block is requantized as Q4_0 files are made from float weights x = q * d: with
// x_max the value of largest magnitude (the first one on a tie), the 4-bit scale is
// d4 = x_max / -8 and code = min(15, trunc(x / d4 + 8.5)) (x_max itself maps to code 0,
// value -8); d4 is stored as fp16. An all-zero block gets d4 = 0 and code 8.
PackedInt4Weights PackedInt4Weights::fromQ8_0(int K, int N, const void* blocks) {
  const int nb = check_blocks(K, N, blocks, "PackedInt4Weights::fromQ8_0");
  const auto* src = static_cast<const uint8_t*>(blocks);
  std::vector<int8_t> values(static_cast<size_t>(K) * N);
  std::vector<float16> d4(static_cast<size_t>(nb) * N);
  for (int j = 0; j < N; ++j) {
    for (int b = 0; b < nb; ++b) {
      const uint8_t* blk = src + (int64_t{j} * nb + b) * 34;
      const float d = cpu_half2float(read_half(blk));
      if (!std::isfinite(d)) {
        throw std::invalid_argument("PackedInt4Weights::fromQ8_0: blocks: the scale of block " +
                                    std::to_string(b) + " of row " + std::to_string(j) +
                                    " is not finite");
      }
      float x[32], xmax = 0.0f, amax = 0.0f;
      for (int i = 0; i < 32; ++i) {
        x[i] = static_cast<float>(static_cast<int8_t>(blk[2 + i])) * d;
        if (std::fabs(x[i]) > amax) {
          amax = std::fabs(x[i]);
          xmax = x[i];
        }
      }
      const float s = xmax / -8.0f;
      const float inv = s != 0.0f ? 1.0f / s : 0.0f;
      d4[int64_t{b} * N + j] = cpu_float2half_rn(s);
      int8_t* row = values.data() + int64_t{j} * K + 32 * b;
      for (int i = 0; i < 32; ++i) {
        const int code = std::min(15, static_cast<int>(x[i] * inv + 8.5f));
        row[i] = static_cast<int8_t>(code - 8);
      }
    }
  }
  return PackedInt4Weights(matrix_op_t::Transpose, K, N, values.data(), K, 32, d4.data());
}

}  // namespace quire
