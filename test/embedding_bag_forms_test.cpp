// Embedding bags beyond the dense sweep (embedding_bag_test.cpp): no_bag, the row-wise
// sparse (pruned) forms and compressed_indices_remap, the bad-input contract (false and
// nothing written) and the generator arguments that throw. Through the compat header.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "embedding_reference.h"
#include "fbgemm/FbgemmEmbedding.h"
#include "test_util.h"

namespace quire::test {
namespace {

using namespace fbgemm;

const int64_t kBlocks[] = {1, 3, 17, 63, 65, 1023};

// no_bag: output row i is row indices[i] times weights[i], as a bag of one row.
TEST(EmbeddingBagForms, NoBag) {
  for_each_supported_path([] {
    std::mt19937 gen(3);
    for (int64_t block : kBlocks) {
      SCOPED_TRACE(block);
      for (Rows rows : {Rows::f32, Rows::u8}) {
        const Layout l{rows, block, row_bytes(rows, block), true};
        const std::vector<uint8_t> table = random_table(l, 9, gen);
        const std::vector<int32_t> idx = {8, 0, 3, 8, 5};
        const std::vector<float> w = {0.5f, -2.0f, 1.25f, 3.0f, -0.75f};
        std::vector<float> sums;
        ASSERT_TRUE(reference_bags(l, table, 9, idx, {1, 1, 1, 1, 1}, w.data(), false, false,
                                   false, sums));
        std::vector<float> out(5 * static_cast<size_t>(block));
        bool ok;
        if (rows == Rows::f32)
          ok = GenerateEmbeddingSpMDMWithStrides<float, int32_t>(block, true, true, 16, true, true,
                                                                 -1, -1, true, true)(
              5, 0, 9, reinterpret_cast<const float*>(table.data()), idx.data(), nullptr,
              w.data(), out.data());
        else
          ok = GenerateEmbeddingSpMDMWithStrides<uint8_t, int32_t>(block, true, true, 16, true,
                                                                   true, -1, -1, true, true)(
              5, 0, 9, table.data(), idx.data(), nullptr, w.data(), out.data());
        ASSERT_TRUE(ok);
        EXPECT_EQ(out, sums);  // normalize and positional are ignored without bags
      }
    }
  });
}

TEST(EmbeddingBagForms, NoBagCopiesQuantizedRows) {
  std::mt19937 gen(4);
  for (int64_t block : kBlocks) {
    const Layout l8{Rows::u8, block, row_bytes(Rows::u8, block), true};
    const std::vector<uint8_t> t8 = random_table(l8, 6, gen);
    const std::vector<int64_t> idx = {5, 0, 2};
    const int64_t out_stride = block + 2;  // narrower than the row: min(strides) bytes copied
    std::vector<uint8_t> out(3 * static_cast<size_t>(out_stride), 0xEE);
    ASSERT_TRUE((GenerateEmbeddingSpMDMWithStrides<uint8_t, int64_t, int32_t, uint8_t>(
        block, false, false, 16, false, true, out_stride, -1, true, true)(
        3, 0, 6, t8.data(), idx.data(), nullptr, nullptr, out.data())));
    for (int i = 0; i < 3; ++i)
      for (int64_t b = 0; b < out_stride; ++b)
        ASSERT_EQ(out[i * out_stride + b], t8[idx[i] * l8.stride + b]) << block << " " << i;

    const Layout l4{Rows::u4, block, row_bytes(Rows::u4, block), true};
    const std::vector<uint8_t> t4 = random_table(l4, 6, gen);
    std::vector<uint8_t> out4(3 * static_cast<size_t>(l4.stride));
    ASSERT_TRUE((GenerateEmbeddingSpMDMNBitWithStrides<int64_t, int64_t, uint8_t>(
        4, block, false, false, 16, false, true, -1, -1, true, false, true, 4)(
        3, 0, 6, t4.data(), idx.data(), nullptr, nullptr, out4.data())));
    for (int i = 0; i < 3; ++i)
      for (int64_t b = 0; b < l4.stride; ++b)
        ASSERT_EQ(out4[i * l4.stride + b], t4[idx[i] * l4.stride + b]);
    // FBGEMM's reference dequantizes no bag-less 2- / 4-bit rows to float: false.
    std::vector<float> f(3 * static_cast<size_t>(block));
    EXPECT_FALSE((GenerateEmbeddingSpMDMNBitWithStrides<int64_t, int64_t, float>(
        4, block, false, false, 16, false, true, -1, -1, true, false, true)(
        3, 0, 6, t4.data(), idx.data(), nullptr, nullptr, f.data())));
  }
}

// Pruned tables: the reference on the compressed table with the mapped indices.
TEST(EmbeddingBagForms, RowWiseSparse) {
  for_each_supported_path([] {
    std::mt19937 gen(5);
    for (int64_t block : kBlocks)
      for (Rows rows : {Rows::f32, Rows::f16, Rows::u8, Rows::u4, Rows::u2}) {
        SCOPED_TRACE(::testing::Message() << block << " rows " << static_cast<int>(rows));
        const int64_t uncompressed = 20;
        std::vector<int32_t> mapping(uncompressed, -1);
        int32_t kept = 0;
        for (int64_t i = 0; i < uncompressed; ++i)
          if (i % 3 != 1) mapping[i] = kept++;
        const Layout l{rows, block, row_bytes(rows, block), true};
        const std::vector<uint8_t> table = random_table(l, kept, gen);
        const std::vector<int64_t> lengths = {3, 0, 4, 1};
        const std::vector<int64_t> idx = {19, 1, 4, 0, 7, 18, 2, 13};
        const std::vector<int32_t> offsets = {0, 3, 3, 7, 8};
        std::vector<float> w(idx.size());
        for (float& x : w) x = std::normal_distribution<float>()(gen);
        std::vector<int64_t> mapped;
        for (int64_t i : idx) mapped.push_back(mapping[i]);
        for (bool positional : {false, true}) {
          std::vector<float> sums;
          ASSERT_TRUE(reference_bags(l, table, kept, mapped, lengths, w.data(), positional, true,
                                     true, sums));
          std::vector<float> out(4 * static_cast<size_t>(block));
          bool ok;
          if (rows == Rows::u4 || rows == Rows::u2)
            ok = GenerateEmbeddingSpMDMNBitRowWiseSparse<int64_t, int32_t>(
                bits_of(rows), block, true, true, 16, positional)(
                4, 8, uncompressed, table.data(), idx.data(), offsets.data(), w.data(),
                out.data(), mapping.data());
          else if (rows == Rows::u8)
            ok = GenerateEmbeddingSpMDMRowWiseSparse<uint8_t, int64_t, int32_t>(
                block, true, true, 16, positional)(4, 8, uncompressed, table.data(), idx.data(),
                                                   offsets.data(), w.data(), out.data(),
                                                   mapping.data());
          else if (rows == Rows::f16)
            ok = GenerateEmbeddingSpMDMRowWiseSparse<uint16_t, int64_t, int32_t>(
                block, true, true, 16, positional)(
                4, 8, uncompressed, reinterpret_cast<const uint16_t*>(table.data()), idx.data(),
                offsets.data(), w.data(), out.data(), mapping.data());
          else
            ok = GenerateEmbeddingSpMDMRowWiseSparse<float, int64_t, int32_t>(
                block, true, true, 16, positional)(
                4, 8, uncompressed, reinterpret_cast<const float*>(table.data()), idx.data(),
                offsets.data(), w.data(), out.data(), mapping.data());
          ASSERT_TRUE(ok);
          ASSERT_EQ(out, sums);
          // An uncompressed index outside the mapping: false.
          std::vector<int64_t> bad = idx;
          bad[5] = uncompressed;
          EXPECT_FALSE((GenerateEmbeddingSpMDMRowWiseSparse<float, int64_t, int32_t>(block, false,
                                                                                   false)(
              4, 8, uncompressed, reinterpret_cast<const float*>(table.data()), bad.data(),
              offsets.data(), nullptr, out.data(), mapping.data())));
        }
      }
  });
}

TEST(EmbeddingBagForms, CompressedIndicesRemap) {
  const std::vector<int32_t> mapping = {2, -1, 0, -1, 1, 3};
  const std::vector<int64_t> idx = {1, 0, 5, 3, 3, 4, 2};
  const std::vector<int64_t> offsets = {0, 3, 3, 5, 7};
  const std::vector<float> w = {1, 2, 3, 4, 5, 6, 7};
  std::vector<int64_t> oi(7, -9), oo(5, -9);
  std::vector<float> ow(7, -9);
  compressed_indices_remap<int64_t>(5, idx.data(), mapping.data(), offsets.data(), w.data(),
                                    oi.data(), oo.data(), ow.data());
  EXPECT_EQ(oo, (std::vector<int64_t>{0, 2, 2, 2, 4}));
  EXPECT_EQ(oi, (std::vector<int64_t>{2, 3, 1, 0, -9, -9, -9}));
  EXPECT_EQ(ow, (std::vector<float>{2, 3, 6, 7, -9, -9, -9}));
  std::vector<int32_t> i32(idx.begin(), idx.end()), o32(offsets.begin(), offsets.end());
  std::vector<int32_t> oi32(7, -9), oo32(5, -9);
  compressed_indices_remap<int32_t>(5, i32.data(), mapping.data(), o32.data(), nullptr,
                                    oi32.data(), oo32.data(), nullptr);
  EXPECT_EQ(oo32, (std::vector<int32_t>{0, 2, 2, 2, 4}));
  EXPECT_EQ(oi32, (std::vector<int32_t>{2, 3, 1, 0, -9, -9, -9}));
}

// Bad indices and bag lengths: false, and not one output element written.
TEST(EmbeddingBagForms, BadInputReturnsFalseAndWritesNothing) {
  for_each_supported_path([] {
    std::mt19937 gen(6);
    for (Rows rows : {Rows::f32, Rows::f16, Rows::u8, Rows::u8_half, Rows::u4, Rows::u2}) {
      const int64_t block = 17;
      const bool sb_last = rows != Rows::u8_half;
      const Layout l{rows, block, row_bytes(rows, block), sb_last};
      const std::vector<uint8_t> table = random_table(l, 5, gen);
      auto call = [&](std::vector<int64_t> idx, std::vector<int64_t> offsets, bool use_offsets) {
        std::vector<float> out(3 * block, -5.0f);
        const int64_t n = static_cast<int64_t>(idx.size());
        const int64_t bags = use_offsets ? static_cast<int64_t>(offsets.size()) - 1
                                         : static_cast<int64_t>(offsets.size());
        bool ok;
        if (rows == Rows::u4 || rows == Rows::u2)
          ok = GenerateEmbeddingSpMDMNBitWithStrides<int64_t, int64_t>(
              bits_of(rows), block, false, false, 16, false, use_offsets, -1, -1, sb_last)(
              bags, n, 5, table.data(), idx.data(), offsets.data(), nullptr, out.data());
        else if (rows == Rows::u8 || rows == Rows::u8_half)
          ok = GenerateEmbeddingSpMDMWithStrides<uint8_t, int64_t, int64_t>(
              block, false, false, 16, false, use_offsets, -1, -1, sb_last)(
              bags, n, 5, table.data(), idx.data(), offsets.data(), nullptr, out.data());
        else
          ok = GenerateEmbeddingSpMDMWithStrides<uint16_t, int64_t, int64_t>(
              block, false, false, 16, false, use_offsets, -1, -1, sb_last)(
              bags, n, 5, reinterpret_cast<const uint16_t*>(table.data()), idx.data(),
              offsets.data(), nullptr, out.data());
        if (!ok) {
          for (float x : out) EXPECT_EQ(x, -5.0f) << "written on a false return";
        }
        return ok;
      };
      SCOPED_TRACE(static_cast<int>(rows));
      EXPECT_TRUE(call({0, 4, 1, 2}, {0, 2, 2, 4}, true));
      EXPECT_FALSE(call({0, 5, 1, 2}, {0, 2, 2, 4}, true));   // index == data_size
      EXPECT_FALSE(call({0, 4, 1, -2}, {0, 2, 2, 4}, true));  // negative index
      EXPECT_EQ(call({0, 4, -1, 2}, {0, 2, 2, 4}, true), !sb_last);  // -1: pruned row iff !sb_last
      EXPECT_FALSE(call({0, 4, 1, 2}, {0, 2, 2, 5}, true));   // offsets end past index_size
      EXPECT_FALSE(call({0, 4, 1, 2}, {0, 2, 2, 3}, true));   // ... or before it
      EXPECT_FALSE(call({0, 4, 1, 2}, {0, 3, 1, 4}, true));   // not monotonic
      EXPECT_TRUE(call({0, 4, 1, 2}, {2, 0, 2}, false));
      EXPECT_FALSE(call({0, 4, 1, 2}, {3, -1, 2}, false));    // a negative length
      EXPECT_FALSE(call({0, 4, 1, 2}, {2, 0, 1}, false));     // lengths short of index_size
    }
  });
}

// The index check over calls long enough for its vectorized body (16 or 32 indices a
// step, embedding_simd.h max_index) and its tail: one bad index at each position of
// 1..100 indices (of 1,100, past the check's 4 KiB prefetch step, at every 37th), of both
// index types, is refused with nothing written; the call's largest index at each
// position (the one that decides whether the table's last row is read from a copy)
// gives the reference sums.
template <class Index>
void check_long_calls(Rows rows, bool sb_last) {
  std::mt19937 gen(11);
  const int64_t block = 17, data_size = 5;
  const Layout l{rows, block, row_bytes(rows, block), sb_last};
  const std::vector<uint8_t> table = random_table(l, data_size, gen);
  std::uniform_int_distribution<int> pick(0, static_cast<int>(data_size) - 2);
  const Index kMin = std::numeric_limits<Index>::min(), kMax = std::numeric_limits<Index>::max();
  for (int n : {1, 2, 15, 16, 17, 31, 32, 33, 47, 64, 65, 100, 1100}) {
    SCOPED_TRACE(n);
    const std::vector<Index> lengths = {static_cast<Index>(n / 2), 0,
                                        static_cast<Index>(n - n / 2)};
    auto call = [&](const std::vector<Index>& idx, std::vector<float>& out) {
      if (rows == Rows::u4 || rows == Rows::u2)
        return GenerateEmbeddingSpMDMNBitWithStrides<Index, Index>(
            bits_of(rows), block, false, false, 16, false, false, -1, -1, sb_last)(
            3, n, data_size, table.data(), idx.data(), lengths.data(), nullptr, out.data());
      return GenerateEmbeddingSpMDMWithStrides<uint8_t, Index, Index>(
          block, false, false, 16, false, false, -1, -1, sb_last)(
          3, n, data_size, table.data(), idx.data(), lengths.data(), nullptr, out.data());
    };
    for (int p = 0; p < n; p += n > 100 && p + 40 < n ? 37 : 1) {  // past 4 KiB: some
      std::vector<Index> idx(static_cast<size_t>(n));
      for (Index& i : idx) i = static_cast<Index>(pick(gen));  // below the largest row
      // int64: also indices whose low 32 bits alone would pass (2^32, 2^32 + 1), whose low
      // half has its sign bit set (2^31, 2^31 + 3, -2^31) and far past the table (2^62):
      // a check that looked at 32 bits fails these.
      std::vector<Index> bads = {static_cast<Index>(data_size), Index{-2}, kMin, kMax,
                                 static_cast<Index>(kMin + 1), Index{-1}};
      if constexpr (sizeof(Index) == 8)
        bads.insert(bads.end(), {Index{1} << 31, Index{1} << 32, (Index{1} << 32) + 1,
                                 (Index{1} << 31) + 3, -(Index{1} << 31), Index{1} << 62});
      for (const Index bad : bads) {
        if (bad == -1 && !sb_last) continue;  // a pruned row there, a valid index
        std::vector<Index> with_bad = idx;
        with_bad[static_cast<size_t>(p)] = bad;
        std::vector<float> out(3 * block, -5.0f);
        EXPECT_FALSE(call(with_bad, out)) << "index " << int64_t{bad} << " at " << p;
        for (float x : out) ASSERT_EQ(x, -5.0f) << "written on a false return";
      }
      idx[static_cast<size_t>(p)] = static_cast<Index>(data_size - 1);
      if (!sb_last && n > 1) idx[static_cast<size_t>((p + 1) % n)] = -1;
      std::vector<float> want, out(3 * block, -5.0f);
      ASSERT_TRUE(reference_bags(l, table, data_size, std::vector<int64_t>(idx.begin(), idx.end()),
                                 std::vector<int64_t>(lengths.begin(), lengths.end()), nullptr,
                                 false, false, !sb_last, want));
      ASSERT_TRUE(call(idx, out)) << "largest index at " << p;
      EXPECT_EQ(std::memcmp(out.data(), want.data(), out.size() * sizeof(float)), 0)
          << "largest index at " << p;
    }
  }
}

TEST(EmbeddingBagForms, IndexCheckOverLongCalls) {
  for_each_supported_path([] {
    for (Rows rows : {Rows::u8, Rows::u8_half, Rows::u4}) {
      SCOPED_TRACE(static_cast<int>(rows));
      const bool sb_last = rows != Rows::u8_half;
      check_long_calls<int32_t>(rows, sb_last);
      check_long_calls<int64_t>(rows, sb_last);
    }
  });
}

// A table of `rows` rows of `row_bytes` as a caller would hold it, in a mapping that
// commits only the pages touched (MAP_NORESERVE): the rows past the first few are never
// written and read as zeros. Null where the system refuses the mapping.
class SparseTable {
 public:
  SparseTable(int64_t rows, int64_t row_bytes) : bytes_(static_cast<size_t>(rows * row_bytes)) {
    void* m = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    data_ = m == MAP_FAILED ? nullptr : static_cast<uint8_t*>(m);
  }
  ~SparseTable() {
    if (data_ != nullptr) munmap(data_, bytes_);
  }
  SparseTable(const SparseTable&) = delete;
  SparseTable& operator=(const SparseTable&) = delete;
  uint8_t* data() const { return data_; }

