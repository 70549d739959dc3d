// The machinery of the end-to-end requantized GEMM tests (gemm_requantize_test.cpp): one
// case (Config), its inputs in the packers' layouts with every output-op parameter and the
// expected outputs from quire::ref (Problem, build_problem), and running it on the active
// ISA the way FBGEMM clients do, for each thread count, sequentially or on std::threads,
// comparing with the expected outputs bit for bit (run_problem).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "quire/quire.h"
#include "quire/ref/Reference.h"
#include "quire/ref/ReferenceOutput.h"
#include "test_util.h"

namespace quire::test {

using Gran = QuantizationGranularity;

enum class Bias { none, i32, f32 };
// Full range; A = 255 with B = -128 / 127; or A in 0..127 (7-bit, reduce_range) with
// full-range B, which the saturation certificate runs on the pair-safe kernels.
enum class Data { random, a255_bmin, a255_bmax, a7bit };

inline constexpr uint8_t kSentinelU8 = 0xA5;
inline constexpr uint32_t kSentinelF32Bits = 0x7FC0DEAD;  // a NaN no computation produces

// One GEMM + output pipeline problem. N and K are per group; C is M x (G * N).
struct Config {
  int M = 1, N = 1, K = 1, G = 1;
  matrix_op_t atrans = matrix_op_t::NoTranspose, btrans = matrix_op_t::NoTranspose;
  Gran gran = Gran::TENSOR;
  int qgroups = 1;  // the ops' `groups`: quantization groups for GROUP
  bool relu = false;
  Bias bias = Bias::none;
  bool float_bias_type = false;  // BIAS_T of ReQuantizeOutput (float when bias == f32)
  bool a_zp = false;             // nonzero A zero point
  bool b_sym = false;            // all B zero points 0
  bool null_offsets = false;     // pass null offsets where the zero points allow it
  Data data = Data::random;
  int lda_pad = 0, ldb_pad = 0, ldc_pad = 0;
  std::vector<int> threads{1};     // thread counts run as sequential per-thread calls
  std::vector<int> concurrent;     // thread counts run on std::threads
  bool float_out = true;           // also run ReQuantizeForFloat ...
  std::vector<int> float_threads;  // ... with these thread counts (empty: as threads)
  uint32_t seed = 1;
};

inline const char* gran_name(Gran g) {
  return g == Gran::TENSOR ? "TENSOR" : g == Gran::GROUP ? "GROUP" : "OUT_CHANNEL";
}

inline std::string describe(const Config& c) {
  std::ostringstream s;
  s << "M=" << c.M << " N=" << c.N << " K=" << c.K << " G=" << c.G
    << " At=" << (c.atrans == matrix_op_t::Transpose)
    << " Bt=" << (c.btrans == matrix_op_t::Transpose) << " " << gran_name(c.gran)
    << "(groups=" << c.qgroups << ") relu=" << c.relu << " bias="
    << (c.bias == Bias::none  ? "none"
        : c.bias == Bias::i32 ? "int32"
                              : "float")
    << " BIAS_T=" << (c.float_bias_type ? "float" : "int32_t") << " a_zp=" << c.a_zp
    << " b_sym=" << c.b_sym << " null_offsets=" << c.null_offsets << " data="
    << (c.data == Data::random      ? "random"
        : c.data == Data::a7bit     ? "A7bit"
        : c.data == Data::a255_bmin ? "A255,B-128"
                                    : "A255,B127")
    << " pads=" << c.lda_pad << "," << c.ldb_pad << "," << c.ldc_pad << " seed=" << c.seed;
  return s.str();
}

// Inputs in the layouts the packers take, every output-op parameter, and the expected
// outputs computed with quire::ref. Independent of the ISA, so built once and shared.
struct Problem {
  Config c;
  int Ktot = 0, Ntot = 0, lda = 0, ldb = 0, ldc = 0;
  std::vector<uint8_t> A;  // source layout
  std::vector<int8_t> B;   // source layout
  int32_t a_zp = 0, c_zp = 0;
  float a_scale = 1.0f;
  std::vector<int32_t> b_zp;                            // per quantization group
  std::vector<float> multiplier, act_w_scale, b_scale;  // per quantization group
  std::vector<int32_t> col_offsets, bias_i32;           // per column of C
  std::vector<float> bias_f32, bias_out_f32;            // per column of C
  std::vector<uint8_t> want_u8;                         // M x Ntot
  std::vector<float> want_f32;                          // M x Ntot

