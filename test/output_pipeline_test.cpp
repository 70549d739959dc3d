// Output pipeline ops against quire::ref, bit for bit, on every instruction set the CPU
// has; and their argument checks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "quire/OutputProcessing.h"
#include "quire/Utils.h"
#include "quire/ref/ReferenceOutput.h"

namespace quire {
namespace {

using G = QuantizationGranularity;

constexpr uint8_t kSentinelU8 = 0xA5;
constexpr int32_t kSentinelI32 = 0x5A5A5A5A;

// Calls op.f<isa>() for an ISA chosen at run time.
template <class Op>
int call_f(inst_set_t isa, const Op& op, typename Op::outType* out,
           const typename Op::inpType* inp, const block_type_t& b, int ld_out, int ld_in) {
  switch (isa) {
    case inst_set_t::anyarch:
      return op.template f<inst_set_t::anyarch>(out, inp, b, ld_out, ld_in);
    case inst_set_t::avx2:
      return op.template f<inst_set_t::avx2>(out, inp, b, ld_out, ld_in);
    default:
      return op.template f<inst_set_t::avx512>(out, inp, b, ld_out, ld_in);
  }
}

// One random requantization problem: a block of an output matrix with its inputs and
// every parameter the ops take.
struct Problem {
  block_type_t block{};
  int ld_in = 0, ld_out = 0;
  uint32_t nCol = 0;
  int groups = 1;
  G gran = G::TENSOR;
  std::vector<int32_t> in, row_offsets, col_offsets, bias_i32, b_zp;
  std::vector<float> bias_f32, act_times_w_scale, multiplier, b_scale;
  int32_t a_zp = 0, c_zp = 0;
  float a_scale = 1.0f;
  bool b_symmetric = false;

