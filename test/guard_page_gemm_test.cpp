// The int8 GEMM's public entry points with every operand flush against a PROT_NONE page
// (test/guard_alloc.h), at its end and then at its start, sized as FBGEMM's
// documentation tells a caller to size it: any read or write past the documented extent
// kills the binary with SIGSEGV. Checked on every ISA path the CPU has, over a sampled
// odd-shape sweep (every size of {1..5, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 127} in
// each of M, N, K, plus K past the 2048-deep block, M past the 120-row block), groups
// 1 to 3, transposed A and B, 1 to 3 threads:
//  - PackBMatrix from a guarded source into a guarded pmat of groups * packedBufferSize(K/G, N)
//    bytes, and unpack into a guarded buffer of exactly K x N;
//  - PackAMatrix + memCopy (int32 C), PackAWithRowOffset + ReQuantizeOutput (int32 and
//    float bias: TENSOR / GROUP / OUT_CHANNEL, so the per-group arrays have 1, G or G*N
//    elements) with a guarded pmat of packedBufferSize() and a guarded row-offset buffer
//    of rowOffsetBufferSize(), ReQuantizeForFloat (C_buffer aliasing C, as FBGEMM's
//    callers do), and PackAWithQuantRowOffset from guarded floats;
//  - the one-call gemm_u8s8s32 / gemm_u8s8u8.
// Every result is compared with quire::ref bit for bit, so the guards cannot hide a
// wrong answer either.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "guard_alloc.h"
#include "quire/SimpleGemm.h"
#include "quire/quire.h"
#include "quire/ref/Reference.h"
#include "quire/ref/ReferenceOutput.h"
#include "test_util.h"

namespace quire::test {
namespace {

using Gran = QuantizationGranularity;

struct Case {
  int M, N, K, G;  // N and K per group
  matrix_op_t at, bt;
  Gran gran;
  int threads;
  uint32_t seed;
};

std::string describe(const Case& c) {
  return "M=" + std::to_string(c.M) + " N=" + std::to_string(c.N) + " K=" + std::to_string(c.K) +
         " G=" + std::to_string(c.G) + " At=" + std::to_string(c.at == matrix_op_t::Transpose) +
         " Bt=" + std::to_string(c.bt == matrix_op_t::Transpose) +
         " gran=" + std::to_string(static_cast<int>(c.gran)) + " T=" + std::to_string(c.threads);
}

std::vector<Case> cases() {
  const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 127};
  std::mt19937 rng(12);
  auto pick = [&] { return sizes[rng() % std::size(sizes)]; };
  std::vector<Case> out;
  uint32_t index = 0;
  auto add = [&](int M, int N, int K) {
    const auto op = [&] { return rng() % 2 ? matrix_op_t::Transpose : matrix_op_t::NoTranspose; };
    out.push_back({M, N, K, 1 + int(index % 3), op(), op(), static_cast<Gran>(index % 3),
                   1 + int(index / 3 % 3), 100 + index});
    ++index;
  };
  for (int dim = 0; dim < 3; ++dim)
    for (int v : sizes) {
      int d[3] = {pick(), pick(), pick()};
      d[dim] = v;
      add(d[0], d[1], d[2]);
    }
  add(3, 5, 2049);
  add(130, 17, 5);
  add(1, 513, 7);
  return out;
}

// Inputs (exact-size source layouts), output-op parameters and expected outputs.
struct Problem {
  Case c;
  int Ktot, Ntot, nq, lda, ldb;
  std::vector<uint8_t> A;  // source layout, A = Quantize(Af)
  std::vector<float> Af;   // source layout
  std::vector<int8_t> B;   // source layout
  float a_scale = 0.02f;
  int32_t a_zp, c_zp;
  std::vector<int32_t> b_zp, col_off, bias_i32;
  std::vector<float> mult, act_w, b_scale, bias_f32, bias_out;
  std::vector<int32_t> want_i32;
  std::vector<uint8_t> want_u8_ibias, want_u8_fbias;
  std::vector<float> want_f32;
};

Problem make_problem(const Case& c) {
  Problem p;
  p.c = c;
  std::mt19937 rng(c.seed);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto unf = [&](float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); };
  const int M = c.M, N = c.N, K = c.K, G = c.G;
  p.Ktot = G * K;
  p.Ntot = G * N;
  p.nq = c.gran == Gran::TENSOR ? 1 : c.gran == Gran::GROUP ? G : p.Ntot;
  p.a_zp = uni(0, 255);
  p.c_zp = uni(0, 255);
  // Logical A (M x Ktot) as floats whose quantization covers 0..255 with saturation.
  std::vector<float> af(size_t(M) * p.Ktot);
  std::vector<uint8_t> a(af.size());
  for (size_t i = 0; i < af.size(); ++i) {
    af[i] = p.a_scale * (unf(-10.0f, 265.0f) - float(p.a_zp));
    a[i] = Quantize<uint8_t>(af[i], p.a_zp, p.a_scale, 8);
  }
  const std::vector<int8_t> b = random_vector<int8_t>(size_t(p.Ktot) * N, -128, 127, c.seed);
  if (c.at == matrix_op_t::NoTranspose) {
    p.lda = p.Ktot;
    p.A = a;
    p.Af = af;
  } else {
    p.lda = M;
    p.A.resize(a.size());
    p.Af.resize(af.size());
    ref::transpose(p.Ktot, M, a.data(), p.Ktot, p.A.data(), M);
    ref::transpose(p.Ktot, M, af.data(), p.Ktot, p.Af.data(), M);
  }
  p.ldb = b_in_layout(c.bt, G, K, N, b, p.B);

