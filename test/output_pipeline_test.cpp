// Output pipeline ops against quire::ref, bit for bit, on every instruction set the CPU
// has; and their argument checks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
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
  mixed,      // full-range int32 mixed with values that land inside [0, 255]
  ties,       // multiplier 0.5 on odd raw values: every x ends in .5
  saturate,   // values near INT32_MIN / INT32_MAX with multipliers near 1
};

Problem make_problem(std::mt19937& rng, G gran, int groups, Data data, bool a_zp_nonzero,
                     bool b_symmetric) {
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto unf = [&](float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); };
  Problem p;
  p.gran = gran;
  p.groups = groups;
  p.block = {uni(0, 5), uni(1, 9), uni(0, 20), uni(1, 70)};
  p.ld_in = p.block.col_size + uni(0, 5);
  uint32_t ncol = p.block.col_start + p.block.col_size + uni(0, 10);
  ncol = (ncol + groups - 1) / groups * groups;
  p.nCol = ncol;
  p.ld_out = static_cast<int>(ncol) + uni(0, 3);
  p.b_symmetric = b_symmetric;
  p.a_zp = a_zp_nonzero ? uni(1, 255) : 0;
  p.c_zp = uni(0, 255);
  const int ng = p.num_groups();
  for (int q = 0; q < ng; ++q) {
    p.b_zp.push_back(b_symmetric ? 0 : uni(-128, 127));
    p.multiplier.push_back(data == Data::ties       ? 0.5f
                           : data == Data::saturate ? unf(0.5f, 2.0f)
                                                    : std::exp2(unf(-16.0f, -1.0f)));
    p.act_times_w_scale.push_back(std::exp2(unf(-12.0f, 0.0f)));
    p.b_scale.push_back(std::exp2(unf(-10.0f, 0.0f)));
  }
  p.a_scale = std::exp2(unf(-10.0f, 0.0f));
  const bool small = data == Data::ties;
  for (int i = 0; i < p.block.row_size; ++i)
    p.row_offsets.push_back(small ? 2 * uni(-8, 8) : uni(0, 255 * 300));
  for (uint32_t j = 0; j < ncol; ++j) {
    p.col_offsets.push_back(small ? 2 * uni(-8, 8) : uni(-128 * 300, 127 * 300));
    p.bias_i32.push_back(small ? 2 * uni(-100, 100) : uni(-100000, 100000));
    p.bias_f32.push_back(unf(-1000.0f, 1000.0f));
  }
  std::uniform_int_distribution<int32_t> full(std::numeric_limits<int32_t>::min(),
                                              std::numeric_limits<int32_t>::max());
  for (int i = 0; i < p.block.row_size * p.ld_in; ++i) {
    int32_t v;
    switch (data) {
      case Data::ties:
        v = 2 * uni(-300, 300) + 1;
        break;
      case Data::saturate:
        v = uni(0, 1) ? std::numeric_limits<int32_t>::max() - uni(0, 1000)
                      : std::numeric_limits<int32_t>::min() + uni(0, 1000);
        break;
      default:
        v = uni(0, 9) == 0 ? 0 : uni(0, 2) == 0 ? full(rng) : uni(-3000, 3000);
    }
    p.in.push_back(v);
  }
  return p;
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
      for (int trial = 0; trial < 12; ++trial) {
        const bool a_nz = trial % 2 == 1, b_sym = trial % 3 == 0;
        const Problem p = make_problem(rng, GRAN, groups, data, a_nz, b_sym);
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
        ASSERT_EQ(got, want) << "relu " << RELU << " granularity " << static_cast<int>(GRAN)
                             << " groups " << groups << " data " << static_cast<int>(data)
                             << " trial " << trial << " block "
                             << detail::block_string(p.block);
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
    for (int trial = 0; trial < 30; ++trial) {
      const Problem p = make_problem(rng, GRAN, groups, Data::mixed, trial % 2 == 1,
                                     trial % 3 == 0);
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
      // In place, as FBGEMM clients do: the int32 inputs sit where the floats go.
      std::vector<int32_t> buf(p.out_elems());
      float* out = reinterpret_cast<float*>(buf.data());
      for (size_t k = 0; k < buf.size(); ++k) out[k] = -7.0f;
      int32_t* in_place = buf.data() + detail::block_offset(p.block, p.ld_out);
      for (int i = 0; i < p.block.row_size; ++i)
        for (int j = 0; j < p.block.col_size; ++j)
          in_place[i * p.ld_out + j] = p.in[i * p.ld_in + j];
      ASSERT_EQ(call_f(isa, op, out, in_place, p.block, p.ld_out, p.ld_out), 0);
      ASSERT_EQ(std::memcmp(out, want.data(), want.size() * sizeof(float)), 0)
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

// Contiguous blocks of few columns and many rows (N = 1..16 GEMMs) and wide blocks.
TEST_P(OutputPipeline, RequantizeU8ContiguousAndWideBlocks) {
  std::uniform_int_distribution<int32_t> val(-20000, 20000);
  for (int cols : {1, 2, 3, 4, 5, 8, 16, 17, 100, 257}) {
    for (int rows : {1, 3, 37, 150}) {
      std::vector<int32_t> in(rows * cols), row_off(rows), col_off(cols), bias(cols), bzp(cols);
      std::vector<float> mult(cols);
      for (auto& v : in) v = val(rng_);
      for (auto& v : row_off) v = val(rng_);
      for (auto& v : col_off) v = val(rng_) / 10;
      for (auto& v : bias) v = val(rng_);
      for (int j = 0; j < cols; ++j) {
        bzp[j] = val(rng_) % 7;
        mult[j] = 0.01f + 0.001f * static_cast<float>(j % 13);
      }
      DoNothing<> done;
      ReQuantizeOutput<true, G::OUT_CHANNEL> op(done, mult.data(), 100, 3, bzp.data(),
                                                row_off.data(), col_off.data(), bias.data(),
                                                cols);
      const block_type_t b{0, rows, 0, cols};
      std::vector<uint8_t> got(rows * cols), want(rows * cols);
      call_f(isa(), op, got.data(), in.data(), b, cols, cols);
      ref::QuantParams qp{G::OUT_CHANNEL, 1, static_cast<uint32_t>(cols), 3,
                          bzp.data(),      row_off.data(), col_off.data()};
      ref::requantize_u8<int32_t>(want.data(), in.data(), b, cols, cols, qp, mult.data(), 100,
                                  bias.data(), nullptr, true);
      ASSERT_EQ(got, want) << rows << " x " << cols;
    }
  }
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
    ASSERT_EQ(got, want) << "memCopy -> ReluOutput, block " << detail::block_string(b);

    ScaleOP<int32_t, int32_t> scale_op(scale);
    call_f(isa(), scale_op, got.data(), in.data(), b, ld_out, ld_in);
    ref::scale_i32(want.data(), in.data(), b, ld_out, ld_in, scale);
    ASSERT_EQ(got, want) << "ScaleOP, block " << detail::block_string(b);

    DoNothing<int32_t, int32_t> done;
    memCopy<> copy(done);
    std::vector<int32_t> copied(n_out, kSentinelI32), expect_copy(n_out, kSentinelI32);
    call_f(isa(), copy, copied.data(), in.data(), b, ld_out, ld_in);
    ref::scale_i32(expect_copy.data(), in.data(), b, ld_out, ld_in, 1);
    ASSERT_EQ(copied, expect_copy) << "memCopy, block " << detail::block_string(b);
  }
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
  expect_invalid_argument([&] { Tensor(done, mult, 0, 0, zp, nullptr, nullptr, nullptr, 0); },
                          "nCol");
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
  expect_invalid_argument([&] { Op(done, 1.0f, scale, 0, zp, nullptr, nullptr, nullptr, 0); },
                          "nCol");
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
