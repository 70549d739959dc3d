// GenerateEmbeddingSpMDMFP8WithStrides and internal::EmbeddingSpMDMBlockSize1_ through the
// FBGEMM compat header: 8-bit float rows of two formats (all 256 codes), float / fp16 /
// bf16 output, weights (per index, positional, none), normalize_by_lengths, offsets or
// lengths, strides, int32/int64 indices and offsets, block sizes 1..1023, empty bags and
// the table's last row, bad input; against a scalar reference (Float8ToFloat_ref, then
// fma per element) bit for bit on every path. Tables end at their last row for ASan.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "fbgemm/FbgemmConvert.h"
#include "fbgemm/FbgemmEmbedding.h"
#include "test_util.h"

namespace quire::test {
namespace {

using namespace fbgemm;

const int64_t kBlocks[] = {1, 3, 17, 63, 65, 1023};

struct Fp8Case {
  int64_t block;
  int exponent_bits, exponent_bias;
  bool weighted, positional, normalize, use_offsets, strided;
};

// Bag sums before the output conversion; rows `stride` bytes apart.
std::vector<float> reference(const Fp8Case& c, const std::vector<uint8_t>& table, int64_t stride,
                             const std::vector<int64_t>& idx, const std::vector<int64_t>& lengths,
                             const float* weights) {
  std::vector<float> out(lengths.size() * static_cast<size_t>(c.block), 0.0f);
  int64_t current = 0;
  for (size_t m = 0; m < lengths.size(); ++m) {
    float* acc = out.data() + m * static_cast<size_t>(c.block);
    for (int64_t i = 0; i < lengths[m]; ++i, ++current) {
      const float w = weights ? weights[c.positional ? i : current] : 1.0f;
      for (int64_t j = 0; j < c.block; ++j) {
        float x;
        Float8ToFloat_ref(table[idx[current] * stride + j], &x, c.exponent_bits,
                          c.exponent_bias);
        acc[j] = std::fma(w, x, acc[j]);
      }
    }
    if (c.normalize && lengths[m] != 0)
      for (int64_t j = 0; j < c.block; ++j) acc[j] *= 1.0f / static_cast<float>(lengths[m]);
  }
  return out;
}

template <class Index, class Offset, class OutT>
void fp8_case(const Fp8Case& c, bool bf16_out, std::mt19937& gen) {
  const int64_t rows = 9, stride = c.strided ? c.block + 5 : c.block;
  const int64_t out_stride = c.strided ? c.block + 2 : c.block;
  std::vector<uint8_t> table(static_cast<size_t>((rows - 1) * stride + c.block));
  std::uniform_int_distribution<int> byte(0, 255);
  for (uint8_t& b : table) b = static_cast<uint8_t>(byte(gen));
  const std::vector<int64_t> lengths = {2, 0, 5, 1, 3};
  std::vector<int64_t> idx;
  std::uniform_int_distribution<int> pick(0, static_cast<int>(rows) - 1);
  for (int64_t len : lengths)
    for (int64_t i = 0; i < len; ++i) idx.push_back(pick(gen));
  idx[1] = rows - 1;
  std::vector<float> weights(idx.size());
  for (float& w : weights) w = std::uniform_real_distribution<float>(-2, 2)(gen);
  const float* wp = c.weighted ? weights.data() : nullptr;
  const std::vector<float> sums = reference(c, table, stride, idx, lengths, wp);

  std::vector<Index> idx_t(idx.begin(), idx.end());
  std::vector<Offset> ol;
  if (c.use_offsets) {
    ol.push_back(0);
    for (int64_t len : lengths) ol.push_back(static_cast<Offset>(ol.back() + len));
  } else {
    for (int64_t len : lengths) ol.push_back(static_cast<Offset>(len));
  }
  const auto kernel = GenerateEmbeddingSpMDMFP8WithStrides<Index, Offset, OutT>(
      c.block, c.normalize, c.positional, c.use_offsets, c.strided ? out_stride : -1,
      c.strided ? stride : -1, c.exponent_bits, c.exponent_bias, bf16_out);
  const int64_t bags = static_cast<int64_t>(lengths.size());
  std::vector<OutT> out(static_cast<size_t>(bags * out_stride));
  ASSERT_TRUE(kernel(bags, static_cast<int64_t>(idx.size()), rows, table.data(), idx_t.data(),
                     ol.data(), wp, out.data()));
  for (int64_t m = 0; m < bags; ++m) {
    for (int64_t j = 0; j < c.block; ++j) {
      const float s = sums[static_cast<size_t>(m * c.block + j)];
      const OutT got = out[static_cast<size_t>(m * out_stride + j)];
      if constexpr (std::is_same_v<OutT, float>) {
        ASSERT_EQ(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(s)) << m << "," << j;
      } else {
        const uint16_t want = bf16_out ? cpu_float2bfloat16(s).val : cpu_float2half_rn(s).val;
        ASSERT_EQ(std::bit_cast<uint16_t>(got), want) << m << "," << j;
      }
    }
  }
}

TEST(EmbeddingBagFp8, MatchesReference) {
  for_each_supported_path([] {
    std::mt19937 gen(7);
    int variant = 0;
    for (int64_t block : kBlocks) {
      for (auto [bits, bias] : {std::pair{4, 7}, std::pair{5, 15}}) {
        for (int flags = 0; flags < 8; ++flags, ++variant) {
          const Fp8Case c{block,          bits,          bias,          (flags & 1) != 0,
                          (flags & 3) == 3, (flags & 4) != 0, variant % 2 == 0, variant % 3 == 0};
          SCOPED_TRACE(testing::Message() << "block " << block << " e" << bits << " flags "
                                          << flags);
          fp8_case<int32_t, int32_t, float>(c, false, gen);
          fp8_case<int64_t, int64_t, uint16_t>(c, variant % 2 == 1, gen);
          fp8_case<int32_t, int64_t, float16>(c, false, gen);
          fp8_case<int64_t, int32_t, uint16_t>(c, true, gen);
        }
      }
    }
  });
}

TEST(EmbeddingBagFp8, BadInputReturnsFalseAndWritesNothing) {
  for_each_supported_path([] {
    const auto kernel = GenerateEmbeddingSpMDMFP8WithStrides<int64_t, int32_t>(17, false);
    const std::vector<uint8_t> table(4 * 17, 0x38);
    std::vector<float> out(2 * 17, -7.0f);
    auto call = [&](std::vector<int64_t> idx, std::vector<int32_t> offsets) {
      return kernel(2, static_cast<int64_t>(idx.size()), 4, table.data(), idx.data(),
                    offsets.data(), nullptr, out.data());
    };
    EXPECT_FALSE(call({0, 4, 1}, {0, 2, 3}));   // index == data_size
    EXPECT_FALSE(call({0, -1, 1}, {0, 2, 3}));  // -1: no pruned rows here
    EXPECT_FALSE(call({0, 3, 1}, {0, 3, 2}));   // offsets not monotonic
    EXPECT_FALSE(call({0, 3, 1}, {0, 2, 4}));   // bags run past index_size
    EXPECT_FALSE(call({0, 3, 1}, {0, 1, 2}));   // bags end before index_size
    EXPECT_EQ(out, std::vector<float>(2 * 17, -7.0f));
    EXPECT_TRUE(call({0, 3, 1}, {0, 2, 3}));
    EXPECT_EQ(out[0], 2.0f);  // 0x38 is 1.0 in E4M3 (bias 7): a bag of two
  });
}

TEST(EmbeddingBagFp8, GeneratorArgumentsThrow) {
  EXPECT_INVALID(({"exponent_bits", "0"}),
                 GenerateEmbeddingSpMDMFP8WithStrides<int32_t>(8, false, false, true, -1, -1, 0));
  EXPECT_INVALID(({"exponent_bits", "8"}),
                 GenerateEmbeddingSpMDMFP8WithStrides<int32_t>(8, false, false, true, -1, -1, 8));
  EXPECT_INVALID(({"exponent_bias", "-1"}),
                 GenerateEmbeddingSpMDMFP8WithStrides<int32_t>(8, false, false, true, -1, -1, 4, -1));
  EXPECT_INVALID(({"input_stride", "7"}),
                 GenerateEmbeddingSpMDMFP8WithStrides<int32_t>(8, false, false, true, -1, 7));
  EXPECT_INVALID(({"output_stride", "7"}),
                 GenerateEmbeddingSpMDMFP8WithStrides<int32_t>(8, false, false, true, 7));
  EXPECT_INVALID(({"block_size"}), GenerateEmbeddingSpMDMFP8WithStrides<int32_t>(-1, false));
}

// internal::EmbeddingSpMDMBlockSize1_: one-element rows of every input type.
template <class In>
bool block1(int64_t data_size, const std::vector<In>& table, const std::vector<int32_t>& idx,
            const std::vector<int64_t>& ol, const float* w, bool normalize, float* out,
            bool positional, bool use_offsets, bool bf16) {
  return internal::EmbeddingSpMDMBlockSize1_<In, int32_t, int64_t>(
      static_cast<int64_t>(use_offsets ? ol.size() - 1 : ol.size()),
      static_cast<int64_t>(idx.size()), data_size, table.data(), idx.data(), ol.data(), w,
      normalize, out, positional, use_offsets, bf16);
}

template <class In>
void block1_case(bool bf16, std::mt19937& gen) {
  const int64_t rows = 7;
  std::vector<In> table(rows);
  std::vector<float> value(rows);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  for (int64_t r = 0; r < rows; ++r) {
    const float f = normal(gen);
    if constexpr (std::is_same_v<In, float>) {
      table[r] = f;
    } else if constexpr (std::is_same_v<In, uint8_t>) {
      table[r] = static_cast<uint8_t>(std::uniform_int_distribution<int>(0, 255)(gen));
    } else {
      const uint16_t h = bf16 ? float_to_bfloat16_rne(f).val : cpu_float2half_rn(f).val;
      table[r] = std::bit_cast<In>(h);
    }
    if constexpr (std::is_same_v<In, float>)
      value[r] = table[r];
    else if constexpr (std::is_same_v<In, uint8_t>)
      value[r] = table[r];
    else
      value[r] = bf16 ? cpu_bf162float(std::bit_cast<bfloat16>(table[r]))
                      : cpu_half2float(std::bit_cast<float16>(table[r]));
  }
  const std::vector<int32_t> idx = {6, 0, 2, 6, 3, 1};
  const std::vector<int64_t> lengths = {2, 0, 3, 1};
  const std::vector<float> w = {0.5f, -1.5f, 2.0f, 0.25f, 3.0f, -1.0f};
  for (int flags = 0; flags < 8; ++flags) {
    const bool weighted = flags & 1, positional = flags & 2, normalize = flags & 4;
    std::vector<float> want(lengths.size());
    int64_t current = 0;
    for (size_t m = 0; m < lengths.size(); ++m) {
      float acc = 0.0f;
      for (int64_t i = 0; i < lengths[m]; ++i, ++current)
        acc = std::fma(weighted ? w[positional ? i : current] : 1.0f, value[idx[current]], acc);
      if (normalize && lengths[m]) acc *= 1.0f / static_cast<float>(lengths[m]);
      want[m] = acc;
    }
    std::vector<float> out(lengths.size(), -9.0f);
    ASSERT_TRUE(block1(rows, table, idx, lengths, weighted ? w.data() : nullptr, normalize,
                       out.data(), positional, false, bf16));
    EXPECT_EQ(out, want) << "flags " << flags;
  }
  const std::vector<int64_t> offsets = {0, 2, 2, 5, 6};
  std::vector<float> out(4, -9.0f);
  EXPECT_TRUE(block1(rows, table, idx, offsets, nullptr, false, out.data(), false, true, bf16));
  const std::vector<int32_t> bad = {6, 0, 7, 6, 3, 1};
  const std::vector<int64_t> short_bags = {0, 2, 2, 5, 5};
  const std::vector<float> before = out;
  EXPECT_FALSE(block1(rows, table, bad, offsets, nullptr, false, out.data(), false, true, bf16));
  EXPECT_FALSE(
      block1(rows, table, idx, short_bags, nullptr, false, out.data(), false, true, bf16));
  EXPECT_EQ(out, before);
}

TEST(EmbeddingBlockSize1, MatchesReference) {
  std::mt19937 gen(8);
  block1_case<float>(false, gen);
  block1_case<float16>(false, gen);
  block1_case<uint16_t>(false, gen);
  block1_case<uint16_t>(true, gen);
  block1_case<uint8_t>(false, gen);
}

}  // namespace
}  // namespace quire::test