  int num_q() const {
    return c.gran == Gran::TENSOR ? 1 : c.gran == Gran::GROUP ? c.qgroups : Ntot;
  }
  int q_of(int j) const {
    return c.gran == Gran::TENSOR ? 0 : c.gran == Gran::GROUP ? j / (Ntot / c.qgroups) : j;
  }
  const int32_t* col_offsets_arg() const {
    return c.null_offsets && a_zp == 0 ? nullptr : col_offsets.data();
  }
  bool row_offsets_null() const { return c.null_offsets && c.b_sym; }
};

// Full-range random bytes (uint8 0..255 or int8 -128..127), four per draw of the engine.
template <class T>
void fill_random_bytes(std::vector<T>& v, std::mt19937& rng) {
  static_assert(sizeof(T) == 1);
  for (size_t i = 0; i < v.size(); i += 4) {
    const uint32_t r = rng();
    for (size_t b = 0; b < 4 && i + b < v.size(); ++b)
      v[i + b] = static_cast<T>(uint8_t(r >> (8 * b)));
  }
}

// C (M x N, ldc) = A (M x K, lda) * B (K x N, ldb) with ref::matmul_u8s8s32, called one
// column at a time on a transposed copy of B: the reference then reads both operands
// contiguously, which makes the large inference shapes faster to check.
inline void reference_product(int M, int N, int K, const uint8_t* A, int lda, const int8_t* B,
                              int ldb, int32_t* C, int ldc) {
  std::vector<int8_t> Bt(size_t(N) * K);
  ref::transpose(N, K, B, ldb, Bt.data(), K);
  for (int j = 0; j < N; ++j)
    ref::matmul_u8s8s32(M, 1, K, A, lda, Bt.data() + size_t(j) * K, 1, C + j, ldc);
}

inline std::unique_ptr<Problem> build_problem(const Config& c) {
  auto p = std::make_unique<Problem>();
  p->c = c;
  std::mt19937 rng(c.seed);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto unf = [&](float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); };
  const int M = c.M, N = c.N, Kg = c.K, G = c.G;
  const int Ktot = G * Kg, Ntot = G * N;
  p->Ktot = Ktot;
  p->Ntot = Ntot;
  p->ldc = Ntot + c.ldc_pad;

  // Logical A (M x Ktot) and B (Ktot x N, groups stacked along K), row-major.
  std::vector<uint8_t> A(size_t(M) * Ktot);
  std::vector<int8_t> B(size_t(Ktot) * N);
  if (c.data == Data::random || c.data == Data::a7bit) {
    fill_random_bytes(A, rng);
    fill_random_bytes(B, rng);
    if (c.data == Data::a7bit)
      for (uint8_t& a : A) a &= 127;
  } else {
    std::fill(A.begin(), A.end(), uint8_t(255));
    std::fill(B.begin(), B.end(), int8_t(c.data == Data::a255_bmin ? -128 : 127));
  }

  // Source layouts, with random bytes in the padding (never to be read).
  if (c.atrans == matrix_op_t::NoTranspose) {
    p->lda = Ktot + c.lda_pad;
    p->A.resize(size_t(M) * p->lda);
    fill_random_bytes(p->A, rng);
    for (int i = 0; i < M; ++i) std::copy_n(&A[size_t(i) * Ktot], Ktot, &p->A[size_t(i) * p->lda]);
  } else {
    p->lda = M + c.lda_pad;
    p->A.resize(size_t(Ktot) * p->lda);
    fill_random_bytes(p->A, rng);
    ref::transpose(Ktot, M, A.data(), Ktot, p->A.data(), p->lda);
  }
  if (c.btrans == matrix_op_t::NoTranspose) {
    p->ldb = N + c.ldb_pad;
    p->B.resize(size_t(Ktot) * p->ldb);
    fill_random_bytes(p->B, rng);
    for (int k = 0; k < Ktot; ++k) std::copy_n(&B[size_t(k) * N], N, &p->B[size_t(k) * p->ldb]);
  } else {
    // G consecutive N x Kg transposes.
    p->ldb = Kg + c.ldb_pad;
    p->B.resize(size_t(G) * N * p->ldb);
    fill_random_bytes(p->B, rng);
    for (int g = 0; g < G; ++g)
      ref::transpose(N, Kg, B.data() + size_t(g) * Kg * N, N, p->B.data() + size_t(g) * N * p->ldb,
                     p->ldb);
  }

