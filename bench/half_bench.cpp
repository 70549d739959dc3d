// quire-bench --precision fp16|bf16|fp32 (half_bench.h): one call is cblas_gemm_compute with
// beta = 0 on every thread of the pool; B is packed once, outside the timing. Each
// shape's result is checked on three rows against a double-precision reference and the
// error bound of test/half_gemm_test.cpp.
#include "half_bench.h"

#include <cpuinfo.h>

#include <cmath>
#include <functional>
#include <memory>
#include <random>

#include "baseline.h"
#include "gemm_data.h"
#include "machine.h"
#include "progress.h"
#include "quire/FbgemmBF16.h"
#include "quire/FbgemmFP32.h"
#include "quire/Utils.h"
#include "../src/fp16/half_gemm.h"
#include "thread_pool.h"

namespace quire::bench {

std::vector<Shape> half_shapes() {
  std::vector<Shape> shapes;
  for (int m : {1, 2, 4, 8, 16, 32, 64, 96, 119}) shapes.push_back({m, 512, 512});
  return shapes;
}

namespace {

// One shape's operands: A and B uniform in [-1, 1), A also in bf16.
struct HalfData {
  explicit HalfData(const Shape& s)
      : shape(s),
        a(size_t(s.M) * s.K),
        b(size_t(s.K) * s.N),
        c(size_t(s.M) * s.N),
        a_bf16(a.size()) {
    std::mt19937 gen(s.M * 7919u + s.N * 31u + s.K);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (size_t i = 0; i < a.size(); ++i) {
      a[i] = dist(gen);
      a_bf16[i] = float_to_bfloat16_rne(a[i]);
    }
    for (size_t i = 0; i < b.size(); ++i) b[i] = dist(gen);
  }
  Shape shape;
  AlignedArray<float> a, b, c;
  AlignedArray<bfloat16> a_bf16;
};

template <class T>
float to_float(T h) {
  if constexpr (std::is_same_v<T, float16>) return cpu_half2float(h);
  else if constexpr (std::is_same_v<T, bfloat16>) return cpu_bf162float(h);
  else return h;
}

// max |C - C_ref| / bound over rows 0, M/2 and M-1 (see test/half_gemm_test.cpp for the
// bound): at most 1 when the result is right.
template <class T>
double worst_error(const HalfData& d, const PackedGemmMatrixB<T>& bp) {
  const auto [M, N, K] = d.shape;
  std::vector<T> w(size_t(K) * N);
  bp.unpack(w.data(), matrix_op_t::NoTranspose);
  const double gamma = (K + 1) * 0x1p-24 / (1 - (K + 1) * 0x1p-24) + K * 0x1p-53;
  double worst = 0;
  for (int i : {0, M / 2, M - 1}) {
    for (int j = 0; j < N; ++j) {
      double sum = 0, mag = 0;
      for (int k = 0; k < K; ++k) {
        const float x = d.a[size_t(i) * K + k];
        const double a = std::is_same_v<T, bfloat16> ? cpu_bf162float(float_to_bfloat16_rne(x)) : x;
        const double p = a * to_float(w[size_t(k) * N + j]);
        sum += p;
        mag += std::fabs(p);
      }
      const double err = std::fabs(d.c[size_t(i) * N + j] - sum);
      worst = std::max(worst, err == 0 ? 0 : err / (gamma * mag));
    }
  }
  return worst;
}

class Runner {
 public:
  Runner(const Options& opt, ThreadPool& pool, CacheFlusher* flusher)
      : opt_(opt), pool_(pool), flusher_(flusher) {}

  // `call` as one timed call (a baseline runs its own threads).
  HalfRun time(const Shape& s, const std::function<void()>& call) {
    HalfRun run;
    run.timing = time_calls(call, opt_.min_time, flusher_);
    run.gflops = 2.0 * s.M * s.N * s.K / run.timing.median / 1e9;
    return run;
  }
  // job(thread_id, num_threads) on every thread of the pool as one timed call.
  HalfRun time_pool(const Shape& s, const std::function<void(int, int)>& job) {
    return time(s, [&] { pool_.run(job); });
  }

