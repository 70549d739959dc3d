// transpose_simd on every path against the plain loop, and radix_sort_parallel against
// std::stable_sort (with FBGEMM's choice of result buffer).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "test_util.h"

namespace quire {
namespace {

#define W(...) ({__VA_ARGS__})

template <typename T>
void check_transpose(inst_set_t isa) {
  for (int64_t M : {1, 2, 3, 8, 16, 17, 63, 65}) {
    for (int64_t N : {1, 3, 8, 15, 16, 17, 33}) {
      for (int64_t pad : {0, 5}) {
        const int64_t ld_src = N + pad, ld_dst = M + pad;
        const auto src = test::random_vector<T>(static_cast<size_t>(M * ld_src), 0, 255, 7);
        std::vector<T> want(static_cast<size_t>(N * ld_dst), T(9));
        std::vector<T> got = want;
        for (int64_t j = 0; j < N; ++j)
          for (int64_t i = 0; i < M; ++i) want[i + j * ld_dst] = src[i * ld_src + j];
        transpose_simd(M, N, src.data(), ld_src, got.data(), ld_dst);
        ASSERT_EQ(got, want) << instSetName(isa) << " M=" << M << " N=" << N << " pad=" << pad;
      }
    }
  }
}

TEST(UtilsTranspose, EveryPathEveryType) {
  for (const auto& c : test::all_isas()) {
    if (skip_unsupported(c)) continue;
    test::ScopedIsa scope(c.isa);
    check_transpose<float>(c.isa);
    check_transpose<uint16_t>(c.isa);
    check_transpose<uint8_t>(c.isa);
  }
}

TEST(UtilsTranspose, EmptyAndBadArguments) {
  transpose_simd<float>(0, 5, nullptr, 5, nullptr, 0);  // nothing to do, nothing read
  std::vector<float> a(6), b(6);
  EXPECT_INVALID(W("M", "-1"), transpose_simd<float>(-1, 2, a.data(), 2, b.data(), 1));
  EXPECT_INVALID(W("ld_src", "1"), transpose_simd<float>(3, 2, a.data(), 1, b.data(), 3));
  EXPECT_INVALID(W("ld_dst", "2"), transpose_simd<float>(3, 2, a.data(), 2, b.data(), 2));
  EXPECT_INVALID(W("src"), transpose_simd<float>(3, 2, nullptr, 2, b.data(), 3));
}

template <typename K, typename V>
void check_sort(const std::vector<K>& keys, int64_t max_value, bool neg) {
  const int64_t n = static_cast<int64_t>(keys.size());
  std::vector<V> values(keys.size());
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<V>(i % 100);
  std::vector<K> k = keys, tk(keys.size());
  std::vector<V> v = values, tv(keys.size());
  const auto [rk, rv] = radix_sort_parallel(k.data(), v.data(), tk.data(), tv.data(), n, max_value, neg);
  // Passes: all bytes with negatives, else the bytes max_value needs.
  int bits = static_cast<int>(sizeof(K)) * 8;
  if (!neg) bits -= std::countl_zero(static_cast<std::make_unsigned_t<K>>(max_value));
  const int passes = max_value == 0 ? 0 : (bits + 7) / 8;
  EXPECT_EQ(rk, passes % 2 ? tk.data() : k.data());
  EXPECT_EQ(rv, passes % 2 ? tv.data() : v.data());
  std::vector<size_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(rk[i], keys[order[i]]) << i;
    ASSERT_EQ(rv[i], values[order[i]]) << i;
  }
}

TEST(UtilsRadixSort, MatchesStableSort) {
  EXPECT_FALSE(is_radix_sort_accelerated_with_openmp());
  for (size_t n : {size_t{0}, size_t{1}, size_t{3}, size_t{17}, size_t{1000}}) {
    check_sort<int, int>(test::random_vector<int>(n, 0, 70000, 3), 70000, false);
    check_sort<int, int64_t>(test::random_vector<int>(n, 0, 200, 4), 200, false);
    check_sort<int64_t, int>(test::random_vector<int64_t>(n, 0, 1 << 30, 5), 1 << 30, false);
    check_sort<int, int>(test::random_vector<int>(n, -5000, 5000, 6), 5000, true);
    check_sort<int16_t, uint8_t>(test::random_vector<int16_t>(n, -300, 300, 8), 300, true);
    check_sort<uint8_t, int8_t>(test::random_vector<uint8_t>(n, 0, 255, 9), 255, false);
  }
  // max_value 0: nothing to sort, the input comes back.
  std::vector<int> k{3, 1, 2}, v{0, 1, 2}, tk(3), tv(3);
  const auto r = radix_sort_parallel(k.data(), v.data(), tk.data(), tv.data(), 3, 0);
  EXPECT_EQ(r.first, k.data());
  EXPECT_EQ(k, (std::vector<int>{3, 1, 2}));
  std::vector<std::pair<int, float>> pv(3), ptv(3);
  radix_sort_parallel(k.data(), pv.data(), tk.data(), ptv.data(), 3, 3);
}

}  // namespace
}  // namespace quire
