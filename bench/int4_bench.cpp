// quire-bench --precision int4 (int4_bench.h). Per shape: float weights W ~ N(0, 0.02)
// and activations A ~ N(0, 1); W quantized to 4 bits (symmetric, groups of 128 along
// K, fp16 scales: s = max|w| / 7) for the int4 GEMM and to int8 per output channel
// for the int8 path; each library's call is timed on every thread of the pool, with
// everything an engine does once (packing) outside the timing and everything it does
// per call (quantizing A) inside.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <random>

#include "baseline.h"
#include "gemm_data.h"
#include "int4_bench.h"
#include "machine.h"
#include "progress.h"
#include "quire/FbgemmBF16.h"
#include "quire/Int4Gemm.h"
#include "quire/quire.h"
#include "timing.h"

namespace quire::bench {

std::vector<Shape> int4_shapes(const std::string& set) {
  struct Layer {
    int K, N;
  };
  std::vector<Layer> layers = {{4096, 4096}, {4096, 11008}, {11008, 4096}, {4096, 32000}};
  std::vector<int> ms = {1, 4, 16, 64, 256};
  if (set == "decode") ms = {1, 4};
  if (set == "quick") layers.resize(1), ms = {1, 64};
  std::vector<Shape> shapes;
  for (const Layer& l : layers)
    for (int m : ms) shapes.push_back({m, l.N, l.K});
  return shapes;
}

namespace {

struct Layer {
  explicit Layer(const Shape& s) : shape(s), a(size_t(s.M) * s.K), w(size_t(s.K) * s.N) {
    std::mt19937 gen(s.K * 131u + s.N);
    std::normal_distribution<float> wd(0.0f, 0.02f), ad(0.0f, 1.0f);
    for (float& x : w) x = wd(gen);
    for (float& x : a) x = ad(gen);
  }
  Shape shape;
  std::vector<float> a, w;  // M x K, K x N row-major
};

PackedInt4Weights quantize_int4(const Layer& l) {
  const auto [M, N, K] = l.shape;
  const int groups = (K + kInt4BenchGroup - 1) / kInt4BenchGroup;
  std::vector<int8_t> v(size_t(K) * N);
  std::vector<float16> s(size_t(groups) * N);
  for (int g = 0; g < groups; ++g) {
    const int k0 = g * kInt4BenchGroup, k1 = std::min(K, k0 + kInt4BenchGroup);
    for (int j = 0; j < N; ++j) {
      float amax = 0;
      for (int k = k0; k < k1; ++k) amax = std::max(amax, std::fabs(l.w[size_t(k) * N + j]));
      const float16 h = cpu_float2half_rn(amax > 0 ? amax / 7 : 1.0f);
      s[size_t(g) * N + j] = h;
      const float inv = 1.0f / cpu_half2float(h);
      for (int k = k0; k < k1; ++k)
        v[size_t(k) * N + j] = static_cast<int8_t>(
            std::clamp(std::nearbyint(l.w[size_t(k) * N + j] * inv), -8.0f, 7.0f));
    }
  }
  return PackedInt4Weights(matrix_op_t::NoTranspose, K, N, v.data(), N, kInt4BenchGroup, s.data());
}

// quire's int8 path as docs/quantization.md runs a float linear layer: W per output
// channel symmetric int8, packed once; per call A's scale and zero point from the data,
// A quantized while packed, float out through ReQuantizeForFloat.
class Int8Path {
 public:
  explicit Int8Path(const Layer& l) : l_(l), scale_(l.shape.N), zp_(l.shape.N, 0), col_(l.shape.N) {
    const auto [M, N, K] = l.shape;
    std::vector<int8_t> q(size_t(K) * N);
    for (int j = 0; j < N; ++j) {
      float amax = 0;
      for (int k = 0; k < K; ++k) amax = std::max(amax, std::fabs(l.w[size_t(k) * N + j]));
      scale_[j] = amax > 0 ? amax / 127 : 1.0f;
      int32_t sum = 0;
      for (int k = 0; k < K; ++k) {
        const int8_t x = static_cast<int8_t>(std::nearbyint(l.w[size_t(k) * N + j] / scale_[j]));
        q[size_t(k) * N + j] = x;
        sum += x;
      }
      col_[j] = sum;
    }
    b_ = std::make_unique<PackBMatrix<int8_t>>(matrix_op_t::NoTranspose, K, N, q.data(), N);
  }

  void call(ThreadPool& pool, float* C) {
    const int M = l_.shape.M, N = l_.shape.N, K = l_.shape.K;  // captured below (not bindings: Clang 14)
    const TensorQuantizationParams qa = ChooseActivationQuantization(l_.a.data(), M, K, K);
    pool.run([&](int t, int nt) {
      PackAWithQuantRowOffset<uint8_t> pa(matrix_op_t::NoTranspose, M, K, l_.a.data(), K, nullptr,
                                          qa.scale, qa.zero_point);
      DoNothing<float, float> done;
      ReQuantizeForFloat<false, QuantizationGranularity::OUT_CHANNEL> out(
          done, qa.scale, scale_.data(), qa.zero_point, zp_.data(), pa.getRowOffsetBuffer(),
          col_.data(), nullptr, N);
      fbgemmPacked(pa, *b_, C, reinterpret_cast<int32_t*>(C), N, out, t, nt);
    });
  }

