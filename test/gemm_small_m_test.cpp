// Whole fbgemmPacked calls at M = 1-4 (docs/kernel-contract.md, "Small M: tiles spanning
// B panels"): with 7-bit A every B panel is certified pair-safe, so blocks of 1-3 rows run
// the kernels that walk several panels per call, and 4 rows the path's usual tile; with
// full-range A the exact forms run. Odd N (panel tails, 1-7 panels) and K (K tails, and
// K past one K block so later blocks accumulate), 1-3 threads, uint8 and float output
// per tensor and per channel, ReLU on and off, and int32 output, bit for bit against the
// reference on avx2 and avx512 (skipped, naming the feature, where the CPU lacks them).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "gemm_requantize_cases.h"

namespace quire::test {
namespace {

constexpr inst_set_t kPaths[] = {inst_set_t::avx2, inst_set_t::avx512};

// C = A * B through fbgemmPacked with int32 output, `threads` sequential calls sharing B;
// accT int16_t: acc16 (exact against the plain product only where it cannot saturate).
template <class accT = int32_t>
int int32_mismatches(int M, int N, int K, const std::vector<uint8_t>& A,
                     const std::vector<int8_t>& B, int threads) {
  std::vector<int32_t> want(size_t(M) * N);
  ref::matmul_u8s8s32(M, N, K, A.data(), K, B.data(), N, want.data(), N);
  PackBMatrix<int8_t, accT> packedB(matrix_op_t::NoTranspose, K, N, B.data(), N);
  std::vector<int32_t> C(size_t(M) * N + 16, -7);
  for (int t = 0; t < threads; ++t) {
    PackAMatrix<uint8_t, accT> packA(matrix_op_t::NoTranspose, M, K, A.data(), K);
    DoNothing<int32_t, int32_t> done;
    memCopy<> copy(done);
    fbgemmPacked(packA, packedB, C.data(), C.data(), N, copy, t, threads);
  }
  for (size_t i = size_t(M) * N; i < C.size(); ++i)
    if (C[i] != -7) return -1;  // wrote past C
  return compare_buffers(want.data(), C.data(), M, N, N, 0);
}

// Runs before the grids (which would generate the kernels first): a 1-row call runs the
// tiles spanning panels (QUIRE_JIT_DUMP names every kernel the process
// generates; their names end in _pv<n>).
TEST(GemmSmallM, OneRowRunsTheTilesSpanningPanels) {
  for (inst_set_t path : kPaths) {
    const IsaCase isa{path, detail::cpu_has(detail::isa_from_inst_set(path))};
    if (skip_unsupported(isa)) continue;
    ScopedIsa scoped(path);
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("quire_small_m_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    ::setenv("QUIRE_JIT_DUMP", dir.c_str(), 1);
    const int M = 1, N = 211, K = 45;  // a shape no other test here uses: fresh kernels
    for (int a_max : {127, 255}) {  // pair-safe; full-range A: the exact form
      const auto A = random_vector<uint8_t>(size_t(M) * K, 0, a_max, 7);
      const auto B = random_vector<int8_t>(size_t(K) * N, -128, 127, 8);
      EXPECT_EQ(int32_mismatches(M, N, K, A, B, 1), 0) << instSetName(path);
    }
    ::unsetenv("QUIRE_JIT_DUMP");
    int pair_safe = 0, sx_b = 0;
    for (const auto& f : std::filesystem::directory_iterator(dir)) {
      pair_safe += f.path().filename().string().find("_pairsafe_pv") != std::string::npos;
      sx_b += f.path().filename().string().find("_sxb_pv") != std::string::npos;
    }
    std::filesystem::remove_all(dir);
    EXPECT_GT(pair_safe, 0) << instSetName(path);
    // avx2's exact form of one row also spans panels (sx_b: avx2 only).
    if (path == inst_set_t::avx2) {
      EXPECT_GT(sx_b, 0);
    }
  }
}

// The kernel names this process generated while running `run` (QUIRE_JIT_DUMP).
template <class Run>
std::vector<std::string> kernels_generated_by(const std::string& tag, Run run) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("quire_small_m_" + tag + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  ::setenv("QUIRE_JIT_DUMP", dir.c_str(), 1);
  run();
  ::unsetenv("QUIRE_JIT_DUMP");
  std::vector<std::string> names;
  for (const auto& f : std::filesystem::directory_iterator(dir)) names.push_back(f.path().stem());
  std::filesystem::remove_all(dir);
  return names;
}

bool any_name_has(const std::vector<std::string>& names, const std::string& a, const std::string& b) {
  for (const std::string& n : names)
    if (n.find(a) != std::string::npos && n.find(b) != std::string::npos) return true;
  return false;
}

// On paths without pair-safe kernels (VNNI, and acc16 where it saturates) the pair-safe
// limits choose nothing: a one-row call on B whose every pair is safe (-64..64, limit
// 255) still walks its slices in one call (column_slices: names ending _slices; acc16
// in the tiles spanning panels, _pv). Reading the limits there sent every slice down the
// one-call-per-slice fallback. Runs before the grids, which would generate the kernels.
TEST(GemmSmallM, PathsWithoutPairSafeKernelsStillWalkSlicesInOneCall) {
  const int M = 1, N = 1000, K = 45;
  const auto A = random_vector<uint8_t>(size_t(M) * K, 0, 50, 11);  // acc16 cannot saturate
  const auto B = random_vector<int8_t>(size_t(K) * N, -64, 64, 12);
  for (inst_set_t path : {inst_set_t::avx512_vnni, inst_set_t::avx512_vnni_ymm, inst_set_t::avx_vnni}) {
    const IsaCase isa{path, detail::cpu_has(detail::isa_from_inst_set(path))};
    if (skip_unsupported(isa)) continue;
    ScopedIsa scoped(path);
    const auto names = kernels_generated_by(instSetName(path), [&] {
      EXPECT_EQ(int32_mismatches(M, N, K, A, B, 1), 0) << instSetName(path);
    });
    EXPECT_TRUE(any_name_has(names, "u8s8s32_mr1_", "_slices")) << instSetName(path);
  }
  for (inst_set_t path : kPaths) {  // acc16 saturates here: no pair-safe kernels under it
    const IsaCase isa{path, detail::cpu_has(detail::isa_from_inst_set(path))};
    if (skip_unsupported(isa)) continue;
    ScopedIsa scoped(path);
    const auto names = kernels_generated_by("acc16_" + std::string(instSetName(path)), [&] {
      EXPECT_EQ(int32_mismatches<int16_t>(M, N, K, A, B, 1), 0) << instSetName(path);
    });
    EXPECT_TRUE(any_name_has(names, "u8s8s16_mr1_", "_pv")) << instSetName(path);
  }
}

// Requantized outputs (uint8 and float) over the small-M grid.
TEST(GemmSmallM, RequantizedOutputsMatchTheReference) {
  std::vector<std::unique_ptr<Problem>> problems;
  uint32_t seed = 1;
  for (int M : {1, 2, 3, 4})
    for (int N : {1, 17, 33, 63, 97, 150})
      for (int K : {1, 3, 63, 130, 2053})
        for (Data data : {Data::a7bit, Data::random}) {
          Config c;
          c.M = M;
          c.N = N;
          c.K = K;
          c.data = data;
          c.gran = seed % 2 ? Gran::OUT_CHANNEL : Gran::TENSOR;
          c.relu = seed % 3 == 0;
          c.bias = seed % 4 == 1 ? Bias::i32 : Bias::none;
          c.a_zp = seed % 5 != 0;
          c.ldc_pad = seed % 3;
          c.threads = {1 + int(seed % 3)};
          c.seed = seed++;
          problems.push_back(build_problem(c));
        }
  for (inst_set_t path : kPaths) {
    const IsaCase isa{path, detail::cpu_has(detail::isa_from_inst_set(path))};
    if (skip_unsupported(isa)) continue;
    ScopedIsa scoped(path);
    for (const auto& p : problems) ASSERT_TRUE(run_problem(*p, false));
  }
}

TEST(GemmSmallM, Int32OutputMatchesTheReference) {
  for (inst_set_t path : kPaths) {
    const IsaCase isa{path, detail::cpu_has(detail::isa_from_inst_set(path))};
    if (skip_unsupported(isa)) continue;
    ScopedIsa scoped(path);
    uint32_t seed = 100;
    for (int M : {1, 2, 3, 4})
      for (int N : {5, 49, 65, 129, 193})
        for (int K : {5, 67, 2061})
          for (int a_max : {127, 255}) {
            const int threads = 1 + int(seed % 3);
            const auto A = random_vector<uint8_t>(size_t(M) * K, 0, a_max, seed);
            const auto B = random_vector<int8_t>(size_t(K) * N, -128, 127, seed + 1);
            ASSERT_EQ(int32_mismatches(M, N, K, A, B, threads), 0)
                << instSetName(path) << " M=" << M << " N=" << N << " K=" << K
                << " A max=" << a_max << " threads=" << threads;
            ++seed;
          }
  }
}

}  // namespace
}  // namespace quire::test
