// The small Utils.h / Types.h / UtilsAvx2.h names: their values and texts as FBGEMM has
// them, through the compat headers as client code sees them.
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "fbgemm/Assert.h"
#include "fbgemm/FbgemmBuild.h"
#include "fbgemm/Types.h"
#include "fbgemm/Utils.h"
#include "fbgemm/UtilsAvx2.h"

namespace {

FBGEMM_API int exported_function() { return 1; }
enum class FBGEMM_ENUM_CLASS_API exported_enum { a };

TEST(UtilsMisc, TypesAndHelpers) {
  static_assert(fbgemm::round_up(17, 8) == 24 && fbgemm::round_up(16, 8) == 16);
  static_assert(fbgemm::div_up(17, 8) == 3 && fbgemm::div_up(0, 8) == 0);
  static_assert(fbgemm::is_8bit<int8_t>::value && fbgemm::is_8bit<uint8_t>::value &&
                !fbgemm::is_8bit<int16_t>::value);
  static_assert(fbgemm::Int8Type<uint8_t>);
  // FBGEMM's enumerator values (quire's avx_vnni comes after them).
  static_assert(static_cast<int>(fbgemm::inst_set_t::avx512_vnni_ymm) == 5);
  static_assert(static_cast<int>(fbgemm::inst_set_t::sve) == 6);
  (void)fbgemm::impl_type_t::opt;
  (void)fbgemm::optimized_conv_t::directconv;
  (void)fbgemm::layout_t::KXC;
  EXPECT_EQ(exported_function(), 1);
  (void)exported_enum::a;

  const fbgemm::block_type_t b{1, 2, 3, 4};
  EXPECT_EQ(b.toString(), "row start:1, row size:2, col start:3, col size:4");
  EXPECT_EQ((fbgemm::arrayToString<3>(std::array<int32_t, 3>{1, -2, 3})), "[1, -2, 3]");
}

// FBGEMM's fbgemmForceIsa: a path the CPU has is forced; anyarch and paths the CPU lacks
// (sve on x86 always) return to the start-up path. FBGEMM's own tests force avx512 on
// every machine and reset with anyarch.
TEST(UtilsMisc, FbgemmForceIsaIgnoresWhatTheCpuLacks) {
  const fbgemm::inst_set_t start = fbgemm::fbgemmInstructionSet();
  const std::pair<fbgemm::inst_set_t, bool> paths[] = {
      {fbgemm::inst_set_t::avx2, fbgemm::fbgemmHasAvx2Support()},
      {fbgemm::inst_set_t::avx512, fbgemm::fbgemmHasAvx512Support()},
      {fbgemm::inst_set_t::avx512_vnni, fbgemm::fbgemmHasAvx512VnniSupport()},
      {fbgemm::inst_set_t::avx_vnni, fbgemm::fbgemmHasAvxVnniSupport()},
      {fbgemm::inst_set_t::sve, false},
  };
  for (const auto& [isa, has] : paths) {
    fbgemm::fbgemmForceIsa(isa);
    EXPECT_EQ(fbgemm::fbgemmInstructionSet(), has ? isa : start) << fbgemm::instSetName(isa);
    fbgemm::fbgemmForceIsa(fbgemm::inst_set_t::anyarch);
    EXPECT_EQ(fbgemm::fbgemmInstructionSet(), start) << "anyarch after " << fbgemm::instSetName(isa);
  }
}

TEST(UtilsMisc, CpuQueries) {
  EXPECT_FALSE(fbgemm::fbgemmHasArmNeonSupport());
  EXPECT_FALSE(fbgemm::fbgemmHasArmSveSupport());
  EXPECT_FALSE(fbgemm::fbgemmHasArmSve2Support());
  (void)fbgemm::fbgemmHasAvx512Bf16Support();
  EXPECT_TRUE(fbgemm::isZmm(fbgemm::inst_set_t::avx512));
  EXPECT_TRUE(fbgemm::isZmm(fbgemm::inst_set_t::avx512_vnni));
  EXPECT_FALSE(fbgemm::isZmm(fbgemm::inst_set_t::avx512_ymm));
  EXPECT_TRUE(fbgemm::isYmm(fbgemm::inst_set_t::avx2));
  EXPECT_TRUE(fbgemm::isYmm(fbgemm::inst_set_t::avx512_vnni_ymm));
  EXPECT_FALSE(fbgemm::isYmm(fbgemm::inst_set_t::anyarch));
  EXPECT_STREQ(fbgemm::instSetName(fbgemm::inst_set_t::sve), "sve");
  // Not a Xeon D here (an EPYC): enabling the ymm preference changes nothing.
  const fbgemm::inst_set_t before = fbgemm::fbgemmInstructionSet();
  if (!fbgemm::fbgemmIsIntelXeonD()) {
    fbgemm::fbgemmEnableAvx512Ymm(true);
    EXPECT_EQ(fbgemm::fbgemmInstructionSet(), before);
  }
}

TEST(UtilsMisc, AlignedMemory) {
  void* p = fbgemm::fbgemmAlignedAlloc(64, 100);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  fbgemm::fbgemmAlignedFree(p);
  EXPECT_EQ(fbgemm::fbgemmAlignedAlloc(48, 64), nullptr);  // not a power of two
  EXPECT_THROW(fbgemm::fbgemmAlignedAlloc(48, 64, true), std::bad_alloc);
  fbgemm::aligned_unique_ptr<int32_t> q = fbgemm::makeAlignedUniquePtr<int32_t>(128, 33);
  ASSERT_NE(q.get(), nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(q.get()) % 128, 0u);
  q[32] = 5;
  EXPECT_EQ(q[32], 5);
}

TEST(UtilsMisc, CompareBuffersContract) {
  const std::vector<int32_t> a{1, 2, 3, 4}, b{1, 0, 3, 0};
  testing::internal::CaptureStdout();
  EXPECT_EQ(fbgemm::compare_buffers(a.data(), b.data(), 2, 2, 2, 2), 0);  // 2 <= 2 allowed
  EXPECT_EQ(fbgemm::compare_buffers(a.data(), b.data(), 2, 2, 2, 1), 1);
  EXPECT_EQ(fbgemm::compare_buffers(a.data(), a.data(), 2, 2, 2, 0), 0);
  const std::vector<float> f{1.0f, 2.0f}, g{1.0005f, 2.1f};
  EXPECT_EQ(fbgemm::compare_buffers(f.data(), g.data(), 1, 1, 2, 0), 0);  // within atol
  EXPECT_EQ(fbgemm::compare_buffers(f.data(), g.data(), 1, 2, 2, 0), 1);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("mismatch at (0, 1)"), std::string::npos) << out;
}