 private:
  const Layer& l_;
  std::vector<float> scale_;
  std::vector<int32_t> zp_, col_;
  std::unique_ptr<PackBMatrix<int8_t>> b_;
};

// max |C[0][:] - (A w)[0][:]| / max |(A w)[0][:]|, the product with weights w (K x N)
// in double.
double row0_error(const Layer& l, const std::vector<float>& w, const std::vector<float>& C) {
  const auto [M, N, K] = l.shape;
  std::vector<double> ref(N, 0.0);
  for (int k = 0; k < K; ++k) {
    const double a = l.a[k];
    for (int j = 0; j < N; ++j) ref[j] += a * w[size_t(k) * N + j];
  }
  double err = 0, mag = 0;
  for (int j = 0; j < N; ++j) {
    err = std::max(err, std::fabs(C[j] - ref[j]));
    mag = std::max(mag, std::fabs(ref[j]));
  }
  return err / mag;
}

}  // namespace

int run_int4_bench(const Options& opt, const std::vector<Shape>& shapes) {
  Int4RunInfo info;
  info.cpu = cpu_name();
  info.isa = instSetName(fbgemmInstructionSet());
  info.isa_forced = opt.isa.has_value();
  info.threads = opt.threads;
  info.min_time = opt.min_time;
  info.flush = opt.flush;
  info.caches = cache_sizes();
  info.l2_gbs = read_bandwidth_gbs(info.caches.l2 / 2 * opt.threads, opt.threads);
  info.l3_gbs = read_bandwidth_gbs(int64_t{8} << 20, opt.threads);
  info.dram_gbs = read_bandwidth_gbs(int64_t{256} << 20, opt.threads);
  info.memcpy_gbs = copy_bandwidth_gbs();
  info.peak = measure_peak(fbgemmInstructionSet(), opt.threads);
  std::unique_ptr<Baseline> openblas = make_openblas_baseline(opt.threads);
  if (openblas) info.openblas = openblas->description();

  print_int4_header(opt.csv ? stderr : stdout, info);
  if (!opt.csv) print_int4_table_head(stdout);

  ThreadPool pool(opt.threads, 0.02);
  std::optional<CacheFlusher> flusher;
  if (opt.flush) flusher.emplace();
  CacheFlusher* flush = flusher ? &*flusher : nullptr;
  auto time = [&](const std::function<void()>& call) {
    return time_calls(call, opt.min_time, flush).median;
  };
  Progress progress;
  std::vector<Int4ShapeResult> results;
  const int total = static_cast<int>(shapes.size());
  for (int i = 0; i < total; ++i) {
    const Shape& s = shapes[i];
    const std::string name = to_string(s);
    progress.update(i + 1, total, name, "data");
    const Layer layer(s);
    std::vector<float> C(size_t(s.M) * s.N);
    Int4ShapeResult r;
    r.shape = s;

    progress.update(i + 1, total, name, "int4");
    {
      const PackedInt4Weights w = quantize_int4(layer);
      r.weight_bytes = w.streamedBytes();
      r.level = opt.flush ? "DRAM" : level_of(r.weight_bytes, info.caches, opt.threads);
      r.level_gbs = same_bytes_read_gbs(r.weight_bytes, pool, time);
      r.int4_s = time([&] { int4Gemm(s.M, layer.a.data(), s.K, w, C.data(), s.N, Int4Epilogue{}, pool); });
      r.int4_err = row0_error(layer, layer.w, C);
      std::vector<float> dequantized(size_t(s.K) * s.N);
      w.dequantize(dequantized.data());
      r.int4_check_err = row0_error(layer, dequantized, C);
    }
    progress.update(i + 1, total, name, "int8");
    {
      Int8Path int8(layer);
      r.int8_s = time([&] { int8.call(pool, C.data()); });
      r.int8_err = row0_error(layer, layer.w, C);
    }
    progress.update(i + 1, total, name, "bf16");
    {
      const PackedGemmMatrixB<bfloat16> bp(matrix_op_t::NoTranspose, s.K, s.N, 1.0f, layer.w.data());
      r.bf16_s = time([&] {
        pool.run([&](int t, int nt) {
          cblas_gemm_compute(matrix_op_t::NoTranspose, s.M, layer.a.data(), bp, 0.0f, C.data(), t, nt);
        });
      });
    }
    if (openblas) {
      progress.update(i + 1, total, name, "OpenBLAS");
      std::unique_ptr<BaselineGemm> gemm = openblas->prepare(GemmData(s));
      r.sgemm_s = time([&] { gemm->call(); });
    }
    progress.clear();
    if (!opt.csv) print_int4_row(stdout, info, r);
    results.push_back(r);
  }
  if (opt.csv) print_int4_csv(stdout, info, results);
  return print_int4_summary(opt.csv ? stderr : stdout, info, results);
}

}  // namespace quire::bench