  int num_groups() const {
    return gran == G::TENSOR ? 1 : gran == G::GROUP ? groups : static_cast<int>(nCol);
  }
  size_t out_elems() const {
    return static_cast<size_t>(block.row_start + block.row_size) * ld_out;
  }
  ref::QuantParams quant() const {
    return {gran,
            groups,
            nCol,
            a_zp,
            b_zp.data(),
            b_symmetric ? nullptr : row_offsets.data(),
            a_zp == 0 ? nullptr : col_offsets.data()};
  }
};

// Kinds of input data, so that every rounding and saturation case is hit.
enum class Data {
  mixed,     // full-range int32 mixed with inputs whose raw value lands in or near [0, 255]
  ties,      // multiplier 0.5 on odd raw values: x ends in .5 (int32 bias or none)
  saturate,  // inputs near INT32_MIN / INT32_MAX with multipliers near 1
};

// The block of trial t: the first kRandomBlocks trials take a random block inside a
// wider matrix (offsets, padding, leading dimensions larger than the block), the others
// the whole of a contiguous matrix (ld == cols: the several-rows-per-vector paths).
constexpr int kRandomBlocks = 12;
constexpr struct {
  int rows, cols;
} kContiguousBlocks[] = {{37, 1}, {150, 2}, {5, 4}, {33, 4}, {9, 8}, {1, 8},
                         {17, 16}, {40, 3}, {3, 257}};
constexpr int kTrials = kRandomBlocks + std::size(kContiguousBlocks);

Problem make_problem(std::mt19937& rng, G gran, int groups, Data data, bool a_zp_nonzero,
                     bool b_symmetric, int trial) {
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto unf = [&](float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); };
  Problem p;
  p.gran = gran;
  p.groups = groups;
  uint32_t ncol;
  if (trial < kRandomBlocks) {
    p.block = {uni(0, 5), uni(1, 9), uni(0, 20), uni(1, 70)};
    p.ld_in = p.block.col_size + uni(0, 5);
    ncol = p.block.col_start + p.block.col_size + uni(0, 10);
    ncol = (ncol + groups - 1) / groups * groups;
    p.ld_out = static_cast<int>(ncol) + uni(0, 3);
  } else {
    const auto shape = kContiguousBlocks[trial - kRandomBlocks];
    p.block = {0, shape.rows, 0, shape.cols};
    p.ld_in = p.ld_out = shape.cols;
    ncol = (shape.cols + groups - 1) / groups * groups;
  }
  p.nCol = ncol;
  p.b_symmetric = b_symmetric;
  p.a_zp = a_zp_nonzero ? uni(1, 255) : 0;
  p.c_zp = uni(0, 255);
  for (int q = 0; q < p.num_groups(); ++q) {
    p.b_zp.push_back(b_symmetric ? 0 : uni(-128, 127));
    p.multiplier.push_back(data == Data::ties       ? 0.5f
                           : data == Data::saturate ? unf(0.5f, 2.0f)
                                                    : std::exp2(unf(-10.0f, -6.0f)));
    p.act_times_w_scale.push_back(std::exp2(unf(-10.0f, 0.0f)));
    p.b_scale.push_back(std::exp2(unf(-10.0f, 0.0f)));
  }
  p.a_scale = std::exp2(unf(-10.0f, 0.0f));
  for (int i = 0; i < p.block.row_size; ++i) p.row_offsets.push_back(uni(0, 255 * 300));
  for (uint32_t j = 0; j < ncol; ++j) {
    p.col_offsets.push_back(uni(-128 * 300, 127 * 300));
    // Even int32 biases keep raw + bias odd for the ties data.
    p.bias_i32.push_back(2 * uni(-10000, 10000));
    p.bias_f32.push_back(unf(-20.0f, 20.0f));
  }
  // Most inputs are chosen as target + (zero-point corrections), so that their raw value
  // is the target; the rest are arbitrary int32.
  std::uniform_int_distribution<int32_t> full(std::numeric_limits<int32_t>::min(),
                                              std::numeric_limits<int32_t>::max());
  const ref::QuantParams quant = p.quant();
  for (int r = 0; r < p.block.row_size; ++r) {
    for (int c = 0; c < p.ld_in; ++c) {
      int32_t target;
      switch (data) {
        case Data::ties:
          target = 2 * uni(-300, 300) + 1;
          break;
        case Data::saturate:
          target = uni(0, 1) ? std::numeric_limits<int32_t>::max() - uni(0, 1000)
                             : std::numeric_limits<int32_t>::min() + uni(0, 1000);
          break;
        default:
          target = uni(0, 9) == 0 ? 0 : uni(-40000, 40000);
      }
      const bool arbitrary = c >= p.block.col_size || data == Data::saturate ||
                             (data == Data::mixed && uni(0, 3) == 0);
      if (arbitrary) {
        p.in.push_back(data == Data::saturate ? target : full(rng));
      } else {
        // corrected_raw(0) = -(corrections), all modulo 2^32.
        const auto corr0 = static_cast<uint32_t>(
            ref::corrected_raw(quant, 0, r, p.block.col_start + c));
        p.in.push_back(static_cast<int32_t>(static_cast<uint32_t>(target) - corr0));
      }
    }
  }
  return p;
}

// Bitwise equality of two whole output matrices (so -0.0f differs from 0.0f), reporting
// the first difference by row and column.
template <class T>
::testing::AssertionResult same_bits(const std::vector<T>& got, const std::vector<T>& want,
                                     int ld) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "sizes differ";
  for (size_t k = 0; k < got.size(); ++k) {
    if (std::memcmp(&got[k], &want[k], sizeof(T)) != 0) {
      return ::testing::AssertionFailure()
             << "first difference at row " << k / ld << ", column " << k % ld << ": got "
             << +got[k] << ", want " << +want[k];
    }
  }
  return ::testing::AssertionSuccess();
}

bool isa_available(inst_set_t isa) {
  if (isa == inst_set_t::avx2) return fbgemmHasAvx2Support();
  if (isa == inst_set_t::avx512) return fbgemmHasAvx512Support();
  return true;
}

class OutputPipeline : public ::testing::TestWithParam<inst_set_t> {
 protected:
  void SetUp() override {
    if (!isa_available(GetParam()))
      GTEST_SKIP() << "the CPU lacks " << instSetName(GetParam());
  }
  inst_set_t isa() const { return GetParam(); }
  std::mt19937 rng_{12345};
};

