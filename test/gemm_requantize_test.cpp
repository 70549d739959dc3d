// End to end int8 GEMM with requantized output, on every ISA path the CPU has:
// fbgemmPacked(PackAWithRowOffset<uint8_t>, PackBMatrix<int8_t>, ReQuantizeOutput<...>)
// to uint8, and ReQuantizeForFloat to float with C_buffer aliasing C (as FBGEMM clients
// do), against quire::ref bit for bit. Covered: a sampled M x N x K sweep in which every
// size of {1..20, 31, 32, 33, 63, 64, 65, 127, 513, 1023} appears for each dimension; the
// inference shapes of shared/BENCH.md; full-range and extreme data; groups 1, 2, 4;
// transposed A and B; padded leading dimensions; TENSOR / GROUP / OUT_CHANNEL; ReLU;
// int32, float and no bias; zero A zero point or not; symmetric B or not; and thread
// counts 1, 2, 3, 7 (sequential per-thread calls, and real std::threads for 2 and 7), all
// of which must give the same bits.
// The case machinery is in gemm_requantize_cases.h; this file chooses the cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "gemm_requantize_cases.h"
#include "test_util.h"

namespace quire::test {
namespace {

// ---------------------------------------------------------------------------------------
// Problem sets (built once, shared by every ISA).

const std::vector<int> kSizes = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12,  13,  14,  15,
                                 16, 17, 18, 19, 20, 31, 32, 33, 63, 64, 65, 127, 513, 1023};

// Options that vary with the case index so that every combination of the output op's
// template arguments (ReLU x granularity x bias type) comes up every 36 cases.
void set_op_options(Config& c, int index, std::mt19937& rng) {
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  c.relu = index % 2 == 1;
  c.gran = static_cast<Gran>((index / 2) % 3);
  c.bias = static_cast<Bias>((index / 6) % 3);
  c.float_bias_type = c.bias == Bias::f32 || (c.bias == Bias::none && (index / 18) % 2 == 1);
  c.a_zp = uni(0, 1) == 1;
  c.b_sym = uni(0, 2) == 0;
  c.null_offsets = uni(0, 1) == 1;
  // GROUP: the conv groups, sometimes split further (any divisor of the columns is valid).
  c.qgroups = c.G;
  if (c.gran == Gran::GROUP) {
    std::vector<int> d;
    for (int x : {1, 2, 3, 4})
      if (c.N % x == 0) d.push_back(x);
    c.qgroups = c.G * d[uni(0, int(d.size()) - 1)];
  }
}

std::vector<Config> sweep_configs() {
  std::vector<Config> out;
  std::mt19937 rng(20240611);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto pad = [&] { return std::vector<int>{0, 0, 0, 1, 3, 17}[uni(0, 5)]; };
  // Each size appears in each dimension three times; the other two dimensions are drawn so the
  // work stays small (the portable path and the reference are plain loops).
  constexpr int64_t kMaxMacs = int64_t{1} << 24;
  int index = 0;
  for (int round = 0; round < 3; ++round) {
    for (int dim = 0; dim < 3; ++dim) {
      for (int v : kSizes) {
        Config c;
        c.G = std::vector<int>{1, 2, 4}[(index / 36) % 3];  // each G gets all 36 op combinations
        int dims[3];
        do {
          for (int& d : dims) d = kSizes[uni(0, int(kSizes.size()) - 1)];
          dims[dim] = v;
        } while (int64_t{dims[0]} * dims[1] * dims[2] * c.G > kMaxMacs);
        c.M = dims[0];
        c.N = dims[1];
        c.K = dims[2];
        c.atrans = uni(0, 1) ? matrix_op_t::Transpose : matrix_op_t::NoTranspose;
        c.btrans = uni(0, 1) ? matrix_op_t::Transpose : matrix_op_t::NoTranspose;
        set_op_options(c, index, rng);
        const int d = uni(0, 9);
        c.data = d == 0 ? Data::a255_bmin : d == 1 ? Data::a255_bmax : Data::random;
        c.lda_pad = pad();
        c.ldb_pad = pad();
        c.ldc_pad = pad();
        c.threads = {1, 2, 3, 7};
        if (index % 4 == 0) c.concurrent = {2};
        if (index % 4 == 2) c.concurrent = {7};
        c.seed = 1000 + index;
        out.push_back(c);
        ++index;
      }
    }
  }
  // Sizes of the sweep that cross the M, K and N cache blocks (MCB ~120, KCB 512,
  // NCB ~512) together, which the drawn cases keep too small to do.
  const int big[][4] = {
      {127, 513, 513, 1}, {513, 127, 1023, 1}, {127, 65, 513, 4}, {1023, 513, 33, 2}};
  for (const auto& b : big) {
    Config c;
    c.M = b[0];
    c.N = b[1];
    c.K = b[2];
    c.G = b[3];
    c.atrans = index % 2 ? matrix_op_t::Transpose : matrix_op_t::NoTranspose;
    c.btrans = index % 3 ? matrix_op_t::Transpose : matrix_op_t::NoTranspose;
    set_op_options(c, index, rng);
    c.ldc_pad = pad();
    c.threads = {1, 7};
    c.float_threads = {3};
    if (index % 2 == 0) c.concurrent = {2};
    c.seed = 1000 + index;
    out.push_back(c);
    ++index;
  }
  return out;
}

// The extremes at the deepest K of the sweep, with every granularity and ReLU.
std::vector<Config> extreme_configs() {
  std::vector<Config> out;
  std::mt19937 rng(77);
  int index = 0;
  for (Data data : {Data::a255_bmin, Data::a255_bmax}) {
    for (int rep = 0; rep < 12; ++rep) {
      Config c;
      c.M = 33;
      c.N = 65;
      c.K = 1023;
      c.G = rep % 3 == 2 ? 2 : 1;
      c.data = data;
      c.atrans = rep % 4 == 1 ? matrix_op_t::Transpose : matrix_op_t::NoTranspose;
      c.btrans = rep % 4 == 3 ? matrix_op_t::Transpose : matrix_op_t::NoTranspose;
      set_op_options(c, index, rng);
      c.a_zp = rep % 2 == 0;
      c.b_sym = rep % 3 == 1;
      c.threads = {1, 3};
      c.seed = 5000 + index;
      out.push_back(c);
      ++index;
    }
  }
  return out;
}

struct Shape {
  int M, N, K;
};

// shared/BENCH.md, "inference" (M x N x K).
const Shape kInferenceShapes[] = {
    {156800, 4, 36},  {156800, 8, 36},  {156800, 16, 36}, {1, 128, 512},   {1, 1024, 256},
    {1, 2048, 512},   {1, 4096, 1024},  {6, 256, 1024},   {6, 256, 2048},  {6, 512, 512},
    {6, 1024, 256},   {6, 2048, 256},   {6, 2048, 512},   {6, 4096, 256},  {6, 4096, 1024},
    {6, 4096, 2048},  {10, 2048, 256},  {10, 4096, 1024}, {20, 2048, 256}, {20, 4096, 1024},
    {102, 1024, 512}, {102, 2323, 256}, {102, 512, 256},  {1, 800, 3200},  {1, 800, 8000},
    {16, 256, 1500},  {16, 256, 1567},  {1, 128, 2876},   {16, 128, 1567}, {1, 128, 2722},
    {16, 256, 512}};

std::vector<Config> inference_configs() {
  std::vector<Config> out;
  std::mt19937 rng(31337);
  int index = 0;
  for (const Shape& s : kInferenceShapes) {
    Config c;
    c.M = s.M;
    c.N = s.N;
    c.K = s.K;
    set_op_options(c, index, rng);
    c.atrans = index % 5 == 4 ? matrix_op_t::Transpose : matrix_op_t::NoTranspose;
    c.btrans = index % 7 == 3 ? matrix_op_t::Transpose : matrix_op_t::NoTranspose;
    if (s.M == 156800) {
      // Big: one thread count each, uint8 output only except once.
      c.threads = {std::vector<int>{1, 2, 7}[index]};
      c.float_out = index == 2;
    } else {
      c.threads = {1, 2, 3, 7};
      c.float_threads = {std::vector<int>{1, 2, 3, 7}[index % 4]};
      if (s.M == 20 && s.K == 1024) c.concurrent = {2, 7};
    }
    c.seed = 9000 + index;
    out.push_back(c);
    ++index;
  }
  return out;
}

// Problems are built on first use and kept for the other ISAs.
const std::vector<std::unique_ptr<Problem>>& problems(const char* set) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<std::unique_ptr<Problem>>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto& v = cache[set];
  if (v.empty()) {
    const std::string name = set;
    const std::vector<Config> configs = name == "sweep"     ? sweep_configs()
                                        : name == "extreme" ? extreme_configs()
                                                            : inference_configs();
    for (const Config& c : configs) v.push_back(build_problem(c));
  }
  return v;
}

