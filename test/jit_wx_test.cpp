// W^X: no mapping of the process is writable and executable at once after quire has
// generated every kind of kernel (column, narrow, acc16, every row and column remainder)
// on every path this CPU has. Read from /proc/self/maps, so it checks the real pages.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "quire/quire.h"
#include "quire/ref/Reference.h"
#include "test_util.h"

namespace quire::test {
namespace {

// Lines of /proc/self/maps whose permissions have both 'w' and 'x'.
std::vector<std::string> writable_executable_mappings() {
  std::ifstream maps("/proc/self/maps");
  std::vector<std::string> found;
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream fields(line);
    std::string range, perms;
    fields >> range >> perms;
    if (perms.size() >= 3 && perms[1] == 'w' && perms[2] == 'x') found.push_back(line);
  }
  return found;
}

// One int32 GEMM with accumulation type accT; checked, so the kernel really ran.
template <class accT>
void run_gemm(int M, int N, int K, uint32_t seed) {
  const auto A = random_vector<uint8_t>(size_t(M) * K, 0, 255, seed);
  // acc16 saturates on some paths: small weights keep every path exact.
  const int lo = std::is_same_v<accT, int16_t> ? -4 : -128;
  const int hi = std::is_same_v<accT, int16_t> ? 4 : 127;
  const auto B = random_vector<int8_t>(size_t(K) * N, lo, hi, seed + 1);
  std::vector<int32_t> want(size_t(M) * N), got(size_t(M) * N);
  ref::matmul_u8s8s32(M, N, K, A.data(), K, B.data(), N, want.data(), N);
  PackBMatrix<int8_t, accT> packedB(matrix_op_t::NoTranspose, K, N, B.data(), N);
  PackAMatrix<uint8_t, accT> packA(matrix_op_t::NoTranspose, M, K, A.data(), K);
  DoNothing<int32_t, int32_t> nothing;
  memCopy<> copy(nothing);
  fbgemmPacked(packA, packedB, got.data(), got.data(), N, copy, 0, 1);
  ASSERT_EQ(got, want) << M << "x" << N << "x" << K;
}

TEST(JitWriteXorExecute, NoMappingIsWritableAndExecutable) {
  ASSERT_TRUE(writable_executable_mappings().empty()) << "before any kernel was generated";
  int paths = 0;
  for (const IsaCase& c : all_isas()) {
    if (skip_unsupported(c)) continue;
    ScopedIsa scoped(c.isa);
    ++paths;
    uint32_t seed = 1;
    for (int M : {1, 5, 13}) {
      for (int N : {1, 3, 4, 5, 8, 17, 64, 70}) {  // narrow (3..8), column, tails
        run_gemm<int32_t>(M, N, 37, seed++);
        run_gemm<int16_t>(M, N, 37, seed++);
      }
    }
    const std::vector<std::string> bad = writable_executable_mappings();
    EXPECT_TRUE(bad.empty()) << "after the kernels of " << instSetName(c.isa) << ": "
                             << bad.size() << " W+X mapping(s), first: " << bad.front();
  }
  EXPECT_GE(paths, 1);
}

}  // namespace
}  // namespace quire::test