// Runs ReQuantizeOutput<RELU, GRAN, BiasT> on random problems and compares with the
// reference, including the untouched elements around the block.
template <bool RELU, G GRAN, class BiasT>
void check_requantize_u8(inst_set_t isa, std::mt19937& rng, bool with_bias) {
  for (int groups : {1, 2, 4}) {
    if (GRAN != G::GROUP && groups != 1) continue;
    for (Data data : {Data::mixed, Data::ties, Data::saturate}) {
      for (int trial = 0; trial < kTrials; ++trial) {
        const bool a_nz = trial % 2 == 1, b_sym = trial % 3 == 0;
        const Problem p = make_problem(rng, GRAN, groups, data, a_nz, b_sym, trial);
        const BiasT* bias = nullptr;
        if constexpr (std::is_same_v<BiasT, float>) {
          if (with_bias) bias = p.bias_f32.data();
        } else {
          if (with_bias) bias = p.bias_i32.data();
        }
        DoNothing<> done;
        ReQuantizeOutput<RELU, GRAN, BiasT> op(
            done, p.multiplier.data(), p.c_zp, p.a_zp, p.b_zp.data(),
            p.b_symmetric ? nullptr : p.row_offsets.data(),
            p.a_zp == 0 ? nullptr : p.col_offsets.data(), bias, p.nCol, groups,
            p.act_times_w_scale.data());
        std::vector<uint8_t> got(p.out_elems(), kSentinelU8), want = got;
        ASSERT_EQ(call_f(isa, op, got.data(), p.in.data(), p.block, p.ld_out, p.ld_in), 0);
        ref::requantize_u8<BiasT>(want.data(), p.in.data(), p.block, p.ld_out, p.ld_in,
                                  p.quant(), p.multiplier.data(), p.c_zp, bias,
                                  p.act_times_w_scale.data(), RELU);
        ASSERT_TRUE(same_bits(got, want, p.ld_out))
            << "relu " << RELU << " granularity " << static_cast<int>(GRAN) << " groups "
            << groups << " data " << static_cast<int>(data) << " trial " << trial
            << " block " << detail::block_string(p.block);
      }
    }
  }
}

template <bool RELU, G GRAN>
void check_requantize_u8_all_biases(inst_set_t isa, std::mt19937& rng) {
  check_requantize_u8<RELU, GRAN, int32_t>(isa, rng, true);
  check_requantize_u8<RELU, GRAN, int32_t>(isa, rng, false);
  check_requantize_u8<RELU, GRAN, float>(isa, rng, true);
}

TEST_P(OutputPipeline, RequantizeU8MatchesReference) {
  check_requantize_u8_all_biases<false, G::TENSOR>(isa(), rng_);
  check_requantize_u8_all_biases<true, G::TENSOR>(isa(), rng_);
  check_requantize_u8_all_biases<false, G::GROUP>(isa(), rng_);
  check_requantize_u8_all_biases<true, G::GROUP>(isa(), rng_);
  check_requantize_u8_all_biases<false, G::OUT_CHANNEL>(isa(), rng_);
  check_requantize_u8_all_biases<true, G::OUT_CHANNEL>(isa(), rng_);
}

// The output of ties data must actually contain halfway cases resolved to even: with
// multiplier 0.5, zero points 0 and no bias, raw 1 -> 0, 3 -> 2, 5 -> 2, 7 -> 4.
TEST_P(OutputPipeline, RequantizeU8RoundsHalfToEven) {
  const std::vector<int32_t> in = {1, 3, 5, 7, -1, -3, 509, 511};
  const float mult = 0.5f;
  const int32_t zero = 0;
  DoNothing<> done;
  ReQuantizeOutput<false> op(done, &mult, 0, 0, &zero, nullptr, nullptr, nullptr, 8);
  std::vector<uint8_t> out(8);
  call_f(isa(), op, out.data(), in.data(), {0, 1, 0, 8}, 8, 8);
  EXPECT_EQ(out, (std::vector<uint8_t>{0, 2, 2, 4, 0, 0, 254, 255}));
}