class GemmRequantize : public ::testing::TestWithParam<IsaCase> {
 protected:
  void SetUp() override {
    if (!GetParam().supported)
      GTEST_SKIP() << instSetName(GetParam().isa) << " is not supported by this CPU";
  }
  void run_set(const char* set, bool one_run = false) {
    const auto& ps = problems(set);
    ScopedIsa isa(GetParam().isa);
    ASSERT_EQ(fbgemmInstructionSet(), GetParam().isa);
    for (const auto& p : ps) ASSERT_TRUE(run_problem(*p, one_run));
  }
};

TEST_P(GemmRequantize, SweepEverySizeInEveryDimension) { run_set("sweep"); }
TEST_P(GemmRequantize, ExtremeValues) { run_set("extreme"); }
// The portable path (plain C++ loops, the fallback) runs each inference shape once; the
// sweep checks its thread counts.
TEST_P(GemmRequantize, InferenceShapes) {
  run_set("inference", GetParam().isa == inst_set_t::anyarch);
}

// The sweep really has every size in every dimension and every template combination.
TEST(GemmRequantizeSweep, CoversEverySizeAndOption) {
  const std::vector<Config> cs = sweep_configs();
  for (int v : kSizes) {
    EXPECT_TRUE(std::any_of(cs.begin(), cs.end(), [&](const Config& c) { return c.M == v; }))
        << "M=" << v;
    EXPECT_TRUE(std::any_of(cs.begin(), cs.end(), [&](const Config& c) { return c.N == v; }))
        << "N=" << v;
    EXPECT_TRUE(std::any_of(cs.begin(), cs.end(), [&](const Config& c) { return c.K == v; }))
        << "K=" << v;
  }
  for (int relu = 0; relu < 2; ++relu)
    for (Gran g : {Gran::TENSOR, Gran::GROUP, Gran::OUT_CHANNEL})
      for (Bias b : {Bias::none, Bias::i32, Bias::f32})
        for (int G : {1, 2, 4})
          EXPECT_TRUE(std::any_of(cs.begin(), cs.end(),
                                  [&](const Config& c) {
                                    return c.relu == bool(relu) && c.gran == g && c.bias == b &&
                                           (c.G == G || g != Gran::GROUP);
                                  }))
              << "relu " << relu << " " << gran_name(g) << " bias " << int(b) << " G " << G;
  for (bool at : {false, true})
    for (bool bt : {false, true})
      for (bool azp : {false, true})
        for (bool bsym : {false, true})
          EXPECT_TRUE(std::any_of(cs.begin(), cs.end(), [&](const Config& c) {
            return (c.atrans == matrix_op_t::Transpose) == at &&
                   (c.btrans == matrix_op_t::Transpose) == bt && c.a_zp == azp && c.b_sym == bsym;
          }));
}

// The expected outputs are spread over [0, 255], not stuck at the clamps: a check of the
// multipliers chosen in build_problem, so that the comparisons above mean something.
TEST(GemmRequantizeSweep, ExpectedOutputsUseTheWholeRange) {
  std::vector<int64_t> histogram(256, 0);
  int64_t total = 0;
  for (const auto& p : problems("sweep")) {
    if (p->c.data != Data::random) continue;
    for (uint8_t v : p->want_u8) ++histogram[v];
    total += int64_t(p->want_u8.size());
  }
  const int64_t used =
      std::count_if(histogram.begin(), histogram.end(), [](int64_t n) { return n > 0; });
  EXPECT_EQ(used, 256);
  const double clamped = double(histogram[0] + histogram[255]) / double(total);
  EXPECT_LT(clamped, 0.25) << "fraction of outputs at 0 or 255";
  std::printf("outputs: %lld, at 0: %lld, at 255: %lld\n", (long long)total,
              (long long)histogram[0], (long long)histogram[255]);
}

INSTANTIATE_TEST_SUITE_P(AllIsas, GemmRequantize, ::testing::ValuesIn(all_isas()),
                         [](const auto& info) { return std::string(instSetName(info.param.isa)); });

}  // namespace
}  // namespace quire::test
