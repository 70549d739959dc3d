// Every entry of every path's QuantKernels, called directly (no public function, no
// process-wide path switch) through QuantTester, over odd lengths around the vector
// widths, special floats, scales and zero points, reduced precisions, the legacy
// rounding, shifts and bit rates. A path this CPU lacks is skipped naming the missing
// features.
#include <gtest/gtest.h>

#include <cstdint>

#include "quant_tester.h"
#include "table_paths.h"

namespace quire::test {
namespace {

class QuantTable : public PathTest {
 protected:
  const detail::QuantKernels* table() const {
    const detail::IsaRecord* r = record();
    return r != nullptr ? r->quant : nullptr;
  }
};

constexpr int64_t kLens[] = {0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 127, 1027};

TEST_P(QuantTable, Quantize) {
  const detail::QuantKernels* t = table();
  if (t == nullptr) GTEST_SKIP() << "the CPU lacks " << missing();
  uint32_t seed = 1;
  for (int64_t len : kLens)
    for (bool legacy : {false, true}) {
      QuantTester q;
      q.len(len).scale(0.37f + 0.01f * (seed % 5)).legacy(legacy).seed(seed);
      ++seed;
      q.zero_point(-3).TestQuantize<uint8_t>(t->quantize_u8);
      q.zero_point(100).bits(7).TestQuantize<uint8_t>(t->quantize_u8);
      q.zero_point(-7).bits(0).TestQuantize<int8_t>(t->quantize_s8);
      q.zero_point(5).bits(5).TestQuantize<int8_t>(t->quantize_s8);
      q.zero_point(30000).bits(0).TestQuantize<uint16_t>(t->quantize_u16);
      q.zero_point(-1000).TestQuantize<int16_t>(t->quantize_s16);
      q.zero_point(0).scale(1e-6f).TestQuantize<int32_t>(t->quantize_s32);
      q.zero_point(12345).TestQuantize<int32_t>(t->quantize_s32);
    }
}

TEST_P(QuantTable, QuantizeChannels) {
  const detail::QuantKernels* t = table();
  if (t == nullptr) GTEST_SKIP() << "the CPU lacks " << missing();
  uint32_t seed = 1;
  for (int64_t len : kLens) {
    QuantTester q;
    q.len(len).scale(0.5f).seed(seed++);
    q.zero_point(128).TestQuantizeChannels<uint8_t>(t->quantize_channels_u8);
    q.zero_point(-2).bits(6).TestQuantizeChannels<int8_t>(t->quantize_channels_s8);
    q.zero_point(9).bits(0).TestQuantizeChannels<int8_t>(t->quantize_channels_s8);
    q.zero_point(-40).scale(1e-5f).TestQuantizeChannels<int32_t>(t->quantize_channels_s32);
  }
}

TEST_P(QuantTable, Dequantize) {
  const detail::QuantKernels* t = table();
  if (t == nullptr) GTEST_SKIP() << "the CPU lacks " << missing();
  uint32_t seed = 1;
  for (int64_t len : kLens) {
    QuantTester q;
    q.len(len).scale(0.0123f).seed(seed++);
    q.zero_point(131).TestDequantize<uint8_t>(t->dequantize_u8);
    q.zero_point(-5).TestDequantize<int8_t>(t->dequantize_s8);
    q.zero_point(40000).TestDequantize<uint16_t>(t->dequantize_u16);
    q.zero_point(-300).TestDequantize<int16_t>(t->dequantize_s16);
    q.zero_point(INT32_MIN).TestDequantize<int32_t>(t->dequantize_s32);
    q.zero_point(77).scale(3e-9f).TestDequantize<int32_t>(t->dequantize_s32);
  }
}

TEST_P(QuantTable, FusedQuantizeDequantize) {
  const detail::QuantKernels* t = table();
  if (t == nullptr) GTEST_SKIP() << "the CPU lacks " << missing();
  uint32_t seed = 1;
  for (int64_t len : kLens) {  // the current rounding only (quant_kernels.h)
    QuantTester q;
    q.len(len).scale(0.21f).seed(seed++);
    q.zero_point(17).TestFusedQuantizeDequantize<uint8_t>(t->fused_quantize_dequantize);
    q.zero_point(-4).bits(4).TestFusedQuantizeDequantize<int8_t>(t->fused_quantize_dequantize);
  }
}

TEST_P(QuantTable, FindMinMax) {
  const detail::QuantKernels* t = table();
  if (t == nullptr) GTEST_SKIP() << "the CPU lacks " << missing();
  uint32_t seed = 1;
  for (int64_t len : kLens)
    for (bool nan_only : {false, true}) QuantTester().len(len).seed(seed++).TestMinMax(t->find_min_max, nan_only);
}

TEST_P(QuantTable, Requantize) {
  const detail::QuantKernels* t = table();
  if (t == nullptr) GTEST_SKIP() << "the CPU lacks " << missing();
  uint32_t seed = 1;
  for (int64_t len : kLens)
    for (float mult : {1e-7f, 0.0031f, 0.75f}) {
      QuantTester q;
      q.len(len).scale(mult).seed(seed++);
      q.zero_point(3).TestRequantize<uint8_t>(t->requantize_u8);
      q.zero_point(-1).bits(4).TestRequantize<int8_t>(t->requantize_s8);
      q.zero_point(0).bits(0).TestRequantize<int8_t>(t->requantize_s8);
      q.zero_point(500).TestRequantize<uint16_t>(t->requantize_u16);
      q.zero_point(-20).TestRequantize<int16_t>(t->requantize_s16);
      q.zero_point(-100000).TestRequantize<int32_t>(t->requantize_s32);
    }
}

TEST_P(QuantTable, RequantizeFixed) {
  const detail::QuantKernels* t = table();
  if (t == nullptr) GTEST_SKIP() << "the CPU lacks " << missing();
  uint32_t seed = 1;
  for (int64_t len : kLens)
    for (int shift : {0, 1, 17, 31, 40, 63}) {
      QuantTester q;
      q.len(len).right_shift(shift).seed(seed++);
      q.zero_point(128).TestRequantizeFixed<uint8_t>(t->requantize_fixed_u8);
      q.zero_point(-3).bits(6).TestRequantizeFixed<int8_t>(t->requantize_fixed_s8);
      q.zero_point(1).bits(0).TestRequantizeFixed<uint16_t>(t->requantize_fixed_u16);
      q.zero_point(-9).TestRequantizeFixed<int16_t>(t->requantize_fixed_s16);
      q.zero_point(7).TestRequantizeFixed<int32_t>(t->requantize_fixed_s32);
    }
}

TEST_P(QuantTable, Rowwise) {
  const detail::QuantKernels* t = table();
  if (t == nullptr) GTEST_SKIP() << "the CPU lacks " << missing();
  uint32_t seed = 1;
  for (int64_t len : kLens)
    for (int bit_rate : {2, 4, 8}) {
      QuantTester q;
      q.len(len).bit_rate(bit_rate).scale(0.013f * bit_rate).zero_point(-11).seed(seed++);
      q.TestRowwiseQuantize(t->rowwise_quantize);
      q.TestRowwiseDequantize(t->rowwise_dequantize);
    }
}

TEST_P(QuantTable, HalfConversions) {
  const detail::QuantKernels* t = table();
  if (t == nullptr) GTEST_SKIP() << "the CPU lacks " << missing();
  uint32_t seed = 1;
  for (int64_t len : kLens) {
    QuantTester q;
    q.len(len).scale(1e-3f).seed(seed++);
    q.TestFloatToHalf(t->float_to_half);
    q.TestHalfToFloat(t->half_to_float);
    q.TestFloatToBfloat16(t->float_to_bfloat16);
  }
}

INSTANTIATE_TEST_SUITE_P(AllPaths, QuantTable, ::testing::ValuesIn(every_path()), path_name);

}  // namespace
}  // namespace quire::test