  for (int q = 0; q < p.nq; ++q) {
    p.b_zp.push_back(uni(-128, 127));
    p.mult.push_back(unf(0.5f, 2.0f) / (128.0f * std::sqrt(float(K)) * 16.0f));
    p.act_w.push_back(unf(0.001f, 0.01f));
    p.b_scale.push_back(unf(0.001f, 0.05f));
  }
  auto q_of = [&](int j) { return c.gran == Gran::TENSOR ? 0 : c.gran == Gran::GROUP ? j / N : j; };
  std::vector<int32_t> zp_col(p.Ntot);
  for (int j = 0; j < p.Ntot; ++j) {
    zp_col[j] = p.b_zp[q_of(j)];
    p.bias_i32.push_back(uni(-5000, 5000));
    p.bias_f32.push_back(unf(-20.0f, 20.0f));
    p.bias_out.push_back(unf(-20.0f, 20.0f));
  }
  p.col_off.resize(p.Ntot);
  p.want_i32.resize(size_t(M) * p.Ntot);
  p.want_u8_ibias.resize(p.want_i32.size());
  p.want_u8_fbias.resize(p.want_i32.size());
  p.want_f32.resize(p.want_i32.size());
  std::vector<int32_t> row_off(M);
  for (int g = 0; g < G; ++g) {
    const int8_t* Bg = b.data() + size_t(g) * K * N;
    ref::matmul_u8s8s32(M, N, K, a.data() + g * K, p.Ktot, Bg, N, p.want_i32.data() + g * N,
                        p.Ntot);
    ref::col_offsets_with_zero_pt_s8(K, N, Bg, N, zp_col.data() + g * N, p.col_off.data() + g * N,
                                     1);
  }
  for (int g = 0; g < G; ++g) {
    ref::row_offsets_u8(M, K, a.data() + g * K, p.Ktot, row_off.data());
    ref::QuantParams qp;
    qp.granularity = c.gran;
    qp.groups = G;
    qp.nCol = uint32_t(p.Ntot);
    qp.Aq_zero_point = p.a_zp;
    qp.Bq_zero_point = p.b_zp.data();
    qp.row_offsets = row_off.data();
    qp.col_offsets = p.col_off.data();
    const block_type_t block{0, M, g * N, N};
    const int32_t* in = p.want_i32.data() + g * N;
    ref::requantize_u8<int32_t>(p.want_u8_ibias.data(), in, block, p.Ntot, p.Ntot, qp,
                                p.mult.data(), p.c_zp, p.bias_i32.data(), nullptr, false);
    ref::requantize_u8<float>(p.want_u8_fbias.data(), in, block, p.Ntot, p.Ntot, qp,
                              p.mult.data(), p.c_zp, p.bias_f32.data(), p.act_w.data(), true);
    ref::requantize_f32(p.want_f32.data(), in, block, p.Ntot, p.Ntot, qp, p.a_scale,
                        p.b_scale.data(), p.bias_out.data(), false);
  }
  return p;
}

template <class T>
::testing::AssertionResult same(const std::vector<T>& want, const GuardedArray<T>& got) {
  for (size_t i = 0; i < want.size(); ++i)
    if (std::memcmp(&want[i], &got[i], sizeof(T)) != 0)
      return ::testing::AssertionFailure() << "element " << i << ": want " << +want[i] << ", got "
                                           << +got[i];
  return ::testing::AssertionSuccess();
}

// Runs body(thread_id) for each thread of the case, one after another.
template <class F>
void per_thread(int T, const F& body) {
  for (int t = 0; t < T; ++t) body(t);
}

