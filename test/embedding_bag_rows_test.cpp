// The embedding-bag row loop over long bags, as engines call it through the compat header:
// rows taken two at a time while the row `prefetch` indices ahead exists, one at a time
// after (the call's last `prefetch` indices) and where -1 rows are pruned, the prefetches
// unrolled for short chunks; quantized rows of one chunk of up to 4 vectors two bags at a
// time. Block sizes at and around each vector and chunk width (1..129;
// 193 and 255: a full chunk, then a rest of 4+ vectors, a partial one last; 96..1023:
// chunks of 12 vectors),
// every row format, weights (per index, positional), normalize_by_lengths, empty bags,
// int32/int64 indices, prefetch 0 / 1 / 16 / beyond the call, against the scalar reference
// bit for bit on every instruction-set path of this CPU; an index outside the table gives
// false with nothing written; 1-3 caller threads on one kernel.
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
  int64_t block;
  bool weighted, positional, normalize, sb_last;
  int prefetch;
};

template <class Index>
using Kernel = std::function<bool(int64_t, int64_t, int64_t, const uint8_t*, const Index*,
                                  const int64_t*, const float*, float*)>;

template <class Index>
Kernel<Index> make_kernel(const Case& c) {
  using fbgemm::GenerateEmbeddingSpMDMNBitWithStrides;
  using fbgemm::GenerateEmbeddingSpMDMWithStrides;
  const bool bf16 = c.rows == Rows::bf16;
  switch (c.rows) {
    case Rows::f32: {
      auto k = GenerateEmbeddingSpMDMWithStrides<float, Index, int64_t, float>(
          c.block, c.weighted, c.normalize, c.prefetch, c.positional, true, -1, -1, c.sb_last);
      return [k](int64_t a, int64_t b, int64_t d, const uint8_t* t, const Index* i,
                 const int64_t* o, const float* w, float* out) {
        return k(a, b, d, reinterpret_cast<const float*>(t), i, o, w, out);
      };
    }
    case Rows::f16:
    case Rows::bf16: {
      auto k = GenerateEmbeddingSpMDMWithStrides<uint16_t, Index, int64_t, float>(
          c.block, c.weighted, c.normalize, c.prefetch, c.positional, true, -1, -1, c.sb_last,
          false, false, bf16);
      return [k](int64_t a, int64_t b, int64_t d, const uint8_t* t, const Index* i,
                 const int64_t* o, const float* w, float* out) {
        return k(a, b, d, reinterpret_cast<const uint16_t*>(t), i, o, w, out);
      };
    }
    case Rows::u8:
    case Rows::u8_half:
      return GenerateEmbeddingSpMDMWithStrides<uint8_t, Index, int64_t, float>(
          c.block, c.weighted, c.normalize, c.prefetch, c.positional, true, -1, -1, c.sb_last);
    case Rows::u4:
    case Rows::u2:
      return GenerateEmbeddingSpMDMNBitWithStrides<Index, int64_t, float>(
          bits_of(c.rows), c.block, c.weighted, c.normalize, c.prefetch, c.positional, true, -1,
          -1, c.sb_last);
  }
  return {};
}

Layout layout_of(const Case& c) {
  return {c.rows, c.block, is_quantized(c.rows) ? row_bytes(c.rows, c.block)
                                                : c.block * bits_of(c.rows) / 8,
          c.sb_last};
}

std::vector<int64_t> offsets_of(const std::vector<int64_t>& lengths) {
  std::vector<int64_t> o{0};
  for (int64_t l : lengths) o.push_back(o.back() + l);
  return o;
}

constexpr int64_t kRows = 37;

// Nine bags of 0..40 rows; quantized rows of one chunk of up to 4 vectors run two bags at a time
// (without pruned rows), here as pairs of two long bags, an empty and a long one, a long
// one and one of 1, 3 rows and an empty one, then a bag alone. With sb_last = false some
// rows are -1 (pruned). Half the calls take the table's last row first (then a partial last vector
// is read from a copy), half never touch it (read whole).
template <class Index>
void random_bags(const Case& c, std::mt19937& gen, std::vector<int64_t>& lengths,
                 std::vector<Index>& idx) {
  std::uniform_int_distribution<int> len(2, 40), row(0, kRows - 2), prune(0, 6), coin(0, 1);
  lengths = {len(gen), len(gen), 0, len(gen), len(gen), 1, 3, 0, len(gen)};
  idx.clear();
  for (int64_t l : lengths)
    for (int64_t i = 0; i < l; ++i)
      idx.push_back(!c.sb_last && prune(gen) == 0 ? Index{-1} : static_cast<Index>(row(gen)));
  if (coin(gen)) idx[0] = static_cast<Index>(kRows - 1);
}

