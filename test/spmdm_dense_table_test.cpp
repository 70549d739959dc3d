// Every path's SparseDenseKernels (SpmdmKernels::dense: the loops behind
// fbgemmSparseDenseInt8MM, SparseDenseMM and trRequantizeOpt), called directly through the
// table and compared bit for bit with plain loops: requant_row with requant_one element by
// element; fp32_mm with scalar fmas in CSR order (the order SparseDenseMM specifies, which
// the portable loop and the vector strips both keep); int8_mm on a BCSRMatrix<>-packed
// random matrix with ref::matmul_u8s8s32 and requant_one, its rows split between two calls
// as two threads would. Padding columns and bytes past a row must keep their values. A path
// this CPU lacks is skipped naming the missing features.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../src/sparse/sparse_dense_kernels.h"
#include "../src/sparse/spmdm_table.h"
#include "quire/Bcsr.h"
#include "quire/ref/Reference.h"
#include "table_paths.h"
#include "test_util.h"

namespace quire::test {
namespace {

class SpmdmDenseTable : public PathTest {
 protected:
  const detail::SparseDenseKernels* table() const {
    const detail::IsaRecord* r = record();
    return r != nullptr ? r->spmdm->dense : nullptr;
  }
};

// Compares the bits of every element (floats too: fp32_mm must match fma for fma).
template <class T>
void expect_same(const std::vector<T>& got, const std::vector<T>& want, size_t ld,
                 const std::string& what) {
  int mismatches = 0;
  for (size_t e = 0; e < got.size() && mismatches < 5; ++e) {
    if (std::memcmp(&got[e], &want[e], sizeof(T)) == 0) continue;
    ++mismatches;
    ADD_FAILURE() << what << ": row " << e / ld << " column " << e % ld << ": got " << +got[e]
                  << ", want " << +want[e];
  }
}

// ---- requant_row ------------------------------------------------------------------------

// One in three inputs an int32 edge, one anywhere in int32, one small: with row_off and
// col_off * wzp the subtraction wraps, saturates at both ends and lands mid-range.
std::vector<int32_t> requant_inputs(int n, uint32_t seed) {
  constexpr int32_t kEdges[] = {INT32_MIN, INT32_MAX, INT32_MIN + 1, INT32_MAX - 1, 0, -1, 1};
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX), small(-2000, 2000);
  std::vector<int32_t> in(static_cast<size_t>(n));
  for (int j = 0; j < n; ++j)
    in[j] = j % 3 == 0 ? kEdges[(j / 3 + seed) % 7] : j % 3 == 1 ? any(gen) : small(gen);
  return in;
}

TEST_P(SpmdmDenseTable, RequantRow) {
  const detail::SparseDenseKernels* t = table();
  if (t == nullptr) GTEST_SKIP() << "the CPU lacks " << missing();
  constexpr int kN[] = {0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 65};
  // 0.5: halves of small x tie (to even); 1e-7: all of int32 maps into the output range.
  constexpr float kMult[] = {0.37f, 1e-7f, 0.5f, 3.0f};
  uint32_t seed = 1;
  for (int n : kN)
    for (int variant = 0; variant < 8; ++variant)  // col_off, bias, ReLU
      for (float mult : kMult) {
        std::mt19937 gen(seed);
        std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX), small(-1000, 1000);
        std::uniform_int_distribution<int32_t> zp(0, 255);
        const std::vector<int32_t> in = requant_inputs(n, seed);
        std::vector<int32_t> col_off = random_vector<int32_t>(size_t(n) + 1, -3000, 3000, seed);
        col_off[0] = INT32_MIN;
        detail::RowQ q{};
        q.row_off = seed % 3 == 0 ? INT32_MIN : seed % 3 == 1 ? any(gen) : small(gen);
        q.col_off = variant & 1 ? col_off.data() : nullptr;
        q.wzp = variant & 1 ? (seed % 2 ? any(gen) : small(gen)) : 0;
        q.bias = variant & 2 ? std::uniform_real_distribution<float>(-300.0f, 300.0f)(gen) : 0.0f;
        q.mult = mult;
        q.zp = zp(gen);
        q.lo = variant & 4 ? q.zp : 0;
        std::vector<uint8_t> got(size_t(n) + 4, 0xA5), want = got;  // bytes past n stay
        for (int j = 0; j < n; ++j) want[j] = detail::requant_one(in[j], j, q);
        t->requant_row(in.data(), got.data(), n, q);
        std::ostringstream what;
        what << "n " << n << ", variant " << variant << ", mult " << mult << ", seed " << seed;
        expect_same(got, want, got.size(), what.str());
        ++seed;
      }
}

// ---- fp32_mm ----------------------------------------------------------------------------

