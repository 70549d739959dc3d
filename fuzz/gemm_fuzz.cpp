// Differential fuzzer for fbgemmPacked: the input chooses the ISA path, M x N x K, groups,
// transposes, an optional blocking override (derived from the path's own so that it is
// mostly valid; quire may reject it with std::invalid_argument), the thread count (the
// per-thread calls run one after another), the operand fill and the output pipeline:
// memCopy to int32, ReQuantizeOutput to uint8 (granularity, ReLU, int32 / float / no
// bias, zero points) or ReQuantizeForFloat. The result must equal quire::ref bit for bit.
// QUIRE_FUZZ_VERBOSE=1 prints each input's case.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "fuzz_util.h"
#include "quire/quire.h"
#include "quire/ref/Reference.h"
#include "quire/ref/ReferenceOutput.h"

namespace quire::fuzz {
namespace {

using Gran = QuantizationGranularity;

struct Gemm {
  int M, N, K, G, T, Ktot, Ntot, lda, ldb, nq;
  matrix_op_t at, bt;
  bool blocked;
  BlockingFactors bf;
  std::vector<uint8_t> A, a;  // source layout, logical M x Ktot
  std::vector<int8_t> B, b;   // source layout, logical Ktot x N
  Gran gran;
  bool relu;
  int bias_kind;  // 0 none, 1 int32, 2 float
  int32_t a_zp, c_zp;
  std::vector<int32_t> b_zp, col_off, bias_i;
  std::vector<float> mult, act_w, b_scale, bias_f;
  std::vector<int32_t> C32;  // reference, M x Ntot
  const BlockingFactors* params() const { return blocked ? &bf : nullptr; }
};

ref::QuantParams quant(const Gemm& p, const int32_t* row_off) {
  ref::QuantParams qp;
  qp.granularity = p.gran;
  qp.groups = p.G;
  qp.nCol = uint32_t(p.Ntot);
  qp.Aq_zero_point = p.a_zp;
  qp.Bq_zero_point = p.b_zp.data();
  qp.row_offsets = row_off;
  qp.col_offsets = p.col_off.data();
  return qp;
}

template <bool RELU, Gran GR, class BiasT>
void run_u8(const Gemm& p, PackBMatrix<int8_t>& packB) {
  std::vector<uint8_t> C(size_t(p.M) * p.Ntot);
  std::vector<int32_t> C_buffer(C.size());
  const BiasT* bias = nullptr;
  if constexpr (std::is_same_v<BiasT, float>) {
    if (p.bias_kind == 2) bias = p.bias_f.data();
  } else if (p.bias_kind == 1) {
    bias = p.bias_i.data();
  }
  const bool float_bias = std::is_same_v<BiasT, float>;
  for (int t = 0; t < p.T; ++t) {
    std::vector<int32_t> row_off(PackAWithRowOffset<uint8_t>::rowOffsetBufferSize(p.params()));
    PackAWithRowOffset<uint8_t> packA(p.at, uint32_t(p.M), uint32_t(p.Ktot), p.A.data(),
                                      uint32_t(p.lda), nullptr, p.G, row_off.data(), p.params());
    DoNothing<> done;
    ReQuantizeOutput<RELU, GR, BiasT> op(done, p.mult.data(), p.c_zp, p.a_zp, p.b_zp.data(),
                                         row_off.data(), p.col_off.data(), bias, uint32_t(p.Ntot),
                                         p.G, float_bias ? p.act_w.data() : nullptr);
    fbgemmPacked(packA, packB, C.data(), C_buffer.data(), uint32_t(p.Ntot), op, t, p.T,
                 p.params());
  }
  std::vector<uint8_t> want(C.size());
  std::vector<int32_t> row_off(p.M);
  for (int g = 0; g < p.G; ++g) {
    ref::row_offsets_u8(p.M, p.K, p.a.data() + g * p.K, p.Ktot, row_off.data());
    ref::requantize_u8<BiasT>(want.data(), p.C32.data() + g * p.N, {0, p.M, g * p.N, p.N}, p.Ntot,
                              p.Ntot, quant(p, row_off.data()), p.mult.data(), p.c_zp, bias,
                              float_bias ? p.act_w.data() : nullptr, RELU);
  }
  FUZZ_CHECK(C == want);
}

template <bool RELU, Gran GR>
void run_f32(const Gemm& p, PackBMatrix<int8_t>& packB) {
  std::vector<float> C(size_t(p.M) * p.Ntot);
  const float* bias = p.bias_kind ? p.bias_f.data() : nullptr;
  for (int t = 0; t < p.T; ++t) {
    std::vector<int32_t> row_off(PackAWithRowOffset<uint8_t>::rowOffsetBufferSize(p.params()));
    PackAWithRowOffset<uint8_t> packA(p.at, uint32_t(p.M), uint32_t(p.Ktot), p.A.data(),
                                      uint32_t(p.lda), nullptr, p.G, row_off.data(), p.params());
    DoNothing<float, float> done;
    ReQuantizeForFloat<RELU, GR> op(done, 0.03f, p.b_scale.data(), p.a_zp, p.b_zp.data(),
                                    row_off.data(), p.col_off.data(), bias, uint32_t(p.Ntot), p.G);
    fbgemmPacked(packA, packB, C.data(), reinterpret_cast<int32_t*>(C.data()), uint32_t(p.Ntot),
                 op, t, p.T, p.params());
  }
  std::vector<float> want(C.size());
  std::vector<int32_t> row_off(p.M);
  for (int g = 0; g < p.G; ++g) {
    ref::row_offsets_u8(p.M, p.K, p.a.data() + g * p.K, p.Ktot, row_off.data());
    ref::requantize_f32(want.data(), p.C32.data() + g * p.N, {0, p.M, g * p.N, p.N}, p.Ntot,
                        p.Ntot, quant(p, row_off.data()), 0.03f, p.b_scale.data(), bias, RELU);
  }
  FUZZ_CHECK(std::memcmp(C.data(), want.data(), C.size() * sizeof(float)) == 0);
}

void run_i32(const Gemm& p, PackBMatrix<int8_t>& packB) {
  std::vector<int32_t> C(size_t(p.M) * p.Ntot), C_buffer(C.size());
  for (int t = 0; t < p.T; ++t) {
    PackAMatrix<uint8_t> packA(p.at, p.M, p.Ktot, p.A.data(), p.lda, nullptr, p.G, p.params());
    DoNothing<int32_t, int32_t> done;
    memCopy<> op(done);
    fbgemmPacked(packA, packB, C.data(), C_buffer.data(), uint32_t(p.Ntot), op, t, p.T,
                 p.params());
  }
  FUZZ_CHECK(C == p.C32);
}

template <bool RELU, Gran GR>
void run_pipeline(const Gemm& p, PackBMatrix<int8_t>& packB, int pipeline) {
  if (pipeline == 1) run_u8<RELU, GR, int32_t>(p, packB);
  if (pipeline == 2) run_u8<RELU, GR, float>(p, packB);
  if (pipeline == 3) run_f32<RELU, GR>(p, packB);
}

template <bool RELU>
void run_gran(const Gemm& p, PackBMatrix<int8_t>& packB, int pipeline) {
  switch (p.gran) {
    case Gran::TENSOR: run_pipeline<RELU, Gran::TENSOR>(p, packB, pipeline); break;
    case Gran::GROUP: run_pipeline<RELU, Gran::GROUP>(p, packB, pipeline); break;
    case Gran::OUT_CHANNEL: run_pipeline<RELU, Gran::OUT_CHANNEL>(p, packB, pipeline); break;
  }
}

// A blocking derived from the path's: smaller register tile, cache blocks of any size
// that keeps the documented multiples.
BlockingFactors draw_blocking(FuzzedDataProvider& in) {
  BlockingFactors bf = detail::resolve_blocking(nullptr, "fuzz", detail::Accumulation::int32);
  bf.MR = in.ConsumeIntegralInRange(1, bf.MR);
  bf.NR = bf.NR_MIN * in.ConsumeIntegralInRange(1, bf.NR / bf.NR_MIN);
  bf.MCB = bf.MR * in.ConsumeIntegralInRange(1, 24);
  bf.KCB = 4 * in.ConsumeIntegralInRange(1, 80);
  bf.NCB = bf.NR * in.ConsumeIntegralInRange(1, 8);
  return bf;
}

}  // namespace
}  // namespace quire::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace quire;
  using namespace quire::fuzz;
  FuzzedDataProvider in(data, size);
  ScopedIsa isa(pick_isa(in));
  Gemm p;
  // Mostly small sizes (every edge case of the tiles and blocks is below 130), now and
  // then past the default cache blocks.
  const bool big = in.ConsumeIntegralInRange(0, 7) == 0;
  p.G = in.ConsumeIntegralInRange(1, big ? 1 : 3);
  p.M = in.ConsumeIntegralInRange(1, big ? 260 : 40);
  p.N = in.ConsumeIntegralInRange(1, big ? 600 : 130);
  p.K = in.ConsumeIntegralInRange(1, big ? 2100 : 70);
  if (big) p.N = std::max(1, std::min(p.N, (1 << 22) / (p.M * p.K)));  // M*N*K <= 2^22
  p.T = in.ConsumeIntegralInRange(1, 8);
  p.at = in.ConsumeBool() ? matrix_op_t::Transpose : matrix_op_t::NoTranspose;
  p.bt = in.ConsumeBool() ? matrix_op_t::Transpose : matrix_op_t::NoTranspose;
  p.blocked = in.ConsumeBool();
  if (p.blocked) p.bf = draw_blocking(in);
  const int pipeline = in.ConsumeIntegralInRange(0, 3);
  p.gran = static_cast<Gran>(in.ConsumeIntegralInRange(0, 2));
  p.relu = in.ConsumeBool();
  p.bias_kind = in.ConsumeIntegralInRange(0, 2);
  p.a_zp = in.ConsumeIntegralInRange(0, 255);
  p.c_zp = in.ConsumeIntegralInRange(0, 255);
  const bool b_sym = in.ConsumeBool();
  const Fill fill = pick_fill(in);
  const uint32_t seed = in.ConsumeIntegral<uint32_t>();

  p.Ktot = p.G * p.K;
  p.Ntot = p.G * p.N;
  p.nq = p.gran == Gran::TENSOR ? 1 : p.gran == Gran::GROUP ? p.G : p.Ntot;
  p.a = bytes<uint8_t>(size_t(p.M) * p.Ktot, fill, seed);
  p.b = bytes<int8_t>(size_t(p.Ktot) * p.N, fill, seed + 1);
  p.A = p.a;
  p.lda = p.Ktot;
  if (p.at == matrix_op_t::Transpose) {
    p.lda = p.M;
    ref::transpose(p.Ktot, p.M, p.a.data(), p.Ktot, p.A.data(), p.M);
  }
  p.B = p.b;
  p.ldb = p.N;
  if (p.bt == matrix_op_t::Transpose) {
    p.ldb = p.K;
    for (int g = 0; g < p.G; ++g)
      ref::transpose(p.N, p.K, p.b.data() + size_t(g) * p.K * p.N, p.N,
                     p.B.data() + size_t(g) * p.K * p.N, p.K);
  }
  std::mt19937 gen(seed + 2);
  for (int q = 0; q < p.nq; ++q) {
    p.b_zp.push_back(b_sym ? 0 : int(gen() % 256) - 128);
    p.mult.push_back(float(gen() % 1000 + 1) * 1e-6f);
    p.act_w.push_back(float(gen() % 1000 + 1) * 1e-5f);
    p.b_scale.push_back(float(gen() % 1000 + 1) * 1e-5f);
  }
  auto q_of = [&](int j) { return p.gran == Gran::TENSOR ? 0 : p.gran == Gran::GROUP ? j / p.N : j; };
  std::vector<int32_t> zp_col(p.Ntot);
  for (int j = 0; j < p.Ntot; ++j) {
    zp_col[j] = p.b_zp[q_of(j)];
    p.bias_i.push_back(int32_t(gen() % 200001) - 100000);
    p.bias_f.push_back(float(int(gen() % 2001) - 1000) * 0.01f);
  }
  p.C32.resize(size_t(p.M) * p.Ntot);
  p.col_off.resize(p.Ntot);
  for (int g = 0; g < p.G; ++g) {
    const int8_t* bg = p.b.data() + size_t(g) * p.K * p.N;
    ref::matmul_u8s8s32(p.M, p.N, p.K, p.a.data() + g * p.K, p.Ktot, bg, p.N,
                        p.C32.data() + g * p.N, p.Ntot);
    ref::col_offsets_with_zero_pt_s8(p.K, p.N, bg, p.N, zp_col.data() + g * p.N,
                                     p.col_off.data() + g * p.N, 1);
  }

  if (std::getenv("QUIRE_FUZZ_VERBOSE"))  // to see what a crashing input runs
    std::fprintf(stderr, "isa=%s M=%d N=%d K=%d G=%d T=%d at=%d bt=%d blocked=%d MR=%d NR=%d MCB=%d KCB=%d NCB=%d pipeline=%d\n", instSetName(fbgemmInstructionSet()), p.M, p.N, p.K, p.G, p.T, int(p.at), int(p.bt), p.blocked, p.bf.MR, p.bf.NR, p.bf.MCB, p.bf.KCB, p.bf.NCB, pipeline);
  std::unique_ptr<PackBMatrix<int8_t>> packB;
  try {
    packB = std::make_unique<PackBMatrix<int8_t>>(p.bt, p.Ktot, p.N, p.B.data(), p.ldb, nullptr,
                                                  p.G, p.params());
  } catch (const std::invalid_argument&) {
    FUZZ_CHECK(p.blocked);  // only a drawn blocking may be refused
    return 0;
  }
  if (pipeline == 0) {
    run_i32(p, *packB);
  } else if (p.relu) {
    run_gran<true>(p, *packB, pipeline);
  } else {
    run_gran<false>(p, *packB, pipeline);
  }
  return 0;
}
