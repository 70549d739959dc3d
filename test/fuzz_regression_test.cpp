// Inputs the fuzzers (fuzz/) found, kept as regression tests. Each test names its target
// and says what went wrong.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "quire/quire.h"
#include "test_util.h"

namespace quire::test {
namespace {

// A PackBMatrix stream: magic, header ints, then `payload` bytes (no valid checksum).
std::string packed_b_stream(const std::vector<int32_t>& header, size_t payload) {
  std::string s("QUIREPB", 8);
  s.append(reinterpret_cast<const char*>(header.data()), header.size() * sizeof(int32_t));
  s.append(payload, '\x11');
  return s;
}

// packb_load_fuzz: a header announcing far more packed bytes than the stream holds made
// load() allocate them before reading (2.4 GB from a 240-byte input; here 137 GB, which
// no allocator grants, so the old code threw std::bad_alloc or ASan aborted). load()
// now checks the stream's length first and reports the truncation.
TEST(FuzzRegression, PackBLoadHugeHeaderOnShortStream) {
  // version, trans, K per group, N, groups, panel width, padded K.
  const std::string s = packed_b_stream({1, 0, 65792, 1, 32640, 64, 65792}, 100);
  // (EXPECT_INVALID runs the statement twice: each run reads its own stream.)
  EXPECT_INVALID(({"truncated"}), std::istringstream in(s); PackBMatrix<int8_t>::load(in));
  EXPECT_INVALID(({"truncated"}), std::istringstream in(s);
                 (PackBMatrix<int8_t, int16_t>::load(in)));
}

// The fuzzer's own input (its first byte, the harness's mode, dropped): K = 7, N =
// 0x090000f0, 2 groups, panel width 64.
TEST(FuzzRegression, PackBLoadFoundInput) {
  const uint8_t bytes[] = {
      0x51, 0x55, 0x49, 0x52, 0x45, 0x50, 0x42, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
      0x00, 0x07, 0x00, 0x00, 0x00, 0xf0, 0x00, 0x00, 0x09, 0x02, 0x00, 0x00, 0x00, 0x40, 0x00,
      0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x0b, 0x30, 0x55, 0x7a, 0x0e, 0x33, 0x58, 0x7d, 0x11};
  const std::string s(reinterpret_cast<const char*>(bytes), sizeof(bytes));
  EXPECT_INVALID(({"truncated"}), std::istringstream in(s); PackBMatrix<int8_t>::load(in));
}

// packb_load_fuzz: K x groups x N past int64 (K 10, 536870937 groups, N 1980164611) made
// the int32 overflow check of the geometry overflow itself (signed overflow: undefined
// behaviour, reported by UBSan). It is now refused as overflowing int32.
TEST(FuzzRegression, PackBLoadGeometryProductPastInt64) {
  const std::string s = packed_b_stream({1, 0, 10, 1980164611, 536870937, 64, 12}, 100);
  EXPECT_INVALID(({"K", "N", "overflows"}), std::istringstream in(s);
                 PackBMatrix<int8_t>::load(in));
}

// packb_load_fuzz: N = INT32_MAX with K = 1 (the geometry fits int32) made the panel
// count's rounding, n + panel_width - 1, overflow int (UBSan). It is computed in int64;
// the stream is then refused as truncated.
TEST(FuzzRegression, PackBLoadPanelCountNearInt32Max) {
  const std::string s = packed_b_stream({1, 0, 1, 2147483647, 1, 16, 4}, 100);
  EXPECT_INVALID(({"truncated"}), std::istringstream in(s); PackBMatrix<int8_t>::load(in));
  detail::PackedBLayout layout{1, 2147483647, 1, 16, 4};
  EXPECT_EQ(layout.panels(), 134217728);
}

}  // namespace
}  // namespace quire::test