  // Quantization parameters.
  p->a_zp = c.a_zp ? uni(1, 255) : 0;
  p->c_zp = uni(0, 255);
  p->a_scale = unf(0.001f, 0.05f);
  for (int q = 0; q < p->num_q(); ++q) {
    int zp = 0;
    while (!c.b_sym && zp == 0) zp = uni(-128, 127);
    p->b_zp.push_back(zp);
    p->act_w_scale.push_back(unf(0.0005f, 0.05f));
    p->b_scale.push_back(unf(0.001f, 0.05f));
  }

  // Reference int32 product, row offsets per group and col_offsets (zero point folded in).
  std::vector<int32_t> C32(size_t(M) * Ntot);
  std::vector<int32_t> row_offsets(size_t(G) * M);
  std::vector<int32_t> zp_per_col(Ntot);
  for (int j = 0; j < Ntot; ++j) zp_per_col[j] = p->b_zp[p->q_of(j)];
  p->col_offsets.resize(Ntot);
  for (int g = 0; g < G; ++g) {
    const uint8_t* Ag = A.data() + g * Kg;
    const int8_t* Bg = B.data() + size_t(g) * Kg * N;
    reference_product(M, N, Kg, Ag, Ktot, Bg, N, C32.data() + g * N, Ntot);
    ref::row_offsets_u8(M, Kg, Ag, Ktot, row_offsets.data() + size_t(g) * M);
    ref::col_offsets_with_zero_pt_s8(Kg, N, Bg, N, zp_per_col.data() + g * N,
                                     p->col_offsets.data() + g * N, 1);
  }
  auto quant = [&](int g) {
    ref::QuantParams qp;
    qp.granularity = c.gran;
    qp.groups = c.qgroups;
    qp.nCol = uint32_t(Ntot);
    qp.Aq_zero_point = p->a_zp;
    qp.Bq_zero_point = p->b_zp.data();
    qp.row_offsets = row_offsets.data() + size_t(g) * M;
    qp.col_offsets = p->col_offsets.data();
    return qp;
  };

  // Scale the multipliers and biases to the spread of the corrected sums, so that the
  // outputs cover [0, 255] with some saturation at both ends.
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (int g = 0; g < G; ++g) {
    const ref::QuantParams qp = quant(g);
    for (int i = 0; i < M; ++i)
      for (int j = g * N; j < (g + 1) * N; ++j) {
        const int64_t raw = ref::corrected_raw(qp, C32[size_t(i) * Ntot + j], i, j);
        lo = std::min(lo, raw);
        hi = std::max(hi, raw);
      }
  }
  const double spread = double(hi > lo ? hi - lo : std::max(std::abs(lo), std::abs(hi))) + 1.0;
  for (int q = 0; q < p->num_q(); ++q)
    p->multiplier.push_back(unf(0.3f, 1.2f) * float(255.0 / spread));
  for (int j = 0; j < Ntot; ++j) {
    const int half = int(std::min(spread / 2, 1e9));
    p->bias_i32.push_back(uni(-half, half));
    p->bias_f32.push_back(unf(-0.5f, 0.5f) * float(spread) * p->act_w_scale[p->q_of(j)]);
    p->bias_out_f32.push_back(unf(-50.0f, 50.0f));
  }

  // Expected outputs, one group (one row-offset vector) at a time.
  p->want_u8.assign(size_t(M) * Ntot, 0);
  p->want_f32.assign(size_t(M) * Ntot, 0.0f);
  for (int g = 0; g < G; ++g) {
    const ref::QuantParams qp = quant(g);
    const block_type_t block{0, M, g * N, N};
    const int32_t* in = C32.data() + g * N;
    if (c.float_bias_type) {
      ref::requantize_u8<float>(p->want_u8.data(), in, block, Ntot, Ntot, qp, p->multiplier.data(),
                                p->c_zp, c.bias == Bias::f32 ? p->bias_f32.data() : nullptr,
                                p->act_w_scale.data(), c.relu);
    } else {
      ref::requantize_u8<int32_t>(
          p->want_u8.data(), in, block, Ntot, Ntot, qp, p->multiplier.data(), p->c_zp,
          c.bias == Bias::i32 ? p->bias_i32.data() : nullptr, nullptr, c.relu);
    }
    ref::requantize_f32(p->want_f32.data(), in, block, Ntot, Ntot, qp, p->a_scale,
                        p->b_scale.data(), c.bias == Bias::none ? nullptr : p->bias_out_f32.data(),
                        c.relu);
  }
  return p;
}