template <bool RELU, G GRAN>
void check_requantize_f32(inst_set_t isa, std::mt19937& rng) {
  for (int groups : {1, 2, 4}) {
    if (GRAN != G::GROUP && groups != 1) continue;
    for (int trial = 0; trial < 2 * kTrials; ++trial) {
      const Problem p = make_problem(rng, GRAN, groups, Data::mixed, trial % 2 == 1,
                                     trial % 3 == 0, trial % kTrials);
      const float* bias = trial % 4 == 0 ? nullptr : p.bias_f32.data();
      // A negative scale turns raw 0 into -0.0f, which adding a bias of 0 would change.
      const float a_scale = trial % 8 == 0 ? -p.a_scale : p.a_scale;
      DoNothing<float, float> done;
      ReQuantizeForFloat<RELU, GRAN> op(done, a_scale, p.b_scale.data(), p.a_zp,
                                        p.b_zp.data(),
                                        p.b_symmetric ? nullptr : p.row_offsets.data(),
                                        p.a_zp == 0 ? nullptr : p.col_offsets.data(), bias,
                                        p.nCol, groups);
      std::vector<float> want(p.out_elems(), -7.0f);
      ref::requantize_f32(want.data(), p.in.data(), p.block, p.ld_out, p.ld_in, p.quant(),
                          a_scale, p.b_scale.data(), bias, RELU);
      // In place, as FBGEMM clients do: the int32 inputs sit where the floats go, passed
      // as reinterpret_cast<int32_t*>(C).
      std::vector<float> got(p.out_elems(), -7.0f);
      int32_t* in_place =
          reinterpret_cast<int32_t*>(got.data()) + detail::block_offset(p.block, p.ld_out);
      for (int i = 0; i < p.block.row_size; ++i)
        std::memcpy(in_place + i * p.ld_out, p.in.data() + i * p.ld_in,
                    sizeof(int32_t) * p.block.col_size);
      ASSERT_EQ(call_f(isa, op, got.data(), in_place, p.block, p.ld_out, p.ld_out), 0);
      ASSERT_TRUE(same_bits(got, want, p.ld_out))
          << "relu " << RELU << " granularity " << static_cast<int>(GRAN) << " groups "
          << groups << " trial " << trial << " block " << detail::block_string(p.block);
    }
  }
}

TEST_P(OutputPipeline, RequantizeForFloatInPlaceMatchesReference) {
  check_requantize_f32<false, G::TENSOR>(isa(), rng_);
  check_requantize_f32<true, G::TENSOR>(isa(), rng_);
  check_requantize_f32<false, G::GROUP>(isa(), rng_);
  check_requantize_f32<true, G::GROUP>(isa(), rng_);
  check_requantize_f32<false, G::OUT_CHANNEL>(isa(), rng_);
  check_requantize_f32<true, G::OUT_CHANNEL>(isa(), rng_);
}

// memCopy -> ReluOutput, ScaleOP and ReluOutput alone, on random blocks.
TEST_P(OutputPipeline, Int32OpsAndChainsMatchReference) {
  std::uniform_int_distribution<int32_t> full(std::numeric_limits<int32_t>::min(),
                                              std::numeric_limits<int32_t>::max());
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); };
  for (int trial = 0; trial < 100; ++trial) {
    const block_type_t b{uni(0, 4), uni(1, 9), uni(0, 20), uni(1, 70)};
    const int ld_in = b.col_size + uni(0, 4), ld_out = b.col_start + b.col_size + uni(0, 4);
    std::vector<int32_t> in(b.row_size * ld_in);
    for (auto& v : in) v = full(rng_);
    const int32_t zero_pt = uni(-1000, 1000), scale = full(rng_);
    const size_t n_out = static_cast<size_t>(b.row_start + b.row_size) * ld_out;
    std::vector<int32_t> want(n_out, kSentinelI32), got(n_out, kSentinelI32);

    ReluOutput<int32_t> relu(zero_pt);
    memCopy<int32_t, int32_t, ReluOutput<int32_t>> copy_relu(relu);
    call_f(isa(), copy_relu, got.data(), in.data(), b, ld_out, ld_in);
    ref::relu_i32(want.data(), in.data(), b, ld_out, ld_in, zero_pt);
    ASSERT_TRUE(same_bits(got, want, ld_out))
        << "memCopy -> ReluOutput, block " << detail::block_string(b);

    ScaleOP<int32_t, int32_t> scale_op(scale);
    call_f(isa(), scale_op, got.data(), in.data(), b, ld_out, ld_in);
    ref::scale_i32(want.data(), in.data(), b, ld_out, ld_in, scale);
    ASSERT_TRUE(same_bits(got, want, ld_out)) << "ScaleOP, block " << detail::block_string(b);

    DoNothing<int32_t, int32_t> done;
    memCopy<> copy(done);
    std::vector<int32_t> copied(n_out, kSentinelI32), expect_copy(n_out, kSentinelI32);
    call_f(isa(), copy, copied.data(), in.data(), b, ld_out, ld_in);
    ref::scale_i32(expect_copy.data(), in.data(), b, ld_out, ld_in, 1);
    ASSERT_TRUE(same_bits(copied, expect_copy, ld_out))
        << "memCopy, block " << detail::block_string(b);
  }
}