// ReQuantizeOutput with BiasT bias (int32: no ReLU; float: ReLU), guarded parameters.
template <Gran GR, class BiasT>
void run_requant(const Problem& p, Guard gd, PackBMatrix<int8_t>& packB,
                 const GuardedArray<uint8_t>& A) {
  const Case& c = p.c;
  constexpr bool kFloat = std::is_same_v<BiasT, float>;
  GuardedArray<uint8_t> C(size_t(c.M) * p.Ntot, gd);
  GuardedArray<int32_t> C_buffer(size_t(c.M) * p.Ntot, gd);
  const auto mult = guarded(p.mult, gd), act_w = guarded(p.act_w, gd);
  const auto b_zp = guarded(p.b_zp, gd), col_off = guarded(p.col_off, gd);
  const auto bias_i = guarded(p.bias_i32, gd);
  const auto bias_f = guarded(p.bias_f32, gd);
  const BiasT* bias;
  if constexpr (kFloat) bias = bias_f.data(); else bias = bias_i.data();
  per_thread(c.threads, [&](int t) {
    GuardedArray<uint8_t> pmat(size_t(PackAWithRowOffset<uint8_t>::packedBufferSize()), gd);
    GuardedArray<int32_t> row_off(size_t(PackAWithRowOffset<uint8_t>::rowOffsetBufferSize()), gd);
    PackAWithRowOffset<uint8_t> packA(c.at, uint32_t(c.M), uint32_t(p.Ktot), A.data(),
                                      uint32_t(p.lda), pmat.data(), c.G, row_off.data());
    DoNothing<> done;
    ReQuantizeOutput<kFloat, GR, BiasT> op(done, mult.data(), p.c_zp, p.a_zp, b_zp.data(),
                                           row_off.data(), col_off.data(), bias, uint32_t(p.Ntot),
                                           c.G, kFloat ? act_w.data() : nullptr);
    fbgemmPacked(packA, packB, C.data(), C_buffer.data(), uint32_t(p.Ntot), op, t, c.threads);
  });
  EXPECT_TRUE(same(kFloat ? p.want_u8_fbias : p.want_u8_ibias, C))
      << "ReQuantizeOutput " << (kFloat ? "float" : "int32") << " bias";
}

// ReQuantizeForFloat from a uint8 A (PackAWithRowOffset) or a float A
// (PackAWithQuantRowOffset), C_buffer aliasing C.
template <Gran GR>
void run_float(const Problem& p, Guard gd, PackBMatrix<int8_t>& packB,
               const GuardedArray<uint8_t>& A, bool quantize_a) {
  const Case& c = p.c;
  GuardedArray<float> C(size_t(c.M) * p.Ntot, gd);
  const auto b_scale = guarded(p.b_scale, gd), bias = guarded(p.bias_out, gd);
  const auto b_zp = guarded(p.b_zp, gd), col_off = guarded(p.col_off, gd);
  const auto Af = guarded(p.Af, gd);
  per_thread(c.threads, [&](int t) {
    GuardedArray<int32_t> row_off(size_t(PackAWithRowOffset<uint8_t>::rowOffsetBufferSize()), gd);
    DoNothing<float, float> done;
    ReQuantizeForFloat<false, GR> op(done, p.a_scale, b_scale.data(), p.a_zp, b_zp.data(),
                                     row_off.data(), col_off.data(), bias.data(),
                                     uint32_t(p.Ntot), c.G);
    int32_t* C32 = reinterpret_cast<int32_t*>(C.data());
    if (quantize_a) {
      GuardedArray<uint8_t> pmat(size_t(PackAWithQuantRowOffset<uint8_t>::packedBufferSize()), gd);
      PackAWithQuantRowOffset<uint8_t> packA(c.at, c.M, p.Ktot, Af.data(), p.lda, pmat.data(),
                                             p.a_scale, p.a_zp, c.G, row_off.data());
      fbgemmPacked(packA, packB, C.data(), C32, uint32_t(p.Ntot), op, t, c.threads);
    } else {
      PackAWithRowOffset<uint8_t> packA(c.at, uint32_t(c.M), uint32_t(p.Ktot), A.data(),
                                        uint32_t(p.lda), nullptr, c.G, row_off.data());
      fbgemmPacked(packA, packB, C.data(), C32, uint32_t(p.Ntot), op, t, c.threads);
    }
  });
  EXPECT_TRUE(same(p.want_f32, C)) << "ReQuantizeForFloat, quantized A: " << quantize_a;
}

