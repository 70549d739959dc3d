// int4Gemm at decode sizes (M = 1, the one-pass row kernels; M = 2..4, the decode plan's
// tile kernels; M = 5, the M x N plan's) on the extreme data that decides exactness:
// codes 15 (or alternating 0 / 15) against activations quantized to -127 in every K
// and row, where an int16 pair sum kept too long would saturate (the AVX2 kernels keep
// them for runs of 4 blocks). Bit for bit against the exact reference, every path this
// CPU has, odd N and K, groups whose block count is not a multiple of the int16 run,
// 1-3 threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "int4_reference.h"
#include "test_util.h"

namespace quire::test {
namespace {

struct Case {
  int K, N, group;
};

// N: 1, 3, 17, 63, 65 and 130 columns (partial and several panels); K: 1023 (odd, one
// per-channel group of 128 blocks), 65 and 1023 in groups of 32 (4 blocks, the last
// group 1 block), 77 and 1000 as one group (10 and 125 blocks), 256 in groups of 256.
const Case kCases[] = {
    {1023, 1, 1023}, {65, 3, 32},  {1023, 17, 32}, {77, 63, 77},
    {1000, 65, 1000}, {256, 130, 256}, {1023, 65, 64},
};

enum class Fill { all15, alternating, random };

void run_case(const Case& c, int M, Fill fill, Int4Kind kind, Int4ScaleType st) {
  Int4Problem p = make_int4_problem(c.K, c.N, c.group, kind, st, c.K * 7 + c.N);
  for (size_t i = 0; i < p.codes.size(); ++i) {
    if (fill == Fill::all15) p.codes[i] = 15;
    if (fill == Fill::alternating) p.codes[i] = (i / 3) % 2 ? 15 : 0;
  }
  const PackedInt4Weights w = p.pack();
  // Every activation its row's maximum magnitude: all quantize to -127.
  std::vector<float> A = random_activations(M, c.K, c.K, c.K + M);
  if (fill != Fill::random) std::fill(A.begin(), A.end(), -2.5f);
  for (int threads = 1; threads <= 3; ++threads) {
    std::vector<float> C(size_t(M) * c.N, -7.0f);
    Int4GemmWorkspace ws(M, w, threads);
    for (int t = 0; t < threads; ++t)
      int4Gemm(M, A.data(), c.K, w, C.data(), c.N, Int4Epilogue{}, t, threads, &ws);
    const int k_parts = detail::int4_plan(M, (c.N + 63) / 64, w.numGroups(), threads, true).k_parts;
    const std::vector<float> ref = int4_reference(p, M, A.data(), c.K, nullptr, false, k_parts);
    int bad = 0;
    for (size_t i = 0; i < C.size() && bad < 3; ++i) {
      if (std::memcmp(&C[i], &ref[i], sizeof(float)) != 0) {
        ADD_FAILURE() << "M=" << M << " K=" << c.K << " N=" << c.N << " group=" << c.group
                      << " fill=" << int(fill) << " kind=" << int(kind) << " st=" << int(st)
                      << " threads=" << threads << " at row " << i / c.N << " column "
                      << i % c.N << ": " << C[i] << " != " << ref[i];
        ++bad;
      }
    }
  }
}

TEST(Int4Decode, ExtremeOperandsBitExactOnEveryPath) {
  for_each_supported_path([] {
    for (const Case& c : kCases)
      for (int M = 1; M <= 5; ++M)
        for (Fill fill : {Fill::all15, Fill::alternating, Fill::random})
          for (Int4Kind kind : {Int4Kind::symmetric, Int4Kind::scale_min})
            run_case(c, M, fill, kind, Int4ScaleType::f16);
  });
}

TEST(Int4Decode, EveryScaleTypeOnEveryPath) {
  for_each_supported_path([] {
    for (Int4ScaleType st : {Int4ScaleType::f32, Int4ScaleType::bf16})
      for (Int4Kind kind : {Int4Kind::symmetric, Int4Kind::zero_point, Int4Kind::scale_min})
        for (int M : {1, 4}) run_case({1023, 65, 64}, M, Fill::all15, kind, st);
  });
}

}  // namespace
}  // namespace quire::test
