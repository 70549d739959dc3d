// Each path's A-block packer (IsaRecord::pack_a) against plain loops: the copy of every
// row, its zero padding to a multiple of 4, nothing written past the padding, and the row
// sums (stored or added), with and without a destination (sums only, as for A read in
// place), over row lengths around the vector widths (1..31 scalar on avx2, 32 + a tail
// that overlaps the previous load) and row counts around the 4- and 8-row reductions.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../src/cpu/isa_record.h"
#include "test_util.h"

namespace quire::test {
namespace {

constexpr uint8_t kCanary = 0xa5;

void check_pack(const detail::IsaTraits& t, int rows, int cols, bool copy, bool accumulate) {
  const int padded = (cols + 3) & ~3;
  const int64_t ld = cols + 3, ld_dst = padded + 5;
  const uint32_t seed = static_cast<uint32_t>(rows * 1000 + cols * 4 + copy * 2 + accumulate);
  const std::vector<uint8_t> a = random_vector<uint8_t>(size_t(rows) * ld, 0, 255, seed);
  std::vector<uint8_t> dst(size_t(rows) * ld_dst, kCanary);
  std::vector<int32_t> sums(static_cast<size_t>(rows), 7), expected(static_cast<size_t>(rows));
  for (int r = 0; r < rows; ++r) {
    int32_t s = accumulate ? 7 : 0;
    for (int c = 0; c < cols; ++c) s += a[size_t(r) * ld + c];
    expected[r] = s;
  }
  detail::isa_record(t.isa).pack_a(a.data(), ld, false, rows, cols, copy ? dst.data() : nullptr,
                                   ld_dst, sums.data(), accumulate);
  const std::string where = std::string(t.name) + " rows=" + std::to_string(rows) +
                            " cols=" + std::to_string(cols) + (copy ? " copy" : " sums only") +
                            (accumulate ? " accumulate" : "");
  ASSERT_EQ(sums, expected) << where;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < ld_dst; ++c) {
      const uint8_t want = !copy || c >= padded ? kCanary : c < cols ? a[size_t(r) * ld + c] : 0;
      ASSERT_EQ(dst[size_t(r) * ld_dst + c], want) << where << " row " << r << " byte " << c;
    }
}

TEST(PackARows, CopiesPadsAndSumsEveryRowOnEveryPath) {
  for (const detail::IsaTraits& t : detail::kIsaTraits) {
    if (!detail::cpu_has(t.isa)) continue;
    for (int rows : {1, 3, 4, 5, 8, 9, 13})
      for (int cols : {1, 3, 4, 5, 16, 31, 32, 33, 35, 36, 37, 40, 63, 64, 65, 68, 95, 100, 129})
        for (bool copy : {false, true})
          for (bool accumulate : {false, true}) {
            check_pack(t, rows, cols, copy, accumulate);
            if (HasFatalFailure()) return;
          }
  }
}

}  // namespace
}  // namespace quire::test
