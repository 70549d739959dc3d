// Differential fuzzer for fbgemmConv: the input chooses the ISA path and a conv_param_t
// (1 to 3 spatial dimensions, batch, channels, groups, kernel, stride, pads, dilation,
// output padding, transposed; sizes bounded so one run stays fast), the thread count
// (calls run one after another), the operand fill and ReQuantizeOutput's options
// (granularity, ReLU, int32 / float / no bias, zero points). conv_param_t may refuse a
// drawn shape with std::invalid_argument; a shape it accepts fbgemmConv must take and
// give ref::conv_requantize_u8's bytes exactly, whichever path it takes.
#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include "fuzz_util.h"
#include "quire/quire.h"
#include "quire/ref/ReferenceConv.h"

namespace quire::fuzz {
namespace {

using Gran = QuantizationGranularity;

struct Options {
  Gran gran;
  bool relu;
  int bias_kind;  // 0 none, 1 int32, 2 float
  int32_t a_zp, c_zp;
  bool b_sym;
  int threads;
  Fill fill;
  uint32_t seed;
};

template <int D>
int64_t count(const std::array<int, D>& dims, int64_t n) {
  for (int d : dims) n *= d;
  return n;
}

template <bool RELU, Gran GR, class BiasT, int D>
void run(const conv_param_t<D>& p, const Options& o) {
  const int kprod = int(count<D>(p.K, 1));
  const int icg = p.IC / p.G;
  const auto A = bytes<uint8_t>(size_t(count<D>(p.IN_DIM, int64_t{p.MB} * p.IC)), o.fill, o.seed);
  const auto W = bytes<int8_t>(size_t(p.OC) * kprod * icg, o.fill, o.seed + 1);
  const size_t out_n = size_t(count<D>(p.OUT_DIM, int64_t{p.MB} * p.OC));
  const int nq = GR == Gran::TENSOR ? 1 : GR == Gran::GROUP ? p.G : p.OC;
  std::mt19937 gen(o.seed + 2);
  std::vector<int32_t> b_zp, bias_i;
  std::vector<float> mult, act_w, bias_f;
  for (int q = 0; q < nq; ++q) {
    b_zp.push_back(o.b_sym ? 0 : int(gen() % 256) - 128);
    mult.push_back(float(gen() % 1000 + 1) * 1e-6f);
    act_w.push_back(float(gen() % 1000 + 1) * 1e-5f);
  }
  for (int j = 0; j < p.OC; ++j) {
    bias_i.push_back(int32_t(gen() % 200001) - 100000);
    bias_f.push_back(float(int(gen() % 2001) - 1000) * 0.01f);
  }
  std::vector<int32_t> col_off(p.OC);
  ref::conv_col_offsets(p, W.data(), b_zp.data(), p.OC / nq, col_off.data());
  const BiasT* bias = nullptr;
  if constexpr (std::is_same_v<BiasT, float>) bias = bias_f.data();
  else if (o.bias_kind == 1) bias = bias_i.data();
  const float* aws = std::is_same_v<BiasT, float> ? act_w.data() : nullptr;

  PackWeightsForConv<D> packed(p, W.data());
  std::vector<uint8_t> out(out_n);
  std::vector<int32_t> buffer(out_n);
  for (int t = 0; t < o.threads; ++t) {
    DoNothing<> done;
    ReQuantizeOutput<RELU, GR, BiasT> op(done, mult.data(), o.c_zp, o.a_zp, b_zp.data(), nullptr,
                                         col_off.data(), bias, uint32_t(p.OC), p.G, aws);
    fbgemmConv(p, A.data(), packed, out.data(), buffer.data(), op, t, o.threads);
  }

  std::vector<int32_t> C(out_n), row_off(out_n / p.OC * p.G);
  ref::conv_u8s8s32(p, A.data(), o.a_zp, W.data(), C.data());
  ref::conv_row_offsets(p, A.data(), o.a_zp, row_off.data());
  ref::ConvRequant r;
  r.granularity = GR;
  r.A_zero_point = o.a_zp;
  r.B_zero_point = b_zp.data();
  r.col_offsets = col_off.data();
  r.C_multiplier = mult.data();
  r.C_zero_point = o.c_zp;
  r.fuse_relu = RELU;
  r.act_times_w_scale = aws;
  std::vector<uint8_t> want(out_n);
  ref::conv_requantize_u8<D, BiasT>(p, C.data(), row_off.data(), r, bias, want.data());
  FUZZ_CHECK(out == want);
}

template <bool RELU, Gran GR, int D>
void run_bias(const conv_param_t<D>& p, const Options& o) {
  if (o.bias_kind == 2) run<RELU, GR, float>(p, o);
  else run<RELU, GR, int32_t>(p, o);
}

template <int D>
void run_options(const conv_param_t<D>& p, const Options& o) {
  const auto with_relu = [&]<bool R>() {
    switch (o.gran) {
      case Gran::TENSOR: run_bias<R, Gran::TENSOR>(p, o); break;
      case Gran::GROUP: run_bias<R, Gran::GROUP>(p, o); break;
      case Gran::OUT_CHANNEL: run_bias<R, Gran::OUT_CHANNEL>(p, o); break;
    }
  };
  if (o.relu) with_relu.template operator()<true>();
  else with_relu.template operator()<false>();
}

template <int D>
void fuzz_dim(FuzzedDataProvider& in, const Options& o) {
  const int G = in.ConsumeIntegralInRange(1, 16);
  const int MB = in.ConsumeIntegralInRange(1, 2);
  const int IC = G * in.ConsumeIntegralInRange(1, D == 3 ? 4 : 9);
  const int OC = G * in.ConsumeIntegralInRange(1, D == 3 ? 4 : 9);
  std::array<int, D> in_dim, k, stride, dilation, out_pad;
  std::array<int, 2 * D> pad;
  for (int d = 0; d < D; ++d) {
    in_dim[d] = in.ConsumeIntegralInRange(1, D == 1 ? 40 : D == 2 ? 12 : 6);
    k[d] = in.ConsumeIntegralInRange(1, D == 3 ? 3 : 7);
    stride[d] = in.ConsumeIntegralInRange(1, 3);
    dilation[d] = in.ConsumeIntegralInRange(0, 4) == 0 ? 2 : 1;
    pad[d] = in.ConsumeIntegralInRange(0, k[d] - 1);
    pad[D + d] = in.ConsumeIntegralInRange(0, k[d] - 1);
    out_pad[d] = in.ConsumeIntegralInRange(0, 3) == 0 ? 1 : 0;
  }
  const bool transposed = in.ConsumeIntegralInRange(0, 5) == 0;
  if (!transposed) out_pad.fill(0);
  std::optional<conv_param_t<D>> p;
  try {
    p.emplace(MB, IC, OC, in_dim, G, k, stride, pad, dilation, out_pad, transposed);
  } catch (const std::invalid_argument&) {
    return;  // conv_param_t refused the shape: quire's documented answer
  }
  run_options<D>(*p, o);  // a valid shape: fbgemmConv must take it
}

}  // namespace
}  // namespace quire::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace quire::fuzz;
  FuzzedDataProvider in(data, size);
  ScopedIsa isa(pick_isa(in));
  const int dims = in.ConsumeIntegralInRange(1, 3);
  Options o;
  o.gran = static_cast<Gran>(in.ConsumeIntegralInRange(0, 2));
  o.relu = in.ConsumeBool();
  o.bias_kind = in.ConsumeIntegralInRange(0, 2);
  o.a_zp = in.ConsumeIntegralInRange(0, 255);
  o.c_zp = in.ConsumeIntegralInRange(0, 255);
  o.b_sym = in.ConsumeBool();
  o.threads = in.ConsumeIntegralInRange(1, 4);
  o.fill = pick_fill(in);
  o.seed = in.ConsumeIntegral<uint32_t>();
  if (dims == 1) fuzz_dim<1>(in, o);
  if (dims == 2) fuzz_dim<2>(in, o);
  if (dims == 3) fuzz_dim<3>(in, o);
  return 0;
}
