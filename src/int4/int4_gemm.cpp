// The loops of int4Gemm around the kernels, the thread plans and the K-split reduction.
//
// Decode plan (M <= 4): every thread quantizes all M rows (a few KiB) and runs one
// kernel call per panel of its contiguous panel range, over its group range (with the
// path's software prefetch, if any); its part of W is one contiguous stretch of memory.
// Otherwise: partition_tiles gives each thread rows [m0, m1) x panels; per block of
// rows (quantized into the thread's buffer, sized to stay in L2), every panel is run
// for each tile of <= max_rows rows, so the panel's codes are read from memory once
// per block and from L2 by the other tiles.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "int4/activations.h"
#include "int4/int4_kernels.h"
#include "quire/Int4Gemm.h"
#include "quire/Utils.h"
#include "quire/detail/Check.h"
#include "cpu/isa_record.h"
#include "driver/driver.h"

namespace quire {

using detail::Int4Layout;

namespace int4 {

namespace {

// Bytes of quantized A per row block of the M x N plan: with a panel's codes (32 bytes
// per K), the block stays in a 1 MiB L2.
constexpr int64_t kRowBlockBytes = 384 * 1024;

thread_local RowScratch t_rows;

// Rows [0, n) cut into count tiles of near-equal height (<= max_rows each).
struct RowTiles {
  int count, base, extra;
  RowTiles(int n, int max_rows)
      : count((n + max_rows - 1) / max_rows), base(n / count), extra(n % count) {}
  int rows(int t) const { return base + (t < extra ? 1 : 0); }
  int first(int t) const { return t * base + std::min(t, extra); }
};

struct Call {
  const Int4Layout& l;
  const Int4Kernels& ks;
  const Int4Epilogue& epi;
  const QuantizedRows& a;  // rows of the block, row 0 = `row0` of C
  int g0, g1;              // group range
  int64_t prefetch;
};

// Kernel calls for rows [r0, r0 + rows) of the block x panel p; C (or the partial sums)
// at out, rows ldo floats apart, at the block's row r0 and the panel's first column.
void run_tile(const Call& call, int r0, int rows, int p, float* out, int64_t ldo, bool final_output) {
  const Int4Layout& l = call.l;
  Int4KernelArgs args{};
  const int64_t k8 = l.group_first_k8(call.g0);
  args.a = call.a.q + r0 * call.a.ld + k8 * Int4Layout::kBlockK;
  args.lda = call.a.ld;
  args.rsum = call.a.rsum + int64_t{r0} * l.groups + call.g0;
  args.ld_rsum = l.groups;
  args.codes = l.panel_codes(p) + k8 * Int4Layout::kBlockBytes;
  args.scales = l.panel_scales(p) + int64_t{call.g0} * Int4Layout::kPanel * l.scale_bytes();
  args.mins = l.has_mins() ? l.panel_min_values(p) + int64_t{call.g0} * Int4Layout::kPanel : nullptr;
  args.groups = call.g1 - call.g0;
  args.group_k8 = l.group_k8;
  args.last_k8 = l.group_k8_count(call.g1 - 1);
  args.prefetch = call.prefetch;
  args.a_scale = call.a.scale + r0;
  args.bias = call.epi.bias ? call.epi.bias + int64_t{p} * Int4Layout::kPanel : nullptr;
  args.c = out;
  args.ldc = ldo;
  args.cols = std::min(Int4Layout::kPanel, l.N - p * Int4Layout::kPanel);
  args.final_output = final_output;
  args.relu = call.epi.relu;
  call.ks.get(l.has_mins(), l.scale_type, rows)(args);
}

void check_call(int M, const float* A, int lda, const PackedInt4Weights& W, const float* C,
                int ldc, int thread_id, int num_threads) {
  const char* where = "int4Gemm";
  detail::check_arg(M >= 0, where, "M", M, "must be >= 0");
  detail::check_arg(num_threads >= 1, where, "num_threads", num_threads, "must be >= 1");
  detail::check_arg(thread_id >= 0 && thread_id < num_threads, where, "thread_id", thread_id,
                    "must be in [0, num_threads)");
  if (M == 0) return;
  detail::check_not_null(A, where, "A");
  detail::check_not_null(C, where, "C");
  detail::check_arg(lda >= W.rows(), where, "lda", lda, "must be >= K");
  detail::check_arg(ldc >= W.cols(), where, "ldc", ldc, "must be >= N");
}

}  // namespace
}  // namespace int4

struct Int4GemmWorkspace::State {
  int M, N, groups, num_threads;
  detail::Int4Plan plan;
  int64_t ld;                       // floats between rows of a part: panels * 64
  std::vector<float> partial;       // k_parts x M x ld
  std::unique_ptr<std::atomic<int>[]> done;  // parts finished, per panel range
};

Int4GemmWorkspace::Int4GemmWorkspace(int M, const PackedInt4Weights& W, int num_threads)
    : state_(std::make_unique<State>()) {
  const char* where = "Int4GemmWorkspace";
  detail::check_arg(M >= 0, where, "M", M, "must be >= 0");
  detail::check_arg(num_threads >= 1, where, "num_threads", num_threads, "must be >= 1");
  const Int4Layout& l = W.layout();
  State& s = *state_;
  s.M = M;
  s.N = l.N;
  s.groups = l.groups;
  s.num_threads = num_threads;
  s.plan = detail::int4_plan(M, l.panels, l.groups, num_threads, true);
  s.ld = int64_t{l.panels} * Int4Layout::kPanel;
  if (s.plan.k_parts > 1) {
    s.partial.resize(static_cast<size_t>(s.plan.k_parts) * M * s.ld);
    s.done = std::make_unique<std::atomic<int>[]>(static_cast<size_t>(s.plan.n_parts));
    for (int i = 0; i < s.plan.n_parts; ++i) s.done[i].store(0);
  }
}

Int4GemmWorkspace::~Int4GemmWorkspace() = default;

namespace {

// The thread's share of a decode plan.
void run_decode(const int4::Int4Kernels& ks, int M, const float* A, int lda, const Int4Layout& l,
                float* C, int ldc, const Int4Epilogue& epi, int thread_id,
                const detail::Int4Plan& plan, Int4GemmWorkspace::State* ws) {
  if (thread_id >= plan.n_parts * plan.k_parts) return;
  const int ni = thread_id % plan.n_parts, ki = thread_id / plan.n_parts;
  int64_t p0, p1, g0, g1;
  fbgemmPartition1D(ni, plan.n_parts, l.panels, p0, p1);
  fbgemmPartition1D(ki, plan.k_parts, l.groups, g0, g1);

  const int4::QuantizedRows a = int4::t_rows.get(l, M);
  int4::quantize_rows(A, lda, M, 0, l, a);
  const int4::Call call{l, ks, epi, a, static_cast<int>(g0),
                        static_cast<int>(g1), ks.decode_prefetch};
  const bool split = plan.k_parts > 1;
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t col = p * Int4Layout::kPanel;
    if (split) {
      float* part = ws->partial.data() + ki * M * ws->ld + col;
      int4::run_tile(call, 0, M, static_cast<int>(p), part, ws->ld, false);
    } else {
      int4::run_tile(call, 0, M, static_cast<int>(p), C + col, ldc, true);
    }
  }
  if (!split) return;