// Types other than int32 take the ops' generic loops: memCopy<uint8_t> -> ReluOutput
// <uint8_t>, ScaleOP<float> chained after ReQuantizeForFloat, and DoNothing.
TEST_P(OutputPipeline, OtherTypesAndDoNothing) {
  const block_type_t b{1, 2, 1, 3};
  const std::vector<uint8_t> in_u8 = {9, 200, 3, 0, 7, 50};  // 2 x 3, ld 3
  std::vector<uint8_t> out_u8(3 * 5, kSentinelU8);
  ReluOutput<uint8_t> relu(8);
  memCopy<uint8_t, uint8_t, ReluOutput<uint8_t>> copy(relu);
  ASSERT_EQ(call_f(isa(), copy, out_u8.data(), in_u8.data(), b, 5, 3), 0);
  const uint8_t s = kSentinelU8;
  EXPECT_EQ(out_u8, (std::vector<uint8_t>{s, s, s, s, s, s, 9, 200, 8, s, s, 8, 8, 50, s}));

  const float b_scale = 0.5f;
  const int32_t zero = 0;
  ScaleOP<float, float> twice(2.0f);
  ReQuantizeForFloat<false, G::TENSOR, float, int32_t, ScaleOP<float, float>> dequant(
      twice, 0.25f, &b_scale, 0, &zero, nullptr, nullptr, nullptr, 4);
  const std::vector<int32_t> in_i32 = {8, -16, 3, 1, 2, 4};
  std::vector<float> out_f(3 * 4, -1.0f);
  ASSERT_EQ(call_f(isa(), dequant, out_f.data(), in_i32.data(), b, 4, 3), 0);
  // (raw * 0.25 * 0.5) * 2
  EXPECT_EQ(out_f, (std::vector<float>{-1, -1, -1, -1, -1, 2, -4, 0.75f, -1, 0.25f, 0.5f, 1}));

  DoNothing<> nothing;
  EXPECT_EQ(call_f(isa(), nothing, out_u8.data(), in_u8.data(), b, 5, 3), 0);
}

INSTANTIATE_TEST_SUITE_P(Isa, OutputPipeline,
                         ::testing::Values(inst_set_t::anyarch, inst_set_t::avx2,
                                           inst_set_t::avx512),
                         [](const auto& info) { return std::string(instSetName(info.param)); });

// Runs `f`, which must throw std::invalid_argument whose message names `param`.
template <class F>
void expect_invalid_argument(F&& f, const std::string& param) {
  EXPECT_THROW(f(), std::invalid_argument) << "expected an error naming " << param;
  try {
    f();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(param), std::string::npos)
        << "message '" << e.what() << "' does not name " << param;
  }
}