// Runs fn(thread_id) for thread_id = 0 .. T-1, one after another or on std::threads.
// An exception in a thread is reported as the returned message.
template <class Fn>
std::string run_threads(int T, bool concurrent, const Fn& fn) {
  std::vector<std::string> errors(T);
  auto body = [&](int t) {
    try {
      fn(t);
    } catch (const std::exception& e) {
      errors[t] = std::string("thread ") + std::to_string(t) + " threw: " + e.what();
    }
  };
  if (concurrent) {
    std::vector<std::thread> pool;
    for (int t = 0; t < T; ++t) pool.emplace_back(body, t);
    for (auto& th : pool) th.join();
  } else {
    for (int t = 0; t < T; ++t) body(t);
  }
  for (const auto& e : errors)
    if (!e.empty()) return e;
  return {};
}

// One thread's share of the uint8 pipeline, written as an FBGEMM client writes it: its
// own A packer with its own row-offset buffer, its own output op.
template <bool RELU, Gran GR, class BiasT>
void u8_thread(const Problem& p, PackBMatrix<int8_t>& packB, uint8_t* C, int32_t* C_buffer,
               int thread_id, int num_threads) {
  const Config& c = p.c;
  std::vector<int32_t> row_offset_buf(PackAWithRowOffset<uint8_t>::rowOffsetBufferSize());
  PackAWithRowOffset<uint8_t> packA(c.atrans, uint32_t(c.M), uint32_t(p.Ktot), p.A.data(),
                                    uint32_t(p.lda), nullptr, c.G, row_offset_buf.data());
  const BiasT* bias = nullptr;
  if constexpr (std::is_same_v<BiasT, float>) {
    if (c.bias == Bias::f32) bias = p.bias_f32.data();
  } else {
    if (c.bias == Bias::i32) bias = p.bias_i32.data();
  }
  DoNothing<> done;
  ReQuantizeOutput<RELU, GR, BiasT> op(
      done, p.multiplier.data(), p.c_zp, p.a_zp, p.b_zp.data(),
      p.row_offsets_null() ? nullptr : packA.getRowOffsetBuffer(), p.col_offsets_arg(), bias,
      uint32_t(p.Ntot), c.qgroups, std::is_same_v<BiasT, float> ? p.act_w_scale.data() : nullptr);
  fbgemmPacked(packA, packB, C, C_buffer, uint32_t(p.ldc), op, thread_id, num_threads);
}

template <bool RELU, Gran GR>
void f32_thread(const Problem& p, PackBMatrix<int8_t>& packB, float* C, int thread_id,
                int num_threads) {
  const Config& c = p.c;
  std::vector<int32_t> row_offset_buf(PackAWithRowOffset<uint8_t>::rowOffsetBufferSize());
  PackAWithRowOffset<uint8_t> packA(c.atrans, uint32_t(c.M), uint32_t(p.Ktot), p.A.data(),
                                    uint32_t(p.lda), nullptr, c.G, row_offset_buf.data());
  DoNothing<float, float> done;
  ReQuantizeForFloat<RELU, GR> op(
      done, p.a_scale, p.b_scale.data(), p.a_zp, p.b_zp.data(),
      p.row_offsets_null() ? nullptr : packA.getRowOffsetBuffer(), p.col_offsets_arg(),
      c.bias == Bias::none ? nullptr : p.bias_out_f32.data(), uint32_t(p.Ntot), c.qgroups);
  fbgemmPacked(packA, packB, C, reinterpret_cast<int32_t*>(C), uint32_t(p.ldc), op, thread_id,
               num_threads);
}

// Calls fn.template operator()<RELU, GRAN, BiasT>() for the run-time choices.
template <bool R, Gran GR, class Fn>
void with_bias_type(bool float_bias, const Fn& fn) {
  if (float_bias)
    fn.template operator()<R, GR, float>();
  else
    fn.template operator()<R, GR, int32_t>();
}
template <bool R, class Fn>
void with_gran(Gran g, bool float_bias, const Fn& fn) {
  switch (g) {
    case Gran::TENSOR:
      with_bias_type<R, Gran::TENSOR>(float_bias, fn);
      break;
    case Gran::GROUP:
      with_bias_type<R, Gran::GROUP>(float_bias, fn);
      break;
    case Gran::OUT_CHANNEL:
      with_bias_type<R, Gran::OUT_CHANNEL>(float_bias, fn);
      break;
  }
}
template <class Fn>
void with_op_types(const Config& c, const Fn& fn) {
  if (c.relu)
    with_gran<true>(c.gran, c.float_bias_type, fn);
  else
    with_gran<false>(c.gran, c.float_bias_type, fn);
}

