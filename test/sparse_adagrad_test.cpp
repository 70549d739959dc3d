// Sparse AdaGrad (GenerateSparseAdaGrad, GenerateRowWiseSparseAdaGradFused) through the
// FBGEMM compat header, as trainers call them: element-wise and row-wise, weight decay
// with and without frequency counters, float and fp16 weights with and without
// stochastic rounding, offsets or lengths, grad_stride, int32/int64 indices and offsets,
// block sizes 1..1023, repeated indices, empty bags, the table's last row, bad indices
// and bags; against the scalar reference bit for bit on every path of this CPU, and from
// 1-3 caller threads sharing one kernel. Tables are sized exactly for ASan.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "adagrad_reference.h"
#include "fbgemm/FbgemmEmbedding.h"
#include "test_util.h"

namespace quire::test {
namespace {

using namespace fbgemm;

const int kBlocks[] = {1, 3, 17, 63, 65, 1023};

std::vector<float> uniform(size_t n, float lo, float hi, std::mt19937& gen) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(gen);
  return v;
}

// The fp16 weights' random stream: as wide as FBGEMM's vectors on this CPU.
int stream_lanes() { return fbgemmHasAvx512Support() ? 16 : 8; }

template <class Index>
void sparse_case(int block, bool rowwise, bool decay, bool counters, int prefetch,
                 int bad_at, std::mt19937& gen) {
  const int rows = 11, num_rows = 23;
  const uint64_t param_size = uint64_t{rows} * block;
  std::vector<float> w = uniform(param_size, 0, 2, gen);
  std::vector<float> h = uniform(rowwise ? rows : param_size, 0, 2, gen);
  const std::vector<float> g = uniform(size_t{num_rows} * block, -1, 1, gen);
  std::vector<Index> idx(num_rows);
  std::uniform_int_distribution<int> pick(0, rows - 1);
  for (Index& i : idx) i = static_cast<Index>(pick(gen));  // repeats
  idx[3] = rows - 1;                                        // the last row
  if (bad_at >= 0) idx[bad_at] = bad_at % 2 ? Index{rows} : Index{-1};
  std::vector<double> count(rows);
  for (double& c : count) c = std::uniform_real_distribution<double>(-10, 100)(gen);
  const double* counter = counters ? count.data() : nullptr;
  std::vector<float> w_ref = w, h_ref = h;
  const int expect =
      reference_sparse_adagrad(rowwise, block, num_rows, param_size, w_ref.data(), g.data(),
                               h_ref.data(), idx.data(), 1e-5f, 0.5f, 0.1f, counter, 50, decay);
  const int got = GenerateSparseAdaGrad<Index>(block, rowwise, prefetch, decay)(
      num_rows, param_size, w.data(), g.data(), h.data(), idx.data(), 1e-5f, 0.5f, 0.1f,
      counter, 50);
  EXPECT_EQ(got, bad_at >= 0 ? bad_at : num_rows);
  EXPECT_EQ(got, expect);
  EXPECT_EQ(w, w_ref);
  EXPECT_EQ(h, h_ref);
}

TEST(SparseAdagrad, MatchesReference) {
  for_each_supported_path([] {
    std::mt19937 gen(1);
    for (int block : kBlocks) {
      for (bool rowwise : {false, true}) {
        for (int variant = 0; variant < 3; ++variant) {  // no decay, decay, decay + counters
          SCOPED_TRACE(testing::Message() << "block " << block << " rowwise " << rowwise
                                          << " variant " << variant);
          sparse_case<int32_t>(block, rowwise, variant > 0, variant == 2, 16, -1, gen);
          sparse_case<int64_t>(block, rowwise, variant > 0, variant == 2, 0, -1, gen);
        }
      }
    }
  });
}

// FBGEMM's contract: the rows before a bad index are updated, it and those after are not.
TEST(SparseAdagrad, BadIndexStopsThere) {
  for_each_supported_path([] {
    std::mt19937 gen(2);
    for (int block : {1, 17, 65}) {
      for (bool rowwise : {false, true}) {
        for (int bad_at : {0, 5, 22}) {  // index -1 at even positions, the table size at odd
          SCOPED_TRACE(testing::Message() << "block " << block << " bad at " << bad_at);
          sparse_case<int32_t>(block, rowwise, true, true, 16, bad_at, gen);
          sparse_case<int64_t>(block, rowwise, false, false, 1, bad_at, gen);
        }
      }
    }
  });
}

struct FusedCase {
  int block;
  bool half, rounding, use_offsets, strided;
  int prefetch;
};

// One fused call against the reference. Runs on a new thread: quire's per-thread random
// stream then starts where a fresh ReferenceRng does.
template <class Index, class Offset>
void fused_case(const FusedCase& c, uint32_t seed) {
  std::thread([&] {
    std::mt19937 gen(seed);
    const int64_t rows = 13, block = c.block;
    const int64_t stride = c.strided ? 2 * block + 3 : block;
    const std::vector<int64_t> lengths = {3, 0, 5, 1, 0, 7};  // empty bags among them
    const int64_t bags = static_cast<int64_t>(lengths.size());
    std::vector<Index> idx;
    std::uniform_int_distribution<int> pick(0, static_cast<int>(rows) - 1);
    for (int64_t len : lengths)
      for (int64_t i = 0; i < len; ++i) idx.push_back(static_cast<Index>(pick(gen)));
    idx[2] = static_cast<Index>(rows - 1);
    std::vector<Offset> ol;
    if (c.use_offsets) {
      ol.push_back(0);
      for (int64_t len : lengths) ol.push_back(static_cast<Offset>(ol.back() + len));
    } else {
      for (int64_t len : lengths) ol.push_back(static_cast<Offset>(len));
    }
    std::vector<float> h = uniform(rows, 0, 2, gen), h_ref = h;
    // The gradient buffer ends with the last bag's row (no stride padding after it).
    const std::vector<float> g = uniform((bags - 1) * stride + block, 0, 2, gen);
    const std::vector<float> w32 = uniform(rows * block, 0, 2, gen);
    const int grad_stride = c.strided ? static_cast<int>(stride) : -1;
    ReferenceRng rng;
    const int L = stream_lanes();
    bool ok;
    if (c.half) {
      std::vector<float16> w(w32.size());
      for (size_t i = 0; i < w.size(); ++i) w[i] = cpu_float2half_rn(w32[i]);
      std::vector<float16> w_ref = w;
      ASSERT_TRUE(reference_fused_adagrad(block, stride, lengths, rows, w_ref.data(), g.data(),
                                          h_ref.data(), idx, 1e-5f, 0.5f,
                                          c.rounding ? &rng : nullptr, L));
      ok = GenerateRowWiseSparseAdaGradFused<Index, Offset, float16>(
          c.block, c.prefetch, c.use_offsets, c.rounding, grad_stride)(
          bags, static_cast<int64_t>(idx.size()), rows, w.data(), g.data(), h.data(),
          idx.data(), ol.data(), 1e-5f, 0.5f);
      EXPECT_TRUE(w == w_ref);
    } else {
      std::vector<float> w = w32, w_ref = w32;
      ASSERT_TRUE(reference_fused_adagrad(block, stride, lengths, rows, w_ref.data(), g.data(),
                                          h_ref.data(), idx, 1e-5f, 0.5f, nullptr, L));
      ok = GenerateRowWiseSparseAdaGradFused<Index, Offset, float>(
          c.block, c.prefetch, c.use_offsets, c.rounding, grad_stride)(
          bags, static_cast<int64_t>(idx.size()), rows, w.data(), g.data(), h.data(),
          idx.data(), ol.data(), 1e-5f, 0.5f);
      EXPECT_EQ(w, w_ref);
    }
    EXPECT_TRUE(ok);
    EXPECT_EQ(h, h_ref);
  }).join();
}

TEST(RowWiseSparseAdagradFused, MatchesReference) {
  for_each_supported_path([] {
    uint32_t seed = 10;
    for (int block : kBlocks) {
      for (int form = 0; form < 3; ++form) {  // float, fp16 truncated, fp16 rounded at random
        for (bool use_offsets : {true, false}) {
          const FusedCase c{block, form > 0, form == 2, use_offsets, block % 2 == 1, 16};
          SCOPED_TRACE(testing::Message() << "block " << block << " form " << form
                                          << " offsets " << use_offsets);
          fused_case<int32_t, int32_t>(c, ++seed);
          fused_case<int64_t, int64_t>(c, ++seed);
          fused_case<int32_t, int64_t>(c, ++seed);
          fused_case<int64_t, int32_t>({block, form > 0, form == 2, use_offsets, false, 0}, ++seed);
        }
      }
    }
  });
}

// Later calls on one thread continue its stream (the reference's per-thread generator).
TEST(RowWiseSparseAdagradFused, StreamContinuesAcrossCalls) {
  std::thread([] {
    ReferenceRng rng;
    const int L = stream_lanes();
    auto kernel = GenerateRowWiseSparseAdaGradFused<int32_t, int32_t, float16>(65, 16, true, true);
    std::mt19937 gen(5);
    for (int call = 0; call < 3; ++call) {
      const std::vector<float> g = uniform(2 * 65, 0, 2, gen), w32 = uniform(4 * 65, 0, 2, gen);
      std::vector<float16> w(w32.size());
      for (size_t i = 0; i < w.size(); ++i) w[i] = cpu_float2half_rn(w32[i]);
      std::vector<float16> w_ref = w;
      std::vector<float> h(4, 1.0f), h_ref = h;
      const std::vector<int32_t> idx = {3, 0, 3};
      const std::vector<int32_t> offsets = {0, 2, 3};
      ASSERT_TRUE(reference_fused_adagrad(65, 65, {2, 1}, 4, w_ref.data(), g.data(),
                                          h_ref.data(), idx, 1e-5f, 0.5f, &rng, L));
      ASSERT_TRUE(kernel(2, 3, 4, w.data(), g.data(), h.data(), idx.data(), offsets.data(),
                         1e-5f, 0.5f));
      EXPECT_TRUE(w == w_ref) << "call " << call;
      EXPECT_EQ(h, h_ref);
    }
  }).join();
}

// Bad bags or indices: false, nothing written.
TEST(RowWiseSparseAdagradFused, BadInputReturnsFalseAndWritesNothing) {
  for_each_supported_path([] {
    auto kernel = GenerateRowWiseSparseAdaGradFused<int64_t, int32_t, float>(17, 16, true, false);
    auto by_lengths =
        GenerateRowWiseSparseAdaGradFused<int32_t, int64_t, float16>(3, 16, false, true);
    std::mt19937 gen(6);
    std::vector<float> w = uniform(5 * 17, 0, 2, gen), h = uniform(5, 0, 2, gen);
    const std::vector<float> g = uniform(2 * 17, 0, 2, gen);
    const std::vector<float> w0 = w, h0 = h;
    auto call = [&](std::vector<int64_t> idx, std::vector<int32_t> offsets) {
      return kernel(2, static_cast<int64_t>(idx.size()), 5, w.data(), g.data(), h.data(),
                    idx.data(), offsets.data(), 1e-5f, 0.5f);
    };
    EXPECT_FALSE(call({0, 5, 1}, {0, 2, 3}));   // index == data_size
    EXPECT_FALSE(call({0, -1, 1}, {0, 2, 3}));  // negative index
    EXPECT_FALSE(call({0, 4, 1}, {0, 3, 2}));   // offsets not monotonic
    EXPECT_FALSE(call({0, 4, 1}, {0, 2, 4}));   // bags run past index_size
    EXPECT_FALSE(call({0, 4, 1}, {0, 1, 2}));   // bags end before index_size
    EXPECT_EQ(w, w0);
    EXPECT_EQ(h, h0);
    std::vector<float16> w16(5 * 3);
    const std::vector<int32_t> idx = {1, 2};
    const std::vector<int64_t> lengths = {1, -1};
    EXPECT_FALSE(by_lengths(2, 2, 5, w16.data(), g.data(), h.data(), idx.data(),
                            lengths.data(), 1e-5f, 0.5f));  // negative length
    EXPECT_EQ(h, h0);
    EXPECT_TRUE(call({0, 4, 1}, {0, 2, 3}));
    EXPECT_NE(w, w0);
  });
}

// 1-3 caller threads share one kernel, each on its own table (each with its own stream).
TEST(RowWiseSparseAdagradFused, CallerThreadsShareOneKernel) {
  auto kernel = GenerateRowWiseSparseAdaGradFused<int32_t, int32_t, float16>(63, 16, true, true);
  auto sparse = GenerateSparseAdaGrad<int32_t>(63, true);
  for (int threads = 1; threads <= 3; ++threads) {
    std::vector<std::thread> pool;
    std::vector<int> failures(static_cast<size_t>(threads), 0);
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        ReferenceRng rng;
        std::mt19937 gen(static_cast<uint32_t>(100 + t));
        const std::vector<float> g = uniform(2 * 63, 0, 2, gen), w32 = uniform(6 * 63, 0, 2, gen);
        std::vector<float16> w(w32.size());
        for (size_t i = 0; i < w.size(); ++i) w[i] = cpu_float2half_rn(w32[i]);
        std::vector<float16> w_ref = w;
        std::vector<float> h(6, 0.5f), h_ref = h;
        const std::vector<int32_t> idx = {5, 1, 5, 0};
        const std::vector<int32_t> offsets = {0, 3, 4};
        for (int rep = 0; rep < 20; ++rep) {
          reference_fused_adagrad(63, 63, {3, 1}, 6, w_ref.data(), g.data(), h_ref.data(), idx,
                                  1e-5f, 0.5f, &rng, stream_lanes());
          kernel(2, 4, 6, w.data(), g.data(), h.data(), idx.data(), offsets.data(), 1e-5f, 0.5f);
        }
        std::vector<float> ws = w32, ws_ref = w32, hs(6, 0.5f), hs_ref = hs;
        for (int rep = 0; rep < 20; ++rep) {
          reference_sparse_adagrad(true, 63, 2, 6 * 63, ws_ref.data(), g.data(), hs_ref.data(),
                                   idx.data(), 1e-5f, 0.5f, 0.0f, nullptr, 0, false);
          sparse(2, 6 * 63, ws.data(), g.data(), hs.data(), idx.data(), 1e-5f, 0.5f, 0.0f,
                 nullptr, 0);
        }
        failures[static_cast<size_t>(t)] = !(w == w_ref) + (h != h_ref) + (ws != ws_ref) +
                                           (hs != hs_ref);
      });
    }
    for (auto& th : pool) th.join();
    for (int f : failures) EXPECT_EQ(f, 0) << threads << " threads";
  }
}

TEST(SparseAdagrad, GeneratorArgumentsThrow) {
  EXPECT_INVALID(({"block_size", "0"}), GenerateSparseAdaGrad<int32_t>(0));
  EXPECT_INVALID(({"block_size", "-3"}), GenerateSparseAdaGrad<int64_t>(-3, true));
  EXPECT_INVALID(({"block_size"}), GenerateRowWiseSparseAdaGradFused<int32_t, int32_t, float>(0));
  EXPECT_INVALID(({"grad_stride", "7"}),
                 GenerateRowWiseSparseAdaGradFused<int64_t, int64_t, float16>(8, 16, true, true, 7));
}

}  // namespace
}  // namespace quire::test