template <class Index>
void check_case(const Case& c, std::mt19937& gen) {
  const Layout layout = layout_of(c);
  const std::vector<uint8_t> table = random_table(layout, kRows, gen);
  std::vector<int64_t> lengths;
  std::vector<Index> idx;
  random_bags(c, gen, lengths, idx);
  const std::vector<int64_t> offsets = offsets_of(lengths);
  std::normal_distribution<float> normal;
  std::vector<float> weights(idx.size());
  for (float& w : weights) w = normal(gen);
  const float* w = c.weighted ? weights.data() : nullptr;

  std::vector<float> expect;
  ASSERT_TRUE(reference_bags(layout, table, kRows, idx, lengths, w, c.positional, c.normalize,
                             !c.sb_last, expect));
  const auto kernel = make_kernel<Index>(c);
  const auto bags = static_cast<int64_t>(lengths.size());
  const auto n = static_cast<int64_t>(idx.size());
  std::vector<float> out(expect.size(), -77.0f);
  ASSERT_TRUE(kernel(bags, n, kRows, table.data(), idx.data(), offsets.data(), w, out.data()));
  for (size_t e = 0; e < out.size(); ++e)
    ASSERT_EQ(std::bit_cast<uint32_t>(out[e]), std::bit_cast<uint32_t>(expect[e]))
        << "bag " << e / static_cast<size_t>(c.block) << " column "
        << e % static_cast<size_t>(c.block) << ": " << out[e] << " vs " << expect[e];

  // An index one past the table (and -1 where no row is pruned), late in the call: false,
  // nothing written.
  std::vector<Index> bad = idx;
  bad[bad.size() - 2] = static_cast<Index>(kRows);
  std::vector<float> untouched(out.size(), -77.0f);
  EXPECT_FALSE(kernel(bags, n, kRows, table.data(), bad.data(), offsets.data(), w,
                      untouched.data()));
  if (c.sb_last) {
    bad[bad.size() - 2] = Index{-1};
    EXPECT_FALSE(kernel(bags, n, kRows, table.data(), bad.data(), offsets.data(), w,
                        untouched.data()));
  }
  EXPECT_EQ(untouched, std::vector<float>(out.size(), -77.0f));
}

// 96 / 100 / 190 / 400 / 1023, float and 8-bit rows in chunks of 12 vectors (p: the
// last vector partial): AVX2 12, 8 + 5p, 12 + 12p, 12 x 3 + 8 + 6, 12 x 10 + 8p;
// AVX-512 190 is 12p, 400 12 + 8 + 5, 1023 12 x 4 + 8 + 8p.
const int64_t kBlocks[] = {1,   8,   15,  16,  17,  31,  32,  33,  63,  64,  65,
                           96,  100, 127, 128, 129, 190, 193, 255, 400, 1023};
const int kOtherPrefetch[] = {0, 1, 5000};

void sweep(Rows rows) {
  std::mt19937 gen(99 + static_cast<int>(rows));
  int n = 0;
  for_each_supported_path([&] {
    for (int64_t block : kBlocks)
      for (int flags = 0; flags < 16; ++flags) {
        const bool sb_last =
            rows == Rows::u8 ? true : rows == Rows::u8_half ? false : (flags & 8) == 0;
        // Every flag combination with prefetch 16 and with one of the others.
        for (int prefetch : {16, kOtherPrefetch[n % 3]}) {
          const Case c{rows, block, (flags & 1) != 0, (flags & 3) == 3, (flags & 4) != 0,
                       sb_last, prefetch};
          SCOPED_TRACE(::testing::Message() << "block " << block << " flags " << flags
                                            << " prefetch " << c.prefetch);
          if (n++ % 2 == 0)
            check_case<int32_t>(c, gen);
          else
            check_case<int64_t>(c, gen);
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
  });
}

TEST(EmbeddingBagRows, Float) { sweep(Rows::f32); }
TEST(EmbeddingBagRows, Fp16) { sweep(Rows::f16); }
TEST(EmbeddingBagRows, Bf16) { sweep(Rows::bf16); }
TEST(EmbeddingBagRows, Int8FloatScale) { sweep(Rows::u8); }
TEST(EmbeddingBagRows, Int8HalfScaleFirst) { sweep(Rows::u8_half); }
TEST(EmbeddingBagRows, Int4) { sweep(Rows::u4); }
TEST(EmbeddingBagRows, Int2) { sweep(Rows::u2); }

// 1-3 caller threads on one kernel and table, long weighted bags at the small block sizes.
TEST(EmbeddingBagRows, CallerThreads) {
  for_each_supported_path([] {
    for (Rows rows : {Rows::f32, Rows::f16})
      for (int64_t block : {32, 64}) {
        const Case c{rows, block, true, false, false, true, 16};
        const Layout layout = layout_of(c);
        std::mt19937 gen(5);
        const std::vector<uint8_t> table = random_table(layout, kRows, gen);
        const std::vector<int64_t> lengths(30, 33);
        std::vector<int64_t> idx(30 * 33);
        for (auto& i : idx) i = std::uniform_int_distribution<int64_t>(0, kRows - 1)(gen);
        const std::vector<int64_t> offsets = offsets_of(lengths);
        const std::vector<float> weights(idx.size(), 0.75f);
        std::vector<float> expect;
        ASSERT_TRUE(reference_bags(layout, table, kRows, idx, lengths, weights.data(), false,
                                   false, false, expect));
        const auto kernel = make_kernel<int64_t>(c);
        for (int threads = 1; threads <= 3; ++threads) {
          std::vector<std::vector<float>> outs(threads, std::vector<float>(expect.size()));
          std::vector<int> ok(threads, 0);
          std::vector<std::thread> pool;
          for (int t = 0; t < threads; ++t)
            pool.emplace_back([&, t] {
              for (int rep = 0; rep < 20; ++rep)
                ok[t] += kernel(30, 30 * 33, kRows, table.data(), idx.data(), offsets.data(),
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