template <Gran GR>
void run_all(const Problem& p, Guard gd) {
  const Case& c = p.c;
  const auto A = guarded(p.A, gd);
  const auto B = guarded(p.B, gd);
  // FBGEMM sizes a caller's buffer per group: packedBufferSize(K / G, N) each.
  const size_t pmat_bytes = size_t(c.G) * PackBMatrix<int8_t>::packedBufferSize(c.K, c.N);
  GuardedArray<int8_t> pmat(pmat_bytes, gd, size_t{64});
  PackBMatrix<int8_t> packB(c.bt, p.Ktot, c.N, B.data(), p.ldb, pmat.data(), c.G);
  GuardedArray<int8_t> unpacked(p.B.size(), gd);
  packB.unpack(unpacked.data());
  EXPECT_TRUE(same(p.B, unpacked)) << "PackBMatrix::unpack";

  {  // PackAMatrix, memCopy to int32 C with its own C_buffer.
    GuardedArray<int32_t> C(size_t(c.M) * p.Ntot, gd), C_buffer(size_t(c.M) * p.Ntot, gd);
    per_thread(c.threads, [&](int t) {
      GuardedArray<uint8_t> apmat(size_t(PackAMatrix<uint8_t>::packedBufferSize()), gd);
      PackAMatrix<uint8_t> packA(c.at, c.M, p.Ktot, A.data(), p.lda, apmat.data(), c.G);
      DoNothing<int32_t, int32_t> done;
      memCopy<> op(done);
      fbgemmPacked(packA, packB, C.data(), C_buffer.data(), uint32_t(p.Ntot), op, t, c.threads);
    });
    EXPECT_TRUE(same(p.want_i32, C)) << "memCopy";
  }
  run_requant<GR, int32_t>(p, gd, packB, A);
  run_requant<GR, float>(p, gd, packB, A);
  run_float<GR>(p, gd, packB, A, false);
  run_float<GR>(p, gd, packB, A, true);

  // The one-call API: A must be row-major; only the first group's shapes differ.
  if (c.at == matrix_op_t::NoTranspose) {
    ThreadPool pool(c.threads);
    GuardedArray<int32_t> C(size_t(c.M) * p.Ntot, gd);
    gemm_u8s8s32(A.data(), c.M, p.lda, packB, C.data(), p.Ntot, &pool);
    EXPECT_TRUE(same(p.want_i32, C)) << "gemm_u8s8s32";
    {
      const auto mult = guarded(p.mult, gd);
      const auto b_zp = guarded(p.b_zp, gd);
      const auto col_off = guarded(p.col_off, gd), bias = guarded(p.bias_i32, gd);
      Requantization q;
      q.granularity = c.gran;
      q.C_multiplier = mult.data();
      q.C_zero_point = p.c_zp;
      q.A_zero_point = p.a_zp;
      q.B_zero_point = b_zp.data();
      q.col_offsets = col_off.data();
      q.bias = bias.data();
      GuardedArray<uint8_t> C8(size_t(c.M) * p.Ntot, gd);
      gemm_u8s8u8(A.data(), c.M, p.lda, packB, C8.data(), p.Ntot, q, &pool);
      EXPECT_TRUE(same(p.want_u8_ibias, C8)) << "gemm_u8s8u8";
    }
  }
}

// The harness itself: one byte past the end of an end-guarded array, or before the start
// of a start-guarded one, faults.
TEST(GuardPageHarness, OneByteOutsideFaults) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (size_t n : {size_t{1}, size_t{17}, size_t{4096}}) {
    GuardedArray<uint8_t> end(n, Guard::after), start(n, Guard::before);
    end[0] = end[n - 1] = 1;
    start[0] = start[n - 1] = 1;
    volatile uint8_t* past = end.data() + n;
    volatile uint8_t* before = start.data() - 1;
    EXPECT_DEATH(*past = 1, "");
    EXPECT_DEATH(*before = 1, "");
  }
}

TEST(GuardPageGemm, EveryOperandAtAPageEdgeOnEveryPath) {
  std::vector<Problem> problems;
  for (const Case& c : cases()) problems.push_back(make_problem(c));
  for (const IsaCase& isa : all_isas()) {
    if (skip_unsupported(isa)) continue;
    ScopedIsa scoped(isa.isa);
    for (Guard gd : kGuards) {
      for (const Problem& p : problems) {
        SCOPED_TRACE(std::string(instSetName(isa.isa)) + " " + guard_name(gd) + " " +
                     describe(p.c));
        switch (p.c.gran) {
          case Gran::TENSOR: run_all<Gran::TENSOR>(p, gd); break;
          case Gran::GROUP: run_all<Gran::GROUP>(p, gd); break;
          case Gran::OUT_CHANNEL: run_all<Gran::OUT_CHANNEL>(p, gd); break;
        }
        if (HasFailure()) return;
      }
    }
  }
}

}  // namespace
}  // namespace quire::test