TEST_P(SpmdmDenseTable, Fp32MM) {
  const detail::SparseDenseKernels* t = table();
  if (t == nullptr) GTEST_SKIP() << "the CPU lacks " << missing();
  constexpr int kSizes[] = {1, 3, 17, 33, 65};
  uint32_t seed = 1;
  for (int M : kSizes)
    for (int N : kSizes)
      for (bool accum : {false, true}) {
        const int s = static_cast<int>(seed);
        const int K = 2 + s % 40;  // rows of B
        const int ldb = N + 1 + s % 3, ldc = N + 1 + s % 2;  // padded
        std::mt19937 gen(seed);
        std::uniform_real_distribution<float> real(-2.0f, 2.0f);
        std::uniform_int_distribution<int> column(0, K - 1), count(0, K / 2 + 2);
        std::vector<int> row_ptr{0}, col_idx;
        std::vector<float> values;
        for (int i = 0; i < M; ++i) {
          const int nonzeros = i % 4 == 1 ? 0 : count(gen);  // empty rows included
          for (int p = 0; p < nonzeros; ++p) {  // columns in any order, repeats allowed
            col_idx.push_back(column(gen));
            values.push_back(real(gen));
          }
          row_ptr.push_back(static_cast<int>(col_idx.size()));
        }
        std::vector<float> B(size_t(K) * ldb), C0(size_t(M) * ldc);
        for (float& b : B) b = real(gen);
        for (float& c : C0) c = real(gen);
        std::vector<float> got = C0, want = C0;
        for (int i = 0; i < M; ++i)
          for (int j = 0; j < N; ++j) {
            float c = accum ? C0[size_t(i) * ldc + j] : 0.0f;
            for (int p = row_ptr[i]; p < row_ptr[i + 1]; ++p)
              c = std::fma(values[p], B[size_t(col_idx[p]) * ldb + j], c);
            want[size_t(i) * ldc + j] = c;
          }
        const detail::Fp32MMArgs args{M,        N,   row_ptr.data(), col_idx.data(), values.data(),
                                      B.data(), ldb, got.data(),     ldc,            accum};
        t->fp32_mm(args);
        expect_same(got, want, size_t(ldc),
                    "C of M " + std::to_string(M) + ", N " + std::to_string(N) + ", K " +
                        std::to_string(K) + ", accum " + std::to_string(accum));
        ++seed;
      }
}

// ---- int8_mm ----------------------------------------------------------------------------

struct Int8Case {
  int M, N, K;
  bool accum;
  int variant;  // bits 0, 1, 3, 4, 5 pick the flags (bit 2 is accum's); it seeds the data
};

// W (M x K, int8): about half of the four-column blocks zero, a quarter of the other
// entries zero, every fifth row empty.
std::vector<int8_t> sparse_weights(int M, int K, std::mt19937& gen) {
  std::vector<int8_t> W(size_t(M) * K + 1, 0);  // + 1: a non-null pointer when empty
  std::uniform_int_distribution<int> value(-128, 127), coin(0, 3);
  for (int i = 0; i < M; ++i) {
    if (i % 5 == 4) continue;
    for (int k0 = 0; k0 < K; k0 += 4) {
      if (coin(gen) < 2) continue;
      for (int k = k0; k < std::min(k0 + 4, K); ++k)
        W[size_t(i) * K + k] = static_cast<int8_t>(coin(gen) == 0 ? 0 : value(gen));
    }
  }
  return W;
}