  // The last thread of this panel range to finish adds the parts in order.
  if (ws->done[ni].fetch_add(1, std::memory_order_acq_rel) + 1 != plan.k_parts) return;
  const int64_t c0 = p0 * Int4Layout::kPanel, c1 = std::min<int64_t>(l.N, p1 * Int4Layout::kPanel);
  const size_t part_floats = static_cast<size_t>(M) * ws->ld;
  for (int i = 0; i < M; ++i) {
    for (int64_t j = c0; j < c1; ++j) {
      const float* x = ws->partial.data() + i * ws->ld + j;
      float acc = x[0];
      for (int q = 1; q < plan.k_parts; ++q) acc += x[q * part_floats];
      float o = std::fma(a.scale[i], acc, epi.bias ? epi.bias[j] : 0.0f);
      if (epi.relu) o = o > 0.0f ? o : 0.0f;
      C[i * int64_t{ldc} + j] = o;
    }
  }
  ws->done[ni].store(0, std::memory_order_relaxed);
}

// The thread's share of the M x N plan.
void run_tiles(const int4::Int4Kernels& ks, int M, const float* A, int lda, const Int4Layout& l,
               float* C, int ldc, const Int4Epilogue& epi, int thread_id, int num_threads) {
  const detail::ThreadTile tile = detail::partition_tiles(
      M, l.N, detail::kInt4SplitRows, Int4Layout::kPanel, thread_id, num_threads);
  if (tile.m0 >= tile.m1 || tile.n0 >= tile.n1) return;
  const int64_t row_bytes = int4::quantized_row_bytes(l);
  const int block_rows = static_cast<int>(std::clamp<int64_t>(
      int4::kRowBlockBytes / row_bytes / ks.max_rows * ks.max_rows, ks.max_rows, 120));
  const int p0 = tile.n0 / Int4Layout::kPanel;
  const int p1 = (tile.n1 + Int4Layout::kPanel - 1) / Int4Layout::kPanel;
  for (int i0 = tile.m0; i0 < tile.m1; i0 += block_rows) {
    const int mb = std::min(block_rows, tile.m1 - i0);
    const int4::QuantizedRows a = int4::t_rows.get(l, mb);
    int4::quantize_rows(A + int64_t{i0} * lda, lda, mb, i0, l, a);
    const int4::Call call{l, ks, epi, a, 0, l.groups, 0};
    const int4::RowTiles tiles(mb, ks.max_rows);
    for (int p = p0; p < p1; ++p) {
      for (int t = 0; t < tiles.count; ++t) {
        const int r0 = tiles.first(t);
        float* out = C + int64_t{i0 + r0} * ldc + int64_t{p} * Int4Layout::kPanel;
        int4::run_tile(call, r0, tiles.rows(t), p, out, ldc, true);
      }
    }
  }
}

}  // namespace

