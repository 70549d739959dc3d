// Every entry of every path's ConvKernels, called directly (no conv op, no packer, no
// process-wide path switch): im2col_rows, depthwise (and the row kernels where the path
// has them and they take the layer), groupwise through ConvKernelTester over a shape
// builder (channels, 1x1 / 3x3 / 5x5 / 3x3x3 taps, strides 1 and 2, padding, dilation,
// groups 1 / depthwise / 2-16 channels per group, channel multiplier, granularities,
// biases, zero points, ReLU, 1-3 thread shares); add_i32 and sub_scaled_i32 at odd
// lengths. A path this CPU lacks is skipped naming the missing features.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "conv_kernel_tester.h"
#include "table_paths.h"

namespace quire::test {
namespace {

using Q = QuantizationGranularity;

class ConvTable : public PathTest {
 protected:
  const conv::ConvKernels* table() const {
    const detail::IsaRecord* r = record();
    return r != nullptr ? r->conv : nullptr;
  }
};

constexpr Q kGrans[] = {Q::TENSOR, Q::GROUP, Q::OUT_CHANNEL};
constexpr BiasKind kBiases[] = {BiasKind::none, BiasKind::i32, BiasKind::f32};

// The options every layer below varies with its seed.
template <int D>
ConvKernelTester<D> layer(uint32_t seed) {
  ConvKernelTester<D> t;
  t.seed(seed).batch(1 + seed % 2).a_zero_point(seed * 37 % 256).granularity(kGrans[seed % 3])
      .bias(kBiases[seed / 3 % 3]).relu(seed % 2 == 0).b_symmetric(seed % 7 == 0)
      .threads(1 + seed % 3);
  return t;
}

TEST_P(ConvTable, Depthwise) {
  const conv::ConvKernels* t = table();
  if (t == nullptr) GTEST_SKIP() << "the CPU lacks " << missing();
  uint32_t seed = 1;
  for (int channels : {1, 3, 16, 17, 48, 65})
    for (int kernel : {1, 3, 5})
      for (int stride : {1, 2}) {
        const int dilation = kernel == 3 && seed % 4 == 1 ? 2 : 1;
        layer<2>(seed).channels(channels).multiplier(seed % 3 == 0 ? 2 : 1).kernel(kernel)
            .stride(stride).pad(seed % 2 == 0 ? kernel / 2 : 0).dilation(dilation)
            .input(5 + seed % 4).TestDepthwise(*t);
        ++seed;
      }
  for (int channels : {3, 16, 33}) {  // 3x3x3
    layer<3>(seed).channels(channels).kernel(3).stride(1 + seed % 2).pad(1).input(4)
        .TestDepthwise(*t);
    ++seed;
  }
}

// The layers the row kernels take: 3x3, pad 1, stride 1 or 2, multiplier 1, channels a
// multiple of 16, one quantization group per channel or one in all.
TEST_P(ConvTable, DepthwiseRowLayers) {
  const conv::ConvKernels* t = table();
  if (t == nullptr) GTEST_SKIP() << "the CPU lacks " << missing();
  uint32_t seed = 1;
  int row_kernel_runs = 0;
  for (int channels : {16, 32, 48, 64, 80, 144})
    for (int input : {1, 2, 5, 9})
      for (int stride : {1, 2}) {
        row_kernel_runs +=
            layer<2>(seed).granularity(seed % 2 == 0 ? Q::TENSOR : Q::OUT_CHANNEL)
                .channels(channels).kernel(3).stride(stride).pad(1).input(input)
                .TestDepthwise(*t);
        ++seed;
      }
  // Every layer but those whose B zero points a kernel's byte cannot hold.
  if (t->depthwise_rows != nullptr) {
    EXPECT_GT(row_kernel_runs, 24) << t->name;
  }
}

TEST_P(ConvTable, Groupwise) {
  const conv::ConvKernels* t = table();
  if (t == nullptr) GTEST_SKIP() << "the CPU lacks " << missing();
  uint32_t seed = 1;
  for (int per_group : {2, 4, 8, 16})
    for (int groups : {1, 2, 3, 5})
      for (int kernel : {1, 3}) {
        layer<2>(seed).groups(groups).channels(groups * per_group).kernel(kernel)
            .stride(1 + seed % 2).pad(kernel == 3 && seed % 3 != 0 ? 1 : 0)
            .input(3 + seed % 5).TestGroupwise(*t);
        ++seed;
      }
  for (int per_group : {2, 4, 8, 16}) {  // 3x3x3
    layer<3>(seed).groups(2).channels(2 * per_group).kernel(3).stride(1 + seed % 2).pad(1)
        .input(4).TestGroupwise(*t);
    ++seed;
  }
}

TEST_P(ConvTable, Im2ColRows) {
  const conv::ConvKernels* t = table();
  if (t == nullptr) GTEST_SKIP() << "the CPU lacks " << missing();
  uint32_t seed = 1;
  for (int groups : {1, 2, 3})
    for (int per_group : {1, 3, 8, 17, 64})
      for (int kernel : {1, 3, 5}) {
        const int dilation = kernel == 3 && seed % 3 == 0 ? 2 : 1;
        layer<2>(seed).groups(groups).channels(groups * per_group).kernel(kernel)
            .stride(1 + seed % 2).pad(seed % 3).dilation(dilation).input(5 + seed % 3)
            .TestIm2ColRows(*t);
        ++seed;
      }
  for (int channels : {1, 5, 32}) {  // 3x3x3
    layer<3>(seed).channels(channels).kernel(3).stride(1 + seed % 2).pad(1).input(4)
        .TestIm2ColRows(*t);
    ++seed;
  }
}

// dst += src and dst -= s * src, modulo 2^32.
TEST_P(ConvTable, Int32Rows) {
  const conv::ConvKernels* t = table();
  if (t == nullptr) GTEST_SKIP() << "the CPU lacks " << missing();
  uint32_t seed = 1;
  for (int64_t n : {0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 127, 129, 1000})
    for (int32_t s : {0, 1, -3, 255, INT32_MIN}) {
      // One element past n on each side must keep its value.
      const std::vector<int32_t> src = random_vector<int32_t>(n + 2, INT32_MIN, INT32_MAX, seed);
      const std::vector<int32_t> dst0 = random_vector<int32_t>(n + 2, INT32_MIN, INT32_MAX, seed + 1);
      std::vector<int32_t> add = dst0, sub = dst0, want_add = dst0, want_sub = dst0;
      for (int64_t i = 1; i <= n; ++i) {
        const auto d = static_cast<uint32_t>(dst0[i]), x = static_cast<uint32_t>(src[i]);
        want_add[i] = static_cast<int32_t>(d + x);
        want_sub[i] = static_cast<int32_t>(d - static_cast<uint32_t>(s) * x);
      }
      t->add_i32(add.data() + 1, src.data() + 1, n);
      t->sub_scaled_i32(sub.data() + 1, src.data() + 1, s, n);
      EXPECT_EQ(add, want_add) << t->name << ".add_i32 n " << n;
      EXPECT_EQ(sub, want_sub) << t->name << ".sub_scaled_i32 n " << n << " s " << s;
      ++seed;
    }
}

INSTANTIATE_TEST_SUITE_P(AllPaths, ConvTable, ::testing::ValuesIn(every_path()), path_name);

}  // namespace
}  // namespace quire::test
