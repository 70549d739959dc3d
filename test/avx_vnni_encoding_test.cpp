// The avx_vnni path on a CPU that may lack AVX-VNNI.
//
// Its kernels share their logic with avx512_vnni_ymm (tested by running it, in the GEMM
// tests); what only avx_vnni has is the VEX encoding of vpdpbusd, which runs on CPUs with
// AVX-VNNI and no AVX-512 (VEX vpdpbusd raises SIGILL where CPUID lacks AVX-VNNI). So the
// kernel is generated without being run and its machine code is scanned: it must hold
// VEX3 vpdpbusd and no EVEX vpdpbusd. The same scan of the avx512_vnni_ymm kernel must
// find the opposite, which shows the scan can tell them apart.
//
// Where the CPU lacks AVX-VNNI, forcing the path must throw std::invalid_argument naming
// the path and what the CPU has; where it has it, the path must run exactly.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "../src/jit/kernel_cache.h"
#include "quire/quire.h"
#include "quire/ref/Reference.h"
#include "test_util.h"

namespace quire::test {
namespace {

using detail::Isa;

struct Scan {
  size_t code_bytes = 0;  // up to and including the ret after vzeroupper
  int vex_vpdpbusd = 0;   // C4, [R X B m-mmmm = 0F38], [W vvvv L pp], 50
  int evex_vpdpbusd = 0;  // 62, P0 (map 0F38), P1 (fixed bit set), P2, 50
  bool found_end = false;
};

// Scans a generated micro-kernel. Its end is found by its epilogue, vzeroupper (C5 F8 77)
// followed within a few bytes (the register pops) by ret (C3); the scan never goes past
// it, so whatever code the JIT placed after the kernel does not count.
Scan scan_kernel(const void* fn) {
  constexpr size_t kMaxBytes = 4096;
  const auto* p = static_cast<const uint8_t*>(fn);
  Scan s;
  for (size_t i = 0; i + 2 < kMaxBytes; ++i) {
    if (p[i] == 0xC5 && p[i + 1] == 0xF8 && p[i + 2] == 0x77) {
      for (size_t j = i + 3; j < i + 3 + 16; ++j) {
        if (p[j] == 0xC3) {
          s.code_bytes = j + 1;
          s.found_end = true;
          break;
        }
      }
      if (s.found_end) break;
    }
  }
  if (!s.found_end) return s;
  for (size_t i = 0; i + 3 < s.code_bytes; ++i) {
    if (p[i] == 0xC4 && (p[i + 1] & 0x1F) == 0x02 && p[i + 3] == 0x50) ++s.vex_vpdpbusd;
    if (i + 4 < s.code_bytes && p[i] == 0x62 && (p[i + 1] & 0x0F) == 0x02 &&
        (p[i + 2] & 0x04) == 0x04 && p[i + 4] == 0x50)
      ++s.evex_vpdpbusd;
  }
  return s;
}

// 6 x 16 on ymm: 6 rows x 2 vectors, so at least 12 dot-product instructions.
constexpr int kMr = 6, kNr = 16, kMinDotProducts = kMr * kNr / 8;

TEST(AvxVnniEncoding, KernelIsVexEncoded) {
  // Generation never executes the kernel, so it is safe on any CPU.
  const void* fn = reinterpret_cast<const void*>(jit::kernel(jit::KernelSpec{Isa::avx_vnni, kMr, kNr}));
  ASSERT_NE(fn, nullptr);
  const Scan s = scan_kernel(fn);
  ASSERT_TRUE(s.found_end) << "no vzeroupper + ret found: cannot delimit the kernel";
  EXPECT_GE(s.vex_vpdpbusd, kMinDotProducts) << "VEX3 vpdpbusd in " << s.code_bytes << " bytes";
  EXPECT_EQ(s.evex_vpdpbusd, 0) << "EVEX vpdpbusd in the avx_vnni kernel (" << s.code_bytes
                                << " bytes)";
}

TEST(AvxVnniEncoding, ScanTellsEvexFromVex) {
  // The same generator on avx512_vnni_ymm emits the EVEX form: the scan must see it.
  const void* fn = reinterpret_cast<const void*>(jit::kernel(jit::KernelSpec{Isa::avx512_vnni_ymm, kMr, kNr}));
  ASSERT_NE(fn, nullptr);
  const Scan s = scan_kernel(fn);
  ASSERT_TRUE(s.found_end) << "no vzeroupper + ret found: cannot delimit the kernel";
  EXPECT_GE(s.evex_vpdpbusd, kMinDotProducts);
  EXPECT_EQ(s.vex_vpdpbusd, 0);
}

TEST(AvxVnniEncoding, ForcingWithoutCpuSupportThrowsNamingBoth) {
  if (fbgemmHasAvxVnniSupport())
    GTEST_SKIP() << "this CPU has AVX-VNNI: see RunsExactlyWhenSupported";
  const inst_set_t before = fbgemmInstructionSet();
  try {
    forceIsa(inst_set_t::avx_vnni);
    FAIL() << "forceIsa(avx_vnni) did not throw on a CPU without AVX-VNNI";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("avx_vnni"), std::string::npos) << "does not name what was asked: " << what;
    // What the CPU has: every extension it reports is named.
    if (fbgemmHasAvx2Support()) {
      EXPECT_NE(what.find("avx2"), std::string::npos) << what;
    }
    if (fbgemmHasAvx512Support()) {
      EXPECT_NE(what.find("avx512"), std::string::npos) << what;
    }
    if (fbgemmHasAvx512VnniSupport()) {
      EXPECT_NE(what.find("avx512_vnni"), std::string::npos) << what;
    }
  }
  EXPECT_EQ(fbgemmInstructionSet(), before) << "a failed force changed the active path";
}

TEST(AvxVnniEncoding, RunsExactlyWhenSupported) {
  if (!fbgemmHasAvxVnniSupport()) GTEST_SKIP() << "this CPU lacks AVX-VNNI: its kernels cannot run";
  ScopedIsa isa(inst_set_t::avx_vnni);
  const int M = 37, N = 45, K = 515;
  const auto A = random_vector<uint8_t>(size_t(M) * K, 0, 255, 3);
  const auto B = random_vector<int8_t>(size_t(K) * N, -128, 127, 4);
  std::vector<int32_t> want(size_t(M) * N), C(size_t(M) * N, -1);
  ref::matmul_u8s8s32(M, N, K, A.data(), K, B.data(), N, want.data(), N);
  PackBMatrix<int8_t> packB(matrix_op_t::NoTranspose, K, N, B.data(), N);
  PackAMatrix<uint8_t> packA(matrix_op_t::NoTranspose, M, K, A.data(), K);
  DoNothing<int32_t, int32_t> done;
  memCopy<> copy(done);
  fbgemmPacked(packA, packB, C.data(), C.data(), N, copy, 0, 1);
  EXPECT_EQ(compare_buffers(want.data(), C.data(), M, N, N, 0), 0);
}

}  // namespace
}  // namespace quire::test
