// Embedding bags through the FBGEMM compat header, as engines call them: every row format
// (float, fp16, bf16, 8-bit with float or fp16 scale and bias, 4-bit, 2-bit), every output
// (float, fp16, bf16), weights (per index, positional), normalize_by_lengths, offsets or
// lengths, strides, pruned (-1) rows, int32/int64 indices and offsets, block sizes 1..1023,
// empty bags and the table's last row, against the scalar reference bit for bit, on every
// instruction-set path of this CPU. Tables are sized exactly (the last row ends the
// allocation) so ASan sees any read past it.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <functional>
#include <random>
#include <thread>
#include <vector>

#include "embedding_reference.h"
#include "fbgemm/FbgemmEmbedding.h"
#include "test_util.h"

namespace quire::test {
namespace {

struct Case {
  Rows rows;
  Out out;
  int64_t block;
  bool weighted, positional, normalize, use_offsets, sb_last, strided;
  int prefetch;
};

// The stride the generators take: elements for float / fp16 / bf16 rows, bytes otherwise.
int64_t stride_units(const Case& c) {
  const int64_t packed = is_quantized(c.rows) ? row_bytes(c.rows, c.block) : c.block;
  return c.strided ? packed + 3 : packed;
}

template <class Index, class Offset, class OutT>
auto make_kernel(const Case& c) {
  const int64_t out_stride = c.strided ? c.block + 5 : -1;
  const int64_t in_stride = stride_units(c);
  const bool bf16_out = c.out == Out::bf16;
  using fbgemm::GenerateEmbeddingSpMDMNBitWithStrides;
  using fbgemm::GenerateEmbeddingSpMDMWithStrides;
  using Fn = std::function<bool(int64_t, int64_t, int64_t, const uint8_t*, const Index*,
                                const Offset*, const float*, OutT*)>;
  switch (c.rows) {
    case Rows::f32: {
      auto k = GenerateEmbeddingSpMDMWithStrides<float, Index, Offset, OutT>(
          c.block, c.weighted, c.normalize, c.prefetch, c.positional, c.use_offsets, out_stride,
          in_stride, c.sb_last, false, bf16_out);
      return Fn([k](int64_t a, int64_t b, int64_t d, const uint8_t* t, const Index* i,
                    const Offset* o, const float* w, OutT* out) {
        return k(a, b, d, reinterpret_cast<const float*>(t), i, o, w, out);
      });
    }
    case Rows::f16:
    case Rows::bf16: {
      auto k = GenerateEmbeddingSpMDMWithStrides<uint16_t, Index, Offset, OutT>(
          c.block, c.weighted, c.normalize, c.prefetch, c.positional, c.use_offsets, out_stride,
          in_stride, c.sb_last, false, bf16_out, c.rows == Rows::bf16);
      return Fn([k](int64_t a, int64_t b, int64_t d, const uint8_t* t, const Index* i,
                    const Offset* o, const float* w, OutT* out) {
        return k(a, b, d, reinterpret_cast<const uint16_t*>(t), i, o, w, out);
      });
    }
    case Rows::u8:
    case Rows::u8_half:
      return Fn(GenerateEmbeddingSpMDMWithStrides<uint8_t, Index, Offset, OutT>(
          c.block, c.weighted, c.normalize, c.prefetch, c.positional, c.use_offsets, out_stride,
          in_stride, c.sb_last, false, bf16_out));
    case Rows::u4:
    case Rows::u2:
      return Fn(GenerateEmbeddingSpMDMNBitWithStrides<Index, Offset, OutT>(
          bits_of(c.rows), c.block, c.weighted, c.normalize, c.prefetch, c.positional,
          c.use_offsets, out_stride, in_stride, c.sb_last, bf16_out));
  }
  return Fn();
}

// Random bags over a small table: empty bags, the last row, pruned rows (-1) where
// scale_bias_last is false.
template <class Index>
void random_bags(const Case& c, int64_t rows, std::mt19937& gen, std::vector<int64_t>& lengths,
                 std::vector<Index>& idx) {
  std::uniform_int_distribution<int> len(0, 5), row(0, static_cast<int>(rows) - 1);
  lengths.assign(7, 0);
  for (size_t m = 0; m < lengths.size(); ++m) lengths[m] = m == 2 ? 0 : len(gen);
  lengths[0] = std::max<int64_t>(lengths[0], 2);
  idx.clear();
  for (int64_t l : lengths)
    for (int64_t i = 0; i < l; ++i) idx.push_back(static_cast<Index>(row(gen)));
  idx[0] = static_cast<Index>(rows - 1);
  if (!c.sb_last) idx[1] = -1;
}

template <class Offset>
std::vector<Offset> offsets_or_lengths(const std::vector<int64_t>& lengths, bool use_offsets) {
  std::vector<Offset> v;
  if (use_offsets) v.push_back(0);
  for (int64_t l : lengths) v.push_back(static_cast<Offset>(use_offsets ? v.back() + l : l));
  return v;
}

template <class Index, class Offset, class OutT>
void check_case(const Case& c, std::mt19937& gen) {
  const int64_t rows = 11;
  const Layout layout{c.rows, c.block,
                      is_quantized(c.rows) ? stride_units(c) : stride_units(c) * bits_of(c.rows) / 8,
                      c.sb_last};
  const std::vector<uint8_t> table = random_table(layout, rows, gen);
  std::vector<int64_t> lengths;
  std::vector<Index> idx;
  random_bags(c, rows, gen, lengths, idx);
  const std::vector<Offset> ol = offsets_or_lengths<Offset>(lengths, c.use_offsets);
  std::normal_distribution<float> normal;
  std::vector<float> weights(idx.size());
  for (float& w : weights) w = normal(gen);

  std::vector<float> sums;
  const float* w = c.weighted ? weights.data() : nullptr;
  ASSERT_TRUE(reference_bags(layout, table, rows, idx, lengths, w, c.positional, c.normalize,
                             !c.sb_last, sums));
  const int64_t out_stride = c.strided ? c.block + 5 : c.block;
  const auto n_out = static_cast<size_t>(static_cast<int64_t>(lengths.size()) * out_stride);
  const OutT sentinel = sizeof(OutT) == 4 ? OutT(-77.0f) : OutT(0xABCD);
  std::vector<OutT> out(n_out, sentinel);
  const auto kernel = make_kernel<Index, Offset, OutT>(c);
  ASSERT_TRUE(kernel(static_cast<int64_t>(lengths.size()), static_cast<int64_t>(idx.size()), rows,
                     table.data(), idx.data(), ol.data(), w, out.data()));
  for (size_t m = 0; m < lengths.size(); ++m) {
    for (int64_t j = 0; j < out_stride; ++j) {
      const OutT got = out[m * static_cast<size_t>(out_stride) + static_cast<size_t>(j)];
      if (j >= c.block) {
        ASSERT_EQ(got, sentinel) << "padding written, bag " << m << " column " << j;
        continue;
      }
      const float s = sums[m * static_cast<size_t>(c.block) + static_cast<size_t>(j)];
      if constexpr (sizeof(OutT) == 4)
        ASSERT_EQ(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(s))
            << "bag " << m << " column " << j << ": " << got << " vs " << s;
      else
        ASSERT_EQ(got, out_bits(s, c.out)) << "bag " << m << " column " << j;
    }
  }
}

template <class Index, class Offset>
void check_any_out(const Case& c, std::mt19937& gen) {
  if (c.out == Out::f32)
    check_case<Index, Offset, float>(c, gen);
  else
    check_case<Index, Offset, uint16_t>(c, gen);
}

// u8 rows have their float scale and bias last, u8_half rows their fp16 ones first; the
// other formats take either flag (false: -1 is a pruned row).
bool sb_last_of(Rows rows, bool preferred) {
  return rows == Rows::u8 ? true : rows == Rows::u8_half ? false : preferred;
}

const Rows kAllRows[] = {Rows::f32, Rows::f16,     Rows::bf16, Rows::u8,
                         Rows::u8_half, Rows::u4, Rows::u2};
const int64_t kBlocks[] = {1, 3, 17, 63, 65, 1023};

void sweep(Rows rows) {
  std::mt19937 gen(1234 + static_cast<int>(rows));
  int n = 0;
  for_each_supported_path([&] {
    for (int64_t block : kBlocks)
      for (Out out : {Out::f32, Out::f16, Out::bf16})
        for (int flags = 0; flags < 32; ++flags) {
          Case c{rows, out, block, (flags & 1) != 0, (flags & 3) == 3, (flags & 4) != 0,
                 (flags & 8) != 0, sb_last_of(rows, (flags & 16) == 0), (flags & 6) == 4,
                 (flags & 16) != 0 ? 0 : 16};
          SCOPED_TRACE(::testing::Message()
                       << "block " << block << " out " << static_cast<int>(out) << " flags "
                       << flags);
          switch (n++ % 4) {
            case 0: check_any_out<int32_t, int32_t>(c, gen); break;
            case 1: check_any_out<int32_t, int64_t>(c, gen); break;
            case 2: check_any_out<int64_t, int32_t>(c, gen); break;
            default: check_any_out<int64_t, int64_t>(c, gen); break;
          }
          if (::testing::Test::HasFatalFailure()) return;
        }
  });
}

TEST(EmbeddingBag, FloatRows) { sweep(Rows::f32); }
TEST(EmbeddingBag, Fp16Rows) { sweep(Rows::f16); }
TEST(EmbeddingBag, Bf16Rows) { sweep(Rows::bf16); }
TEST(EmbeddingBag, Int8RowsFloatScale) { sweep(Rows::u8); }
TEST(EmbeddingBag, Int8RowsHalfScaleFirst) { sweep(Rows::u8_half); }
TEST(EmbeddingBag, Int4Rows) { sweep(Rows::u4); }
TEST(EmbeddingBag, Int2Rows) { sweep(Rows::u2); }

// One kernel, one table, 1-3 caller threads at once: the callable holds no mutable state.
TEST(EmbeddingBag, CallerThreadsShareOneKernel) {
  for_each_supported_path([] {
    for (Rows rows : kAllRows) {
      const bool sb_last = sb_last_of(rows, true);
      const Case c{rows, Out::f32, 65, true, false, true, true, sb_last, false, 16};
      const Layout l{rows, 65, is_quantized(rows) ? row_bytes(rows, 65) : 65 * bits_of(rows) / 8,
                     sb_last};
      std::mt19937 gen(7);
      const std::vector<uint8_t> table = random_table(l, 300, gen);
      std::vector<int64_t> lengths(40, 25);
      std::vector<int64_t> idx(1000);
      for (auto& i : idx) i = std::uniform_int_distribution<int64_t>(0, 299)(gen);
      const std::vector<int64_t> ol = offsets_or_lengths<int64_t>(lengths, true);
      const std::vector<float> weights(idx.size(), 0.5f);
      const auto kernel = make_kernel<int64_t, int64_t, float>(c);
      std::vector<float> expect;
      ASSERT_TRUE(reference_bags(l, table, 300, idx, lengths, weights.data(), false, true,
                                 !sb_last, expect));
      for (int threads = 1; threads <= 3; ++threads) {
        std::vector<std::vector<float>> outs(threads, std::vector<float>(40 * 65));
        std::vector<int> ok(threads, 0);
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t)
          pool.emplace_back([&, t] {
            for (int rep = 0; rep < 20; ++rep)
              ok[t] += kernel(40, 1000, 300, table.data(), idx.data(), ol.data(),
                              weights.data(), outs[t].data());
          });
        for (auto& th : pool) th.join();
        for (int t = 0; t < threads; ++t) {
          EXPECT_EQ(ok[t], 20);
          EXPECT_EQ(outs[t], expect) << threads << " threads, thread " << t;
        }
      }
    }
  });
}

}  // namespace
}  // namespace quire::test