  // Packs B as T, times fp32 A (and bf16 A when asked) x the packed weights, and checks.
  template <class T>
  void run_quire(HalfData& d, HalfShapeResult& r, bool bf16_act) {
    const double t0 = now_seconds();
    const PackedGemmMatrixB<T> bp(matrix_op_t::NoTranspose, d.shape.K, d.shape.N, 1.0f,
                                  d.b.data());
    r.pack_ms = (now_seconds() - t0) * 1e3;
    r.packed_bytes = int64_t{bp.matSize()} * int64_t{sizeof(T)};
    const int M = d.shape.M;
    r.quire = time_pool(d.shape, [&](int t, int nt) {
      cblas_gemm_compute(matrix_op_t::NoTranspose, M, d.a.data(), bp, 0.0f, d.c.data(), t, nt);
    });
    r.worst_error = worst_error(d, bp);
    if (!bf16_act) return;
    if constexpr (std::is_same_v<T, bfloat16>) {
      r.bf16_act = time_pool(d.shape, [&](int t, int nt) {
        cblas_gemm_compute(matrix_op_t::NoTranspose, M, d.a_bf16.data(), bp, 0.0f, d.c.data(),
                           t, nt);
      });
      r.worst_error = std::max(r.worst_error, worst_error(d, bp));
    }
  }

  // The fp16 path on the same shape, for the bf16 and fp32 runs' "x fp16" column.
  HalfRun run_fp16(HalfData& d) {
    HalfShapeResult r;
    run_quire<float16>(d, r, false);
    return r.quire;
  }

 private:
  const Options& opt_;
  ThreadPool& pool_;
  CacheFlusher* flusher_;
};

}  // namespace

int run_half_bench(const Options& opt, const std::vector<Shape>& shapes) {
  const bool bf16 = opt.precision == "bf16", fp32 = opt.precision == "fp32";
  const detail::HalfType type = bf16   ? detail::HalfType::bf16
                                : fp32 ? detail::HalfType::fp32
                                       : detail::HalfType::fp16;

  HalfRunInfo info;
  info.cpu = cpu_name();
  info.isa = instSetName(fbgemmInstructionSet());
  info.isa_forced = opt.isa.has_value();
  info.precision = opt.precision;
  info.kernels = detail::half_kernel_set_name(detail::active_half_kernels(type));
  info.threads = opt.threads;
  info.min_time = opt.min_time;
  info.flush = opt.flush;
  info.fma_peak = measure_fma_peak(fbgemmInstructionSet());
  if (info.kernels == std::string("bf16_avx512bf16")) info.dpbf16_peak = measure_dpbf16_peak();
  std::unique_ptr<Baseline> openblas = make_openblas_baseline(opt.threads);
  if (openblas) info.openblas = openblas->description();

  print_half_header(opt.csv ? stderr : stdout, info);
  if (!opt.csv) print_half_table_head(stdout, info);

  ThreadPool pool(opt.threads);
  std::optional<CacheFlusher> flusher;
  if (opt.flush) flusher.emplace();
  Runner runner(opt, pool, flusher ? &*flusher : nullptr);
  Progress progress;
  std::vector<HalfShapeResult> results;
  const int total = static_cast<int>(shapes.size());
  for (int i = 0; i < total; ++i) {
    const Shape& shape = shapes[i];
    const std::string name = to_string(shape);
    progress.update(i + 1, total, name, "data");
    HalfData data(shape);
    HalfShapeResult r;
    r.shape = shape;
    progress.update(i + 1, total, name, opt.precision.c_str());
    if (bf16 || fp32) {
      if (bf16) runner.run_quire<bfloat16>(data, r, true);
      else runner.run_quire<float>(data, r, false);
      progress.update(i + 1, total, name, "fp16");
      r.fp16 = runner.run_fp16(data);
    } else {
      runner.run_quire<float16>(data, r, false);
    }
    if (openblas) {
      progress.update(i + 1, total, name, "OpenBLAS");
      std::unique_ptr<BaselineGemm> gemm = openblas->prepare(GemmData(shape));
      r.openblas = runner.time(shape, [&] { gemm->call(); });
    }
    progress.clear();
    if (!opt.csv) print_half_row(stdout, info, r);
    results.push_back(r);
  }

  if (opt.csv) {
    print_half_csv(stdout, info, results);
  } else {
    print_half_summary(stdout, info, results);
  }
  if (!opt.json_path.empty()) write_half_json(opt.json_path, info, results);
  for (const HalfShapeResult& r : results)
    if (!(r.worst_error <= 1)) return 1;
  return 0;
}

}  // namespace quire::bench