void int4Gemm(int M, const float* A, int lda, const PackedInt4Weights& W, float* C, int ldc,
              const Int4Epilogue& epilogue, int thread_id, int num_threads,
              Int4GemmWorkspace* workspace) {
  int4::check_call(M, A, lda, W, C, ldc, thread_id, num_threads);
  if (M == 0) return;
  const Int4Layout& l = W.layout();
  Int4GemmWorkspace::State* ws = workspace ? &workspace->state() : nullptr;
  if (ws != nullptr && (ws->M != M || ws->N != l.N || ws->groups != l.groups ||
                        ws->num_threads != num_threads)) {
    throw std::invalid_argument(
        "int4Gemm: workspace was made for M=" + std::to_string(ws->M) + ", N=" +
        std::to_string(ws->N) + ", " + std::to_string(ws->groups) + " groups, num_threads=" +
        std::to_string(ws->num_threads) + "; this call has M=" + std::to_string(M) + ", N=" +
        std::to_string(l.N) + ", " + std::to_string(l.groups) +
        " groups, num_threads=" + std::to_string(num_threads));
  }
  const detail::Int4Plan plan = detail::int4_plan(M, l.panels, l.groups, num_threads, ws != nullptr);
  const int4::Int4Kernels& ks = *detail::active_isa().int4;  // the path, read once per call
  if (plan.decode) {
    run_decode(ks, M, A, lda, l, C, ldc, epilogue, thread_id, plan, ws);
  } else {
    run_tiles(ks, M, A, lda, l, C, ldc, epilogue, thread_id, num_threads);
  }
}

void int4Gemm(int M, const float* A, int lda, const PackedInt4Weights& W, float* C, int ldc,
              const Int4Epilogue& epilogue, ThreadPool& pool) {
  int4::check_call(M, A, lda, W, C, ldc, 0, pool.size());
  if (M == 0) return;
  Int4GemmWorkspace ws(M, W, pool.size());
  pool.run([&](int t, int nt) { int4Gemm(M, A, lda, W, C, ldc, epilogue, t, nt, &ws); });
}

}  // namespace quire
