// oneDNN's matmul primitive as an inference engine uses it: u8 activations x s8
// weights -> s32, the weights described with format_tag::any so the primitive picks
// its preferred (packed) layout, reordered into it once before the timing.
// (dnnl_gemm_u8s8s32 repacks B on every call: not a fair baseline.)
#include <omp.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>
#include <oneapi/dnnl/dnnl.hpp>
#include <oneapi/dnnl/dnnl_debug.h>

#include "baseline.h"

namespace quire::bench {
namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

// oneDNN's own notation for a 2-D blocked layout, 'a' = K and 'b' = N: outer dims from
// the largest stride down (upper case when the dim is also blocked inside), then the
// inner blocks, e.g. "BA16a64b4a" (a 16x64 tile of N-major 4-deep K groups).
std::string layout_string(const dnnl::memory::desc& md) {
  const dnnl_memory_desc_t& d = md.data;
  if (d.format_kind != dnnl_blocked) return dnnl_fmt_kind2str(d.format_kind);
  const dnnl_blocking_desc_t& blk = d.format_desc.blocking;
  std::vector<int> order(d.ndims);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int x, int y) { return blk.strides[x] > blk.strides[y]; });
  std::string s;
  for (int dim : order) {
    const bool blocked = std::find(blk.inner_idxs, blk.inner_idxs + blk.inner_nblks, dim) !=
                         blk.inner_idxs + blk.inner_nblks;
    s += static_cast<char>((blocked ? 'A' : 'a') + dim);
  }
  for (int i = 0; i < blk.inner_nblks; ++i) {
    s += std::to_string(blk.inner_blks[i]) + static_cast<char>('a' + blk.inner_idxs[i]);
  }
  return s;
}

class OneDnnGemm final : public BaselineGemm {
 public:
  OneDnnGemm(const GemmData& data, dnnl::engine& engine, dnnl::stream& stream)
      : stream_(stream), c_(static_cast<size_t>(data.shape.M) * data.shape.N) {
    const dnnl::memory::dim M = data.shape.M, N = data.shape.N, K = data.shape.K;
    const dnnl::memory::desc a_md({M, K}, dt::u8, tag::ab);
    const dnnl::memory::desc b_any({K, N}, dt::s8, tag::any);
    const dnnl::memory::desc c_md({M, N}, dt::s32, tag::ab);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_any, c_md), engine);

    dnnl::memory b_plain({{K, N}, dt::s8, tag::ab}, engine,
                         const_cast<int8_t*>(data.B.data()));
    b_packed_ = dnnl::memory(pd.weights_desc(), engine);
    dnnl::reorder(b_plain, b_packed_).execute(stream_, b_plain, b_packed_);
    stream_.wait();

    a_ = dnnl::memory(a_md, engine, const_cast<uint8_t*>(data.A.data()));
    c_mem_ = dnnl::memory(c_md, engine, c_.data());
    matmul_ = dnnl::matmul(pd);
    detail_ = std::string(pd.impl_info_str()) + ", weights " + layout_string(pd.weights_desc());
    weights_bytes_ = static_cast<int64_t>(pd.weights_desc().get_size());
  }

  void call() override {
    matmul_.execute(stream_, {{DNNL_ARG_SRC, a_}, {DNNL_ARG_WEIGHTS, b_packed_},
                              {DNNL_ARG_DST, c_mem_}});
    stream_.wait();
  }

  std::string detail() const override { return detail_; }

  int64_t packed_weights_bytes() const override { return weights_bytes_; }

  int64_t check(const ReferenceRows& ref) const override { return ref.mismatches(c_.data()); }

 private:
  dnnl::stream& stream_;
  AlignedArray<int32_t> c_;
  dnnl::memory a_, b_packed_, c_mem_;
  dnnl::matmul matmul_;
  std::string detail_;
  int64_t weights_bytes_ = 0;
};

class OneDnn final : public Baseline {
 public:
  explicit OneDnn(int threads) : threads_(threads) {
    // The Debian build threads with OpenMP (DNNL_CPU_RUNTIME OMP, libgomp): primitives
    // plan for omp_get_max_threads() of the thread that runs them, our main thread.
    omp_set_num_threads(threads);
  }

  std::string name() const override { return "oneDNN"; }

  std::string description() const override {
    const dnnl_version_t* v = dnnl_version();
    return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
           std::to_string(v->patch) + " matmul u8 x s8 -> s32, OpenMP, " +
           std::to_string(threads_) + " thread(s)";
  }

  std::unique_ptr<BaselineGemm> prepare(const GemmData& data) override {
    return std::make_unique<OneDnnGemm>(data, engine_, stream_);
  }

 private:
  int threads_;
  dnnl::engine engine_{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream_{engine_};
};

}  // namespace

std::unique_ptr<Baseline> make_onednn_baseline(int threads) {
  return std::make_unique<OneDnn>(threads);
}

}  // namespace quire::bench
