// The soak test an inference engine would run: 8 std::threads issue a random mix of
// calls for a fixed time, all against weights packed once and shared read-only, and
// every result is checked:
//  - int8 GEMM (fbgemmPacked, random M, ReQuantizeOutput to uint8 or memCopy to int32,
//    1 to 3 per-thread calls) on 4 shared PackBMatrix, against quire::ref bit for bit;
//  - the one-call gemm_u8s8s32 on a per-thread 2-thread ThreadPool;
//  - GEMM on weights packed in the call with a random blocking (register tiles nobody
//    asked for before), so kernels keep being generated concurrently;
//  - fbgemmConv (depthwise, groupwise, im2col) on shared PackWeightsForConv;
//  - fp16 cblas_gemm_compute on a shared PackedGemmMatrixFP16, bit for bit against the
//    portable kernels;
//  - Quantize / Dequantize arrays against their scalar forms.
// Memory: VmRSS (/proc/self/status) is sampled every 100 ms. After the warm-up (the first
// third of the run: every kernel shape and allocator arena is in use by then) it may not
// grow by more than 8 MiB. Why that tolerance: one call's buffers are below 1 MiB, so 8
// threads' live data moving between glibc's per-thread arenas (which keep freed blocks),
// and the few kernels a late random blocking may still add (a few KiB each), stay well
// inside it (about 0.7 MiB measured over 12 s); a leak of a few hundred bytes per call
// would not (the test prints how many calls ran after warm-up, which sets the per-call
// leak it can detect). Under AddressSanitizer or ThreadSanitizer the growth is printed
// but not enforced: their shadow memory and quarantine count in VmRSS.
// Duration: QUIRE_SOAK_SECONDS (default 60).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "conv_test_util.h"
#include "quire/FbgemmFP16.h"
#include "quire/SimpleGemm.h"
#include "../src/fp16/half_gemm.h"
#include "quire/quire.h"
#include "quire/ref/Reference.h"
#include "quire/ref/ReferenceOutput.h"
#include "test_util.h"