TEST(OutputPipelineArgs, ReQuantizeOutputConstructorRejectsBadArguments) {
  DoNothing<> done;
  const float mult[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  const int32_t zp[8] = {};
  const float bias_f[8] = {};
  using Tensor = ReQuantizeOutput<false>;
  using Group = ReQuantizeOutput<false, G::GROUP>;
  using FloatBias = ReQuantizeOutput<false, G::TENSOR, float>;
  expect_invalid_argument([&] { Tensor(done, nullptr, 0, 0, zp, nullptr, nullptr, nullptr, 8); },
                          "C_multiplier");
  expect_invalid_argument([&] { Tensor(done, mult, 0, 0, nullptr, nullptr, nullptr, nullptr, 8); },
                          "Bq_zero_point");
  expect_invalid_argument(
      [&] { Tensor(done, mult, 0, 0, zp, nullptr, nullptr, nullptr, uint32_t{1} << 31); }, "nCol");
  // nCol = 0 is an empty output (N = 0): accepted, as FBGEMM does.
  EXPECT_NO_THROW(Tensor(done, mult, 0, 0, zp, nullptr, nullptr, nullptr, 0));
  expect_invalid_argument([&] { Tensor(done, mult, 256, 0, zp, nullptr, nullptr, nullptr, 8); },
                          "C_zero_point");
  expect_invalid_argument([&] { Tensor(done, mult, -1, 0, zp, nullptr, nullptr, nullptr, 8); },
                          "C_zero_point");
  expect_invalid_argument(
      [&] { Group(done, mult, 0, 0, zp, nullptr, nullptr, nullptr, 8, 0); }, "groups");
  expect_invalid_argument(
      [&] { Group(done, mult, 0, 0, zp, nullptr, nullptr, nullptr, 8, 3); }, "groups");
  expect_invalid_argument(
      [&] { FloatBias(done, mult, 0, 0, zp, nullptr, nullptr, bias_f, 8, 1, nullptr); },
      "act_times_w_scale");
}

TEST(OutputPipelineArgs, ReQuantizeForFloatConstructorRejectsBadArguments) {
  DoNothing<float, float> done;
  const float scale[4] = {1, 1, 1, 1};
  const int32_t zp[4] = {};
  using Op = ReQuantizeForFloat<false, G::GROUP>;
  expect_invalid_argument([&] { Op(done, 1.0f, nullptr, 0, zp, nullptr, nullptr, nullptr, 4, 2); },
                          "Bq_scale");
  expect_invalid_argument(
      [&] { Op(done, 1.0f, scale, 0, nullptr, nullptr, nullptr, nullptr, 4, 2); },
      "Bq_zero_point");
  expect_invalid_argument(
      [&] { Op(done, 1.0f, scale, 0, zp, nullptr, nullptr, nullptr, uint32_t{1} << 31); }, "nCol");
  EXPECT_NO_THROW(Op(done, 1.0f, scale, 0, zp, nullptr, nullptr, nullptr, 0));
  expect_invalid_argument([&] { Op(done, 1.0f, scale, 0, zp, nullptr, nullptr, nullptr, 4, 3); },
                          "groups");
}

TEST(OutputPipelineArgs, FRejectsBadBlocksAndMissingOffsets) {
  DoNothing<> done;
  const float mult[2] = {1, 1};
  const int32_t b_zp[2] = {0, 5};  // group 0 symmetric, group 1 not
  const int32_t in[64] = {};
  uint8_t out[64] = {};
  // Without row offsets, blocks inside group 0 (columns 0..3) work, group 1 needs them.
  ReQuantizeOutput<false, G::GROUP> op(done, mult, 0, 0, b_zp, nullptr, nullptr, nullptr, 8, 2);
  EXPECT_EQ((op.f<inst_set_t::anyarch>(out, in, {0, 2, 0, 4}, 8, 8)), 0);
  expect_invalid_argument([&] { op.f<inst_set_t::anyarch>(out, in, {0, 2, 2, 4}, 8, 8); },
                          "row_offsets");
  expect_invalid_argument([&] { op.f<inst_set_t::anyarch>(out, in, {0, -1, 0, 4}, 8, 8); },
                          "block");
  expect_invalid_argument([&] { op.f<inst_set_t::anyarch>(out, in, {0, 2, 0, 4}, 8, 3); },
                          "ld_in");
  expect_invalid_argument([&] { op.f<inst_set_t::anyarch>(out, in, {0, 2, 2, 2}, 3, 8); },
                          "ld_out");
  expect_invalid_argument([&] { op.f<inst_set_t::anyarch>(out, in, {0, 1, 4, 5}, 16, 8); },
                          "nCol");

  const int32_t zero[1] = {0};
  ReQuantizeOutput<false> a_zp_op(done, mult, 0, 7, zero, nullptr, nullptr, nullptr, 8);
  expect_invalid_argument([&] { a_zp_op.f<inst_set_t::anyarch>(out, in, {0, 1, 0, 8}, 8, 8); },
                          "col_offsets");

  DoNothing<float, float> done_f;
  float out_f[64] = {};
  ReQuantizeForFloat<false> float_op(done_f, 1.0f, mult, 3, zero, nullptr, nullptr, nullptr, 8);
  expect_invalid_argument([&] { float_op.f<inst_set_t::anyarch>(out_f, in, {0, 1, 0, 8}, 8, 8); },
                          "col_offsets");

  int32_t out_i[64] = {};
  ReluOutput<int32_t> relu(0);
  expect_invalid_argument([&] { relu.f<inst_set_t::anyarch>(out_i, in, {0, 2, 1, 4}, 4, 8); },
                          "ld_out");
  ScaleOP<int32_t, int32_t> scale(2);
  expect_invalid_argument([&] { scale.f<inst_set_t::anyarch>(out_i, in, {0, 2, 0, 4}, 8, 2); },
                          "ld_in");
  DoNothing<int32_t, int32_t> done_i;
  memCopy<> copy(done_i);
  expect_invalid_argument([&] { copy.f<inst_set_t::anyarch>(out_i, in, {-1, 1, 0, 4}, 8, 8); },
                          "block");
}

}  // namespace
}  // namespace quire