 private:
  size_t bytes_;
  uint8_t* data_;
};

// int64 indices into tables of about 2^31 rows and more (the rows a call reads are the
// first few): small indices pass and sum as the reference's; data_size itself and the
// indices past it fail, on either side of 2^31 and of 2^32 (a check narrowed to 32 bits,
// or to a table of at most 2^31 rows, fails here).
TEST(EmbeddingBagForms, IndexCheckAroundTwoToThe31Rows) {
  std::mt19937 gen(12);
  const int64_t block = 9, rows_used = 5;
  const Layout l{Rows::u8, block, row_bytes(Rows::u8, block), true};
  const std::vector<uint8_t> first_rows = random_table(l, rows_used, gen);
  const int64_t two31 = int64_t{1} << 31;
  for (const int64_t data_size : {two31 - 1, two31, two31 + 1, int64_t{1} << 33}) {
    SCOPED_TRACE(data_size);
    const SparseTable table(data_size, l.stride);
    if (table.data() == nullptr)
      GTEST_SKIP() << "the system refused a " << data_size * l.stride
                   << "-byte MAP_NORESERVE mapping for the table";
    std::memcpy(table.data(), first_rows.data(), first_rows.size());
    for_each_supported_path([&] {
      std::uniform_int_distribution<int64_t> pick(0, rows_used - 1);
      for (int n : {1, 17, 100, 1100}) {
        SCOPED_TRACE(n);
        const std::vector<int64_t> lengths = {n / 2, n - n / 2};
        const auto kernel = GenerateEmbeddingSpMDMWithStrides<uint8_t, int64_t, int64_t>(
            block, false, false, 16, false, false);
        std::vector<int64_t> idx(static_cast<size_t>(n));
        for (int64_t& i : idx) i = pick(gen);
        std::vector<float> want, out(2 * block, -5.0f);
        ASSERT_TRUE(reference_bags(l, first_rows, rows_used, idx, lengths, nullptr, false,
                                   false, false, want));
        ASSERT_TRUE(kernel(2, n, data_size, table.data(), idx.data(), lengths.data(), nullptr,
                           out.data()));
        EXPECT_EQ(std::memcmp(out.data(), want.data(), out.size() * sizeof(float)), 0);
        for (const int64_t bad : {data_size, data_size + (int64_t{1} << 32), int64_t{-2},
                                  std::numeric_limits<int64_t>::max()}) {
          std::vector<int64_t> with_bad = idx;
          with_bad[static_cast<size_t>(n - 1) / 2] = bad;
          std::vector<float> untouched(2 * block, -5.0f);
          EXPECT_FALSE(kernel(2, n, data_size, table.data(), with_bad.data(), lengths.data(),
                              nullptr, untouched.data()))
              << "index " << bad;
          for (float x : untouched) ASSERT_EQ(x, -5.0f) << "written on a false return";
        }
      }
    });
  }
}

template <class Fn>
void expect_throw_naming(Fn&& fn, const std::string& name) {
  try {
    fn();
    ADD_FAILURE() << "no exception; expected one naming " << name;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
  }
}

TEST(EmbeddingBagForms, GeneratorArgumentsThrow) {
  expect_throw_naming([] { GenerateEmbeddingSpMDMNBit<int32_t>(3, 16, false, false); },
                      "input_bit_rate");
  expect_throw_naming([] { GenerateEmbeddingSpMDMNBit<int32_t>(8, 16, false, false); },
                      "input_bit_rate");
  expect_throw_naming(
      [] { GenerateEmbeddingSpMDMNBitRowWiseSparse<int32_t>(1, 16, false, false); }, "bit_rate");
  expect_throw_naming([] { GenerateEmbeddingSpMDM<float, int32_t>(-1, false, false); },
                      "block_size");
  expect_throw_naming(
      [] {
        GenerateEmbeddingSpMDMWithStrides<float, int32_t>(16, false, false, 16, false, true, -1,
                                                          15);
      },
      "input_stride");
  expect_throw_naming(
      [] {
        GenerateEmbeddingSpMDMWithStrides<uint8_t, int32_t>(16, false, false, 16, false, true, 15);
      },
      "output_stride");
  expect_throw_naming(
      [] {
        GenerateEmbeddingSpMDMWithStrides<uint8_t, int32_t>(16, false, false, 16, false, true, -1,
                                                            23);
      },
      "input_stride");
  expect_throw_naming(
      [] {
        GenerateEmbeddingSpMDMWithStrides<uint8_t, int32_t, int32_t, uint8_t>(
            16, false, false, 16, false, true, -1, -2, true, true);
      },
      "input_stride");
  expect_throw_naming(
      [] {
        GenerateEmbeddingSpMDMWithStrides<float, int32_t, int32_t, uint8_t>(
            16, false, false, 16, false, true, -1, -1, true, true);
      },
      "OutType uint8_t");
  expect_throw_naming(
      [] {
        GenerateEmbeddingSpMDMNBitWithStrides<int32_t, int32_t, float>(
            4, 16, false, false, 16, false, true, -1, -1, true, false, false, 16);
      },
      "output_bit_rate");
  expect_throw_naming(
      [] {
        GenerateEmbeddingSpMDMNBitWithStrides<int32_t, int32_t, uint8_t>(
            2, 16, false, false, 16, false, true, -1, -1, true, false, true, 4);
      },
      "output_bit_rate");
}

}  // namespace
}  // namespace quire::test