namespace quire::test {
namespace {

using Clock = std::chrono::steady_clock;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

int64_t vm_rss_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
  return -1;
}

double soak_seconds() {
  const char* s = std::getenv("QUIRE_SOAK_SECONDS");
  return s && *s ? std::atof(s) : 60.0;
}

struct Weights {
  int K, N, G;
  std::vector<int8_t> B;  // Ktot x N, row-major, groups stacked
  std::unique_ptr<PackBMatrix<int8_t>> packed;
};

template <int D>
struct ConvWeights {
  conv_param_t<D> p;
  std::vector<int8_t> W;
  std::unique_ptr<PackWeightsForConv<D>> packed;
};

struct Shared {
  std::vector<Weights> gemm;
  std::vector<ConvWeights<2>> conv;
  int hk = 0, hn = 0;
  std::vector<float> half_b;
  std::unique_ptr<PackedGemmMatrixFP16> half;
};

std::unique_ptr<Shared> make_shared_weights() {
  auto s = std::make_unique<Shared>();
  const int gemm_shapes[][3] = {{64, 33, 1}, {300, 130, 1}, {17, 5, 2}, {129, 64, 3}};
  uint32_t seed = 1;
  for (const auto& g : gemm_shapes) {
    Weights w{g[0], g[1], g[2], random_vector<int8_t>(size_t(g[0]) * g[1] * g[2], -128, 127, ++seed), nullptr};
    w.packed = std::make_unique<PackBMatrix<int8_t>>(matrix_op_t::NoTranspose, w.G * w.K, w.N,
                                                     w.B.data(), w.N, nullptr, w.G);
    s->gemm.push_back(std::move(w));
  }
  using P = conv_param_t<2>;
  for (const P& p : {P(1, 32, 32, {9, 7}, 32, {3, 3}, {1, 1}, {1, 1, 1, 1}),
                     P(1, 32, 32, {6, 5}, 8, {3, 3}, {1, 1}, {1, 1, 1, 1}),
                     P(1, 6, 10, {7, 6}, 1, {5, 3}, {2, 1}, {2, 1, 2, 1})}) {
    ConvWeights<2> c{p, random_vector<int8_t>(size_t(p.OC) * kernel_prod(p) * (p.IC / p.G), -128, 127, ++seed), nullptr};
    c.packed = std::make_unique<PackWeightsForConv<2>>(p, c.W.data());
    s->conv.push_back(std::move(c));
  }
  s->hk = 70;
  s->hn = 45;
  s->half_b.resize(size_t(s->hk) * s->hn);
  std::mt19937 gen(++seed);
  for (float& x : s->half_b) x = std::uniform_real_distribution<float>(-1, 1)(gen);
  s->half = std::make_unique<PackedGemmMatrixFP16>(matrix_op_t::NoTranspose, s->hk, s->hn, 1.0f,
                                                   s->half_b.data());
  return s;
}

// One call of each kind; each returns an empty string or what went wrong.
std::string gemm_call(const Weights& w, std::mt19937& rng, bool requantize, bool custom_blocking) {
  const int M = 1 + int(rng() % 150), T = 1 + int(rng() % 3);
  const int Ktot = w.G * w.K, Ntot = w.G * w.N;
  const auto A = random_vector<uint8_t>(size_t(M) * Ktot, 0, 255, rng());
  std::vector<int32_t> C32(size_t(M) * Ntot), want(C32.size());
  for (int g = 0; g < w.G; ++g)
    ref::matmul_u8s8s32(M, w.N, w.K, A.data() + g * w.K, Ktot, w.B.data() + size_t(g) * w.K * w.N,
                        w.N, want.data() + g * w.N, Ntot);
  std::unique_ptr<PackBMatrix<int8_t>> own;
  BlockingFactors bf{};
  const BlockingFactors* params = nullptr;
  if (custom_blocking) {
    // The path's blocking with a random register tile: a kernel shape seldom used.
    bf = defaultBlocking();
    bf.MR = 1 + int(rng() % bf.MR);
    bf.NR = bf.NR_MIN * (1 + int(rng() % (bf.NR / bf.NR_MIN)));
    bf.MCB = bf.MR * (1 + int(rng() % 20));
    bf.NCB = bf.NR * (1 + int(rng() % 4));
    params = &bf;
    own = std::make_unique<PackBMatrix<int8_t>>(matrix_op_t::NoTranspose, Ktot, w.N, w.B.data(),
                                                w.N, nullptr, w.G, params);
  }
  PackBMatrix<int8_t>& packB = own ? *own : *w.packed;
  if (!requantize) {
    for (int t = 0; t < T; ++t) {
      PackAMatrix<uint8_t> packA(matrix_op_t::NoTranspose, M, Ktot, A.data(), Ktot, nullptr, w.G, params);
      DoNothing<int32_t, int32_t> done;
      memCopy<> op(done);
      fbgemmPacked(packA, packB, C32.data(), C32.data(), uint32_t(Ntot), op, t, T, params);
    }
    return C32 == want ? "" : "GEMM int32 output differs";
  }
  // Per-tensor requantization with row and column offsets.
  const int32_t a_zp = int32_t(rng() % 256), b_zp = int32_t(rng() % 256) - 128, c_zp = 7;
  const float mult = 1e-4f;
  std::vector<int32_t> col_off(Ntot), row_off(M), bzp(1, b_zp);
  for (int g = 0; g < w.G; ++g)
    ref::col_offsets_with_zero_pt_s8(w.K, w.N, w.B.data() + size_t(g) * w.K * w.N, w.N, bzp.data(),
                                     col_off.data() + g * w.N, w.N * w.G);
  std::vector<uint8_t> C(C32.size()), expect(C32.size());
  for (int t = 0; t < T; ++t) {
    std::vector<int32_t> ro(PackAWithRowOffset<uint8_t>::rowOffsetBufferSize(params));
    PackAWithRowOffset<uint8_t> packA(matrix_op_t::NoTranspose, uint32_t(M), uint32_t(Ktot),
                                      A.data(), uint32_t(Ktot), nullptr, w.G, ro.data(), params);
    DoNothing<> done;
    ReQuantizeOutput<false> op(done, &mult, c_zp, a_zp, bzp.data(), ro.data(), col_off.data(),
                               nullptr, uint32_t(Ntot), w.G);
    fbgemmPacked(packA, packB, C.data(), C32.data(), uint32_t(Ntot), op, t, T, params);
  }
  for (int g = 0; g < w.G; ++g) {
    ref::row_offsets_u8(M, w.K, A.data() + g * w.K, Ktot, row_off.data());
    ref::QuantParams qp;
    qp.nCol = uint32_t(Ntot);
    qp.groups = w.G;
    qp.Aq_zero_point = a_zp;
    qp.Bq_zero_point = bzp.data();
    qp.row_offsets = row_off.data();
    qp.col_offsets = col_off.data();
    ref::requantize_u8<int32_t>(expect.data(), want.data() + g * w.N, {0, M, g * w.N, w.N}, Ntot,
                                Ntot, qp, &mult, c_zp, nullptr, nullptr, false);
  }
  return C == expect ? "" : "GEMM requantized output differs";
}

std::string one_call(const Weights& w, std::mt19937& rng, ThreadPool& pool) {
  const int M = 1 + int(rng() % 100), Ktot = w.G * w.K, Ntot = w.G * w.N;
  const auto A = random_vector<uint8_t>(size_t(M) * Ktot, 0, 255, rng());
  std::vector<int32_t> C(size_t(M) * Ntot), want(C.size());
  for (int g = 0; g < w.G; ++g)
    ref::matmul_u8s8s32(M, w.N, w.K, A.data() + g * w.K, Ktot, w.B.data() + size_t(g) * w.K * w.N,
                        w.N, want.data() + g * w.N, Ntot);
  gemm_u8s8s32(A.data(), M, Ktot, *w.packed, C.data(), Ntot, &pool);
  return C == want ? "" : "gemm_u8s8s32 differs";
}

std::string conv_call(const ConvWeights<2>& c, std::mt19937& rng) {
  ConvProblem<2> prob(c.p, int32_t(rng() % 256), 0);
  prob.W = c.W;  // the shared weights, and the reference recomputed for them
  prob.A = random_vector<uint8_t>(prob.A.size(), 0, 255, rng());
  ref::conv_u8s8s32(c.p, prob.A.data(), prob.a_zp, prob.W.data(), prob.C32.data());
  ref::conv_row_offsets(c.p, prob.A.data(), prob.a_zp, prob.row_offsets.data());
  const Requant<2> rq(prob, QuantizationGranularity::OUT_CHANNEL, rng() % 2, BiasKind::i32, false, rng());
  std::vector<uint8_t> out(prob.C32.size());
  std::vector<int32_t> buffer(out.size());
  const int T = 1 + int(rng() % 3);
  for (int t = 0; t < T; ++t) {
    DoNothing<> done;
    if (rq.relu) {
      ReQuantizeOutput<true, QuantizationGranularity::OUT_CHANNEL> op(
          done, rq.multiplier.data(), rq.c_zp, prob.a_zp, rq.b_zp.data(), nullptr,
          rq.col_offsets.data(), rq.bias_i32.data(), c.p.OC, c.p.G);
      fbgemmConv(c.p, prob.A.data(), *c.packed, out.data(), buffer.data(), op, t, T);
    } else {
      ReQuantizeOutput<false, QuantizationGranularity::OUT_CHANNEL> op(
          done, rq.multiplier.data(), rq.c_zp, prob.a_zp, rq.b_zp.data(), nullptr,
          rq.col_offsets.data(), rq.bias_i32.data(), c.p.OC, c.p.G);
      fbgemmConv(c.p, prob.A.data(), *c.packed, out.data(), buffer.data(), op, t, T);
    }
  }
  return out == rq.want ? "" : "fbgemmConv differs on " + c.p.toString();
}

std::string half_call(const Shared& s, std::mt19937& rng) {
  const int m = 1 + int(rng() % 40);
  std::vector<float> a(size_t(m) * s.hk), c(size_t(m) * s.hn, 0.0f), want(c.size(), 0.0f);
  for (float& x : a) x = std::uniform_real_distribution<float>(-1, 1)(rng);
  cblas_gemm_compute(matrix_op_t::NoTranspose, m, a.data(), *s.half, 0.0f, c.data());
  const auto sets = detail::half_kernel_sets(detail::HalfType::fp16);
  const detail::HalfGemmCall call{detail::HalfType::fp16, detail::ActType::f32,
                                  matrix_op_t::NoTranspose, m, s.hn, s.hk, a.data(),
                                  reinterpret_cast<const uint16_t*>(s.half->data()),
                                  s.half->blockRowSize(), 0.0f, want.data()};
  detail::half_gemm(call, *sets.back(), 0, 1);
  return std::memcmp(c.data(), want.data(), c.size() * sizeof(float)) == 0 ? "" : "fp16 GEMM differs";
}

std::string quant_call(std::mt19937& rng) {
  const size_t n = rng() % 3000;
  std::vector<float> x(n), back(n);
  for (float& v : x) v = std::uniform_real_distribution<float>(-10, 10)(rng);
  TensorQuantizationParams qp;
  qp.scale = 0.05f;
  qp.zero_point = int32_t(rng() % 256);
  qp.precision = 8;
  std::vector<uint8_t> q(n);
  Quantize<uint8_t>(x.data(), q.data(), int64_t(n), qp);
  Dequantize<uint8_t>(q.data(), back.data(), int64_t(n), qp);
  for (size_t i = 0; i < n; ++i) {
    if (q[i] != Quantize<uint8_t>(x[i], qp)) return "Quantize differs";
    if (back[i] != Dequantize<uint8_t>(q[i], qp)) return "Dequantize differs";
  }
  return "";
}

TEST(Soak, MixedCallsFromManyThreadsStayCorrectAndFlat) {
  const double seconds = soak_seconds();
  const auto shared = make_shared_weights();
  constexpr int kThreads = 8;
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration<double>(seconds);
  const auto warm = start + std::chrono::duration<double>(seconds / 3);
  std::atomic<bool> stop{false};
  std::atomic<int64_t> calls{0}, calls_after_warmup{0};
  std::mutex mutex;
  std::string first_error;

  auto worker = [&](int id) {
    std::mt19937 rng(1234 + id);
    ThreadPool pool(2);
    while (!stop.load(std::memory_order_relaxed)) {
      std::string err;
      try {
        const int kind = int(rng() % 10);
        const Weights& w = shared->gemm[rng() % shared->gemm.size()];
        if (kind < 3) err = gemm_call(w, rng, kind == 0, false);
        else if (kind == 3) err = gemm_call(w, rng, rng() % 2, true);
        else if (kind == 4) err = one_call(w, rng, pool);
        else if (kind < 7) err = conv_call(shared->conv[rng() % shared->conv.size()], rng);
        else if (kind == 7) err = half_call(*shared, rng);
        else err = quant_call(rng);
      } catch (const std::exception& e) {
        err = std::string("threw: ") + e.what();
      }
      ++calls;
      if (Clock::now() > warm) ++calls_after_warmup;
      if (!err.empty()) {
        std::lock_guard<std::mutex> lock(mutex);
        if (first_error.empty()) first_error = "thread " + std::to_string(id) + ": " + err;
        stop = true;
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);

  int64_t rss_at_warm = -1, rss_max_after = 0;
  while (!stop && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const int64_t rss = vm_rss_kib();
    if (Clock::now() < warm) continue;
    if (rss_at_warm < 0) rss_at_warm = rss;
    rss_max_after = std::max(rss_max_after, rss);
  }
  stop = true;
  for (auto& t : threads) t.join();

  EXPECT_EQ(first_error, "");
  constexpr int64_t kToleranceKib = 8 * 1024;
  const int64_t growth = rss_max_after - rss_at_warm;
  std::printf("soak: %.0f s, %lld calls (%lld after warm-up), VmRSS at warm-up %lld KiB, "
              "growth after it %lld KiB (tolerance %lld KiB: a leak above %.0f bytes per call "
              "would show)\n",
              seconds, static_cast<long long>(calls.load()),
              static_cast<long long>(calls_after_warmup.load()), static_cast<long long>(rss_at_warm),
              static_cast<long long>(growth), static_cast<long long>(kToleranceKib),
              1024.0 * kToleranceKib / std::max<int64_t>(1, calls_after_warmup.load()));
  EXPECT_GE(rss_at_warm, 0) << "VmRSS was never sampled after warm-up";
  if (!kSanitized) {
    EXPECT_LE(growth, kToleranceKib) << "VmRSS grew after warm-up";
  }
}

}  // namespace
}  // namespace quire::test
