// PackedGemmMatrixB's FBGEMM surface (fp16, bf16, fp32): the blocked layout (addr against FBGEMM's formula),
// FBGEMM's unpackFromSrc / packFromSrc round trip (its FP16Test flow), the two
// deserialization constructors and Marian-style field writes, weights stored with
// FBGEMM's AVX2 column block (16), geometry checks, and client code templated on
// PackedGemmMatrixB. Results are compared bit for bit with the freshly packed matrix on
// every instruction set and several thread counts.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "quire/compat/fbgemm/FbgemmFP16.h"
#include "quire/compat/fbgemm/FbgemmFP32.h"
#include "quire/compat/fbgemm/FbgemmFPCommon.h"
#include "quire/compat/fbgemm/FbgemmPackMatrixB.h"
#include "test_util.h"

namespace quire::test {
namespace {

#define W(...) ({__VA_ARGS__})

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

struct Shape {
  int m, k, n, brow;
  matrix_op_t transb;
};
const Shape kShapes[] = {{1, 1, 1, 512, matrix_op_t::NoTranspose},
                         {3, 17, 63, 8, matrix_op_t::Transpose},
                         {17, 65, 33, 16, matrix_op_t::NoTranspose},
                         {63, 130, 65, 64, matrix_op_t::Transpose},
                         {5, 1025, 97, 512, matrix_op_t::NoTranspose}};

// Generic client code, as written against FBGEMM: takes any PackedGemmMatrixB<T>.
template <typename T>
std::vector<float> gemm(const fbgemm::PackedGemmMatrixB<T>& Bp, int m, const std::vector<float>& A,
                        int threads) {
  std::vector<float> C(size_t(m) * Bp.numCols());
  for (int t = 0; t < threads; ++t)
    fbgemm::cblas_gemm_compute(fbgemm::matrix_op_t::NoTranspose, m, A.data(), Bp, 0.0f, C.data(), t,
                               threads);
  return C;
}

// Every instruction set and 1..3 threads give `want`.
template <typename T>
void expect_same_everywhere(const PackedGemmMatrixB<T>& Bp, int m, const std::vector<float>& A,
                            const std::vector<float>& want, const char* what) {
  for (const IsaCase& c : all_isas()) {
    if (skip_unsupported(c)) continue;
    ScopedIsa isa(c.isa);
    for (int threads = 1; threads <= 3; ++threads) {
      const std::vector<float> got = gemm(Bp, m, A, threads);
      ASSERT_EQ(std::memcmp(got.data(), want.data(), sizeof(float) * want.size()), 0)
          << what << " isa=" << instSetName(c.isa) << " threads=" << threads;
    }
  }
}

// The stored bits of an element, for exact comparison.
uint32_t bits(float16 h) { return h.val; }
uint32_t bits(bfloat16 h) { return h.val; }
uint32_t bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// FBGEMM's address formula, written out, with bf16 rows interleaved in pairs.
template <typename T>
uint64_t fbgemm_addr(const PackedGemmMatrixB<T>& p, int r, int c) {
  const int step = std::is_same_v<T, bfloat16> ? 2 : 1;
  const int brow = p.blockRowSize(), bcol = p.blockColSize(), rb = r / brow, in = r % brow;
  const int rows = rb == p.numBrow() - 1 ? (p.lastBrow() + step - 1) / step * step : brow;
  return uint64_t(rb) * brow * p.numBcol() * bcol + uint64_t(c / bcol) * rows * bcol +
         uint64_t(in / step) * step * bcol + uint64_t(c % bcol) * step + in % step;
}

template <typename T>
void check_surface() {
  uint32_t seed = 1;
  for (const Shape& s : kShapes) {
    SCOPED_TRACE(::testing::Message() << "m=" << s.m << " k=" << s.k << " n=" << s.n << " brow=" << s.brow);
    const std::vector<float> B = random_floats(size_t(s.k) * s.n, seed++);
    const std::vector<float> A = random_floats(size_t(s.m) * s.k, seed++);
    PackedGemmMatrixB<T> Bp(s.transb, s.k, s.n, 1.5f, B.data(), s.brow);
    const std::vector<float> want = gemm(Bp, s.m, A, 1);

    // Layout: FBGEMM's formula, and operator() reads it.
    for (int r = 0; r < s.k; ++r)
      for (int c = 0; c < s.n; ++c) {
        ASSERT_EQ(Bp.addr(r, c), fbgemm_addr(Bp, r, c));
        ASSERT_LT(Bp.addr(r, c), uint64_t(Bp.matSize()));
      }
    EXPECT_EQ(Bp.numBrow(), (s.k + Bp.blockRowSize() - 1) / Bp.blockRowSize());
    EXPECT_EQ(uint64_t(Bp.matSize()), uint64_t(Bp.blockRowSize()) * Bp.numBrow() * 32 * Bp.numBcol());

    // FBGEMM's FP16Test flow: copy the packed data, unpack it in place, pack it back.
    std::vector<T> tmp(Bp.matSize());
    std::memcpy(tmp.data(), Bp.pmat(), sizeof(T) * tmp.size());
    Bp.unpackFromSrc(s.transb, tmp.data());
    EXPECT_FALSE(Bp.packed());
    std::vector<T> plain(size_t(s.k) * s.n);
    std::memcpy(plain.data(), Bp.pmat(), sizeof(T) * plain.size());
    for (int r = 0; r < s.k; ++r)
      for (int c = 0; c < s.n; ++c) {
        const size_t i = s.transb == matrix_op_t::Transpose ? size_t(c) * s.k + r : size_t(r) * s.n + c;
        ASSERT_EQ(bits(plain[i]), bits(tmp[Bp.addr(r, c)]));
      }
    Bp.packFromSrc(s.transb, plain.data());
    EXPECT_TRUE(Bp.packed());
    expect_same_everywhere(Bp, s.m, A, want, "repacked");

    // Deserialization: geometry, then the packed bytes into pmat().
    PackedGemmMatrixB<T> restored(Bp.numRows(), Bp.numCols(), Bp.blockRowSize(), Bp.lastBrow(),
                                  Bp.blockColSize(), Bp.numBrow(), Bp.numBcol(), Bp.size_);
    std::memcpy(restored.pmat(), Bp.pmat(), sizeof(T) * Bp.matSize());
    expect_same_everywhere(restored, s.m, A, want, "restored");

    // A view of caller-owned packed weights (not freed by the object).
    std::vector<T> owned(Bp.pmat(), Bp.pmat() + Bp.matSize());
    {
      const PackedGemmMatrixB<T> view(Bp.numRows(), Bp.numCols(), Bp.blockRowSize(), Bp.lastBrow(),
                                      Bp.blockColSize(), Bp.numBrow(), Bp.numBcol(), owned.size(),
                                      Bp.kernelNumColBlocks(), owned.data());
      EXPECT_EQ(view.pmat(), owned.data());
      expect_same_everywhere(view, s.m, A, want, "view");
    }

    // Marian: a placeholder whose public fields and pmat_ are overwritten per call.
    PackedGemmMatrixB<T> placeholder(1, 1, 1 * (std::is_same_v<T, bfloat16> ? 2 : 1), 1, 1, 1, 1, 1);
    T* keep = placeholder.pmat_;
    placeholder.nrow_ = Bp.nrow_, placeholder.ncol_ = Bp.ncol_, placeholder.brow_ = Bp.brow_;
    placeholder.bcol_ = Bp.bcol_, placeholder.last_brow_ = Bp.last_brow_;
    placeholder.nbrow_ = Bp.nbrow_, placeholder.nbcol_ = Bp.nbcol_, placeholder.size_ = Bp.size_;
    placeholder.pmat_ = owned.data();
    placeholder.pmat_passed_in = true;  // so that a failure's unwinding does not free it
    expect_same_everywhere(placeholder, s.m, A, want, "marian");
    placeholder.pmat_ = keep;
    placeholder.pmat_passed_in = false;

    // FBGEMM's AVX2 layout (bcol = 16): packFromSrc fills it, compute re-blocks it.
    const int nbcol16 = (s.n + 15) / 16;
    PackedGemmMatrixB<T> avx2(s.k, s.n, Bp.blockRowSize(), Bp.lastBrow(), 16, Bp.numBrow(), nbcol16, 0);
    avx2.packFromSrc(s.transb, 1.5f, B.data());
    for (int r = 0; r < s.k; ++r)
      for (int c = 0; c < s.n; ++c) ASSERT_EQ(bits(avx2(r, c)), bits(Bp(r, c)));
    expect_same_everywhere(avx2, s.m, A, want, "bcol=16");
  }
}

TEST(HalfPackMatrixB, Fp16Surface) { check_surface<float16>(); }
TEST(HalfPackMatrixB, Bf16Surface) { check_surface<bfloat16>(); }
TEST(HalfPackMatrixB, Fp32Surface) { check_surface<float>(); }

TEST(HalfPackMatrixB, BadGeometry) {
  EXPECT_INVALID(W("PackedGemmMatrixFP16", "nbrow", "3"), PackedGemmMatrixFP16(100, 10, 64, 36, 32, 3, 1, 0));
  EXPECT_INVALID(W("PackedGemmMatrixFP16", "last_brow", "30"), PackedGemmMatrixFP16(100, 10, 64, 30, 32, 2, 1, 0));
  EXPECT_INVALID(W("PackedGemmMatrixFP16", "nbcol", "2"), PackedGemmMatrixFP16(100, 10, 64, 36, 32, 2, 2, 0));
  EXPECT_INVALID(W("PackedGemmMatrixFP16", "bcol", "0"), PackedGemmMatrixFP16(100, 10, 64, 36, 0, 2, 1, 0));
  EXPECT_INVALID(W("PackedGemmMatrixBF16", "brow", "63"), PackedGemmMatrixBF16(100, 10, 63, 37, 32, 2, 1, 0));
  std::vector<float16> buf(10);
  EXPECT_INVALID(W("PackedGemmMatrixFP16", "size", "10"),
                 PackedGemmMatrixFP16(100, 10, 64, 36, 32, 2, 1, 10, 2, buf.data()));
  EXPECT_INVALID(W("PackedGemmMatrixFP16", "pmat"),
                 PackedGemmMatrixFP16(1, 1, 1, 1, 1, 1, 1, 1, 2, nullptr));

  // Fields changed behind the object's back are checked when it is used.
  const std::vector<float> B(64 * 40, 1.0f), A(2 * 64, 1.0f);
  PackedGemmMatrixFP16 Bp(matrix_op_t::NoTranspose, 64, 40, 1.0f, B.data(), 32);
  Bp.nbrow_ = 1;
  EXPECT_INVALID(W("cblas_gemm_compute", "nbrow", "1"), gemm(Bp, 2, A, 1));
  Bp.nbrow_ = 2;
  const uint64_t size = Bp.size_;
  Bp.size_ = 100;
  EXPECT_INVALID(W("cblas_gemm_compute", "Bp.size_", "100"), gemm(Bp, 2, A, 1));
  Bp.size_ = size;
  EXPECT_NO_THROW(gemm(Bp, 2, A, 1));
  EXPECT_INVALID(W("operator()", "r", "64"), Bp(64, 0));
  std::vector<float16> plain(64 * 40);
  EXPECT_INVALID(W("unpackFromSrc", "src_mat"), Bp.unpackFromSrc(matrix_op_t::NoTranspose, nullptr));
  EXPECT_INVALID(W("packFromSrc", "alpha"), Bp.packFromSrc(matrix_op_t::NoTranspose, NAN, B.data()));
}

// The kernel-table names of FbgemmFPCommon.h exist with FBGEMM's shapes.
TEST(HalfPackMatrixB, FpCommonNames) {
  fbgemm::GemmParams<fbgemm::float16> gp{};
  gp.k = 4;
  fbgemm::funcptr_t<fbgemm::float16> fn = nullptr;
  fbgemm::kernel_array_t<fbgemm::float16> kernels{};
  static_assert(std::tuple_size_v<fbgemm::kernel_array_t<float>> == fbgemm::MAX_KERNEL_NROWS + 1);
  static_assert(std::tuple_size_v<fbgemm::partition_array_t> == fbgemm::PARTITION_SIZE);
  EXPECT_EQ(kernels[0], fn);
  EXPECT_EQ(gp.k, 4u);
  EXPECT_EQ(PMAT_ALIGNMENT, 64);
  EXPECT_EQ(fbgemm::TypeConverter<fbgemm::float16>()(1e9f).val, 0x7bff);
  EXPECT_EQ(fbgemm::TypeConverter<fbgemm::float16>()(NAN).val, 0xfbff);
}

}  // namespace
}  // namespace quire::test