// Compares an M x ldc output with the expected M x Ntot values; the padding columns
// must keep the sentinel. Returns an empty string when everything matches.
template <class T, class Eq>
std::string compare_output(const Problem& p, const std::vector<T>& got, const std::vector<T>& want,
                           const T& sentinel, const Eq& eq) {
  int mismatches = 0;
  std::ostringstream first;
  for (int i = 0; i < p.c.M; ++i) {
    for (int j = 0; j < p.ldc; ++j) {
      const T g = got[size_t(i) * p.ldc + j];
      const T w = j < p.Ntot ? want[size_t(i) * p.Ntot + j] : sentinel;
      if (!eq(g, w)) {
        if (mismatches++ == 0) {
          first << "first at (" << i << ", " << j << ")" << (j >= p.Ntot ? " [padding]" : "")
                << ": expected " << +w << ", got " << +g;
        }
      }
    }
  }
  if (mismatches == 0) return {};
  return std::to_string(mismatches) + " mismatches, " + first.str();
}

inline bool same_bits(float a, float b) {
  return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b);
}

// Runs the problem on the active ISA for every thread count of its config (only the first
// one when `one_run`). Every run must match the reference; so they all match each other.
inline ::testing::AssertionResult run_problem(const Problem& p, bool one_run) {
  const Config& c = p.c;
  PackBMatrix<int8_t> packB(c.btrans, p.Ktot, c.N, p.B.data(), p.ldb, nullptr, c.G);
  const size_t out_elems = size_t(c.M) * p.ldc;
  const float sentinel_f32 = std::bit_cast<float>(kSentinelF32Bits);
  auto fail = [&](const std::string& what, int T, bool concurrent, const std::string& detail) {
    return ::testing::AssertionFailure()
           << instSetName(fbgemmInstructionSet()) << " " << what << " T=" << T
           << (concurrent ? " (std::thread)" : " (sequential)") << ": " << detail << "\n  "
           << describe(c);
  };

  std::vector<std::pair<int, bool>> runs, float_runs;
  for (int T : c.threads) runs.emplace_back(T, false);
  for (int T : c.concurrent) runs.emplace_back(T, true);
  for (int T : c.float_threads.empty() ? c.threads : c.float_threads)
    float_runs.emplace_back(T, false);
  if (one_run) {
    runs.resize(1);
    float_runs.resize(1);
  }
  std::vector<uint8_t> first_u8;
  for (const auto& run : runs) {
    const int T = run.first;  // plain variables: lambdas below capture them
    const bool concurrent = run.second;
    std::vector<uint8_t> C(out_elems, kSentinelU8);
    std::vector<int32_t> C_buffer(out_elems, -1);
    std::string err;
    with_op_types(c, [&]<bool R, Gran GR, class BiasT>() {
      err = run_threads(T, concurrent, [&](int t) {
        u8_thread<R, GR, BiasT>(p, packB, C.data(), C_buffer.data(), t, T);
      });
    });
    if (!err.empty()) return fail("ReQuantizeOutput", T, concurrent, err);
    const std::string diff =
        compare_output(p, C, p.want_u8, kSentinelU8, [](uint8_t a, uint8_t b) { return a == b; });
    if (!diff.empty()) return fail("ReQuantizeOutput", T, concurrent, diff);
    if (first_u8.empty())
      first_u8 = C;
    else if (C != first_u8)
      return fail("ReQuantizeOutput", T, concurrent, "differs from the first thread count");
  }
  if (!c.float_out) return ::testing::AssertionSuccess();
  for (const auto& run : float_runs) {
    const int T = run.first;
    const bool concurrent = run.second;
    std::vector<float> C(out_elems, sentinel_f32);
    std::string err;
    with_op_types(c, [&]<bool R, Gran GR, class>() {
      err = run_threads(T, concurrent, [&](int t) { f32_thread<R, GR>(p, packB, C.data(), t, T); });
    });
    if (!err.empty()) return fail("ReQuantizeForFloat", T, concurrent, err);
    const std::string diff = compare_output(p, C, p.want_f32, sentinel_f32, same_bits);
    if (!diff.empty()) return fail("ReQuantizeForFloat", T, concurrent, diff);
  }
  return ::testing::AssertionSuccess();
}

}  // namespace quire::test