void check_int8(const detail::SparseDenseKernels& t, const Int8Case& c) {
  const int M = c.M, N = c.N, K = c.K, v = c.variant;
  std::mt19937 gen(100 + v);
  const std::vector<int8_t> W = sparse_weights(M, K, gen);
  BCSRMatrix<> bcsr(M, K);
  bcsr.pack(W.data());
  const int ldb = N + v % 3, ldc = N + 1 + v % 2;
  const std::vector<uint8_t> B = random_vector<uint8_t>(size_t(K) * ldb + 1, 0, 255, 200 + v);
  // Every fourth case accumulates onto all of int32 (wrapping), the others onto values
  // that leave the requantized outputs unsaturated.
  const std::vector<int32_t> C0 =
      v % 4 == 0 ? random_vector<int32_t>(size_t(M) * ldc, INT32_MIN, INT32_MAX, 300 + v)
                 : random_vector<int32_t>(size_t(M) * ldc, -100000, 100000, 300 + v);
  const std::vector<uint8_t> C0_u8 = random_vector<uint8_t>(size_t(M) * ldc, 0, 255, 400 + v);

  // fbgemmSparseDenseInt8MM always resolves the weights as symmetric; the table also takes
  // asymmetric ones (bit 5), whose column offsets each column strip must read at its own
  // columns.
  const detail::TrRequantizeFlags flags{(v & 1) != 0, (v & 2) != 0, (v & 32) == 0,
                                        (v & 8) != 0, (v & 16) != 0};
  std::uniform_real_distribution<float> unit(0.5f, 1.5f), offset(-50000.0f, 50000.0f);
  std::vector<float> scale(static_cast<size_t>(M)), bias(static_cast<size_t>(M));
  for (int i = 0; i < M; ++i) {
    scale[i] = unit(gen) / (200.0f * (std::sqrt(static_cast<float>(K)) + 1.0f));
    bias[i] = scale[i] * offset(gen);
  }
  std::vector<int32_t> weight_zp(size_t(M), 0);
  if (!flags.weight_symmetric)
    for (int i = 0; i < M; ++i) weight_zp[i] = i % 5 - 2 + (i % 5 == 2);  // never 0
  const std::vector<int32_t> col_offsets =
      random_vector<int32_t>(size_t(N) + 1, -3000, 3000, 500 + v);
  const trRequantizationParams_t r{flags.act_symmetric ? 0 : 1 + v * 37 % 255,
                                   weight_zp.data(),
                                   v * 53 % 256,
                                   0.75f,
                                   bcsr.row_offsets.data(),
                                   flags.weight_symmetric ? nullptr : col_offsets.data(),
                                   flags.has_bias ? bias.data() : nullptr,
                                   scale.data()};

  // C^T = B^T W^T through the u8 x s8 reference.
  std::vector<uint8_t> Bt(size_t(N) * K + 1);
  std::vector<int8_t> Wt(size_t(K) * M + 1);
  std::vector<int32_t> Ct(size_t(N) * M);
  ref::transpose(N, K, B.data(), ldb, Bt.data(), K);
  ref::transpose(K, M, W.data(), K, Wt.data(), M);
  ref::matmul_u8s8s32(N, M, K, Bt.data(), K, Wt.data(), M, Ct.data(), M);
  std::vector<int32_t> want = C0;
  std::vector<uint8_t> want_u8 = C0_u8;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      const size_t e = size_t(i) * ldc + j;
      const auto p = static_cast<uint32_t>(Ct[size_t(j) * M + i]);
      want[e] = static_cast<int32_t>(c.accum ? static_cast<uint32_t>(C0[e]) + p : p);
      want_u8[e] = detail::requant_one(want[e], j, detail::row_q(r, flags, i));
    }

  const std::string what = "M " + std::to_string(M) + ", N " + std::to_string(N) + ", K " +
                           std::to_string(K) + ", accum " + std::to_string(c.accum) +
                           ", variant " + std::to_string(v);
  std::vector<int32_t> got = C0;
  std::vector<uint8_t> got_u8 = C0_u8;
  const auto run = [&](int m0, int m1) {
    if (m0 >= m1) return;  // as the public entry, which calls no loop for an empty range
    const detail::Int8MMArgs args{M, N, K, m0, m1, bcsr.rowBPtr.data(), bcsr.colBIdx.data(),
                                  bcsr.values.data(), B.data(), ldb, got.data(), got_u8.data(),
                                  ldc, c.accum, &r, flags};
    t.int8_mm(args);
  };
  const int mid = M / 2;
  run(0, mid);
  // The second thread's rows are untouched by the first.
  const auto rest = static_cast<std::ptrdiff_t>(size_t(mid) * ldc);
  EXPECT_TRUE(std::equal(got.begin() + rest, got.end(), C0.begin() + rest)) << what;
  EXPECT_TRUE(std::equal(got_u8.begin() + rest, got_u8.end(), C0_u8.begin() + rest)) << what;
  run(mid, M);
  expect_same(got, want, size_t(ldc), "C_i32 of " + what);
  expect_same(got_u8, want_u8, size_t(ldc), "C_u8 of " + what);
}

TEST_P(SpmdmDenseTable, Int8MM) {
  const detail::SparseDenseKernels* t = table();
  if (t == nullptr) GTEST_SKIP() << "the CPU lacks " << missing();
  // Odd sizes around the strips' cuts; K past one 4000-column tile (4001, 4003, 4005) and
  // exactly one (4000); K = 0 leaves only the requantization.
  constexpr int kShapes[][3] = {{1, 1, 1},     {3, 17, 3},     {17, 33, 17},   {33, 65, 65},
                                {65, 129, 300}, {65, 3, 33},   {3, 65, 8},     {17, 1, 0},
                                {9, 33, 4005},  {17, 65, 4003}, {1, 129, 4001}, {33, 17, 4000},
                                {2, 64, 64}};
  int variant = 0;
  for (const auto& s : kShapes)
    for (bool accum : {false, true})
      for (int rep = 0; rep < 4; ++rep) check_int8(*t, {s[0], s[1], s[2], accum, variant++});
}

INSTANTIATE_TEST_SUITE_P(AllPaths, SpmdmDenseTable, ::testing::ValuesIn(every_path()), path_name);

}  // namespace
}  // namespace quire::test