TEST(UtilsMisc, PrintMatrix) {
  const std::vector<int8_t> m{1, -2, 3, 4, 5, 6};
  testing::internal::CaptureStdout();
  fbgemm::printMatrix(fbgemm::matrix_op_t::Transpose, m.data(), 3, 2, 3, "A");
  EXPECT_EQ(testing::internal::GetCapturedStdout(),
            "A:[3, 2]\n    1     4 \n   -2     5 \n    3     6 \n");
}

TEST(UtilsMisc, AssertMacro) {
  const auto check = [](int x) { FBGEMM_CHECK(x == 0, "Expected x to be 0, but got ", x); };
  check(0);
  try {
    check(3);
    FAIL() << "did not throw";
  } catch (const fbgemm::Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("Expected x to be 0, but got 3"), std::string::npos) << what;
    EXPECT_NE(what.find("utils_misc_test.cpp("), std::string::npos) << what;
  }
  EXPECT_THROW(([] { FBGEMM_CHECK(1 + 1 == 3); })(), fbgemm::Error);
  EXPECT_EQ(fbgemm::str("a", 1, 'b'), "a1b");
}

TEST(UtilsMisc, EmbeddingSwitches) {
  const bool was = fbgemm::is_autovec_disabled();
  fbgemm::set_autovec_disabled(!was);
  EXPECT_EQ(fbgemm::is_autovec_disabled(), !was);
  fbgemm::set_autovec_disabled(was);
  (void)fbgemm::is_stats_enabled();
  EXPECT_GE(fbgemm::tbe_l2_large_table_bytes(), 0);
  fbgemm::nbit_embedding_sanity_check<float>(4, 32, false);
  fbgemm::nbit_embedding_sanity_check<uint8_t>(4, 4, true);
  EXPECT_THROW(fbgemm::nbit_embedding_sanity_check<float>(3, 32, false), std::invalid_argument);
  EXPECT_THROW(fbgemm::nbit_embedding_sanity_check<uint8_t>(4, 4, false), std::invalid_argument);
}

}  // namespace
