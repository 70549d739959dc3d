// Every entry of every path's EpilogueTable, called directly (no op, no GEMM, no
// process-wide path switch) through EpilogueTester, over odd block shapes, column
// offsets, padding, the three granularities, zero points, biases and relu. A path this
// CPU lacks is skipped naming the missing features.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../src/cpu/isa_record.h"
#include "epilogue_tester.h"
#include "test_util.h"

namespace quire::test {
namespace {

using detail::BiasKind;
using Q = QuantizationGranularity;

class EpilogueTable : public ::testing::TestWithParam<detail::Isa> {
 protected:
  // The path's table, or null after GTEST_SKIP when the CPU lacks the path.
  const detail::EpilogueTable* table() const {
    const detail::IsaTraits& t = detail::traits(GetParam());
    if (!detail::cpu_has(GetParam())) return nullptr;
    return detail::isa_record(t.isa).epilogue;
  }
  std::string missing() const { return missing_features(detail::traits(GetParam()).inst_set); }
};

constexpr int kShapes[][2] = {{1, 1}, {1, 17}, {3, 15}, {2, 16}, {5, 33}, {4, 63}, {2, 65}, {7, 129}};

TEST_P(EpilogueTable, RequantizeU8) {
  const detail::EpilogueTable* t = table();
  if (t == nullptr) GTEST_SKIP() << "the CPU lacks " << missing();
  uint32_t seed = 1;
  for (const auto& s : kShapes)
    for (Q gran : {Q::TENSOR, Q::GROUP, Q::OUT_CHANNEL})
      for (BiasKind bias : {BiasKind::none, BiasKind::int32, BiasKind::float32})
        for (bool relu : {false, true}) {
          EpilogueTester()
              .rows(s[0]).cols(s[1]).col_start(s[1] % 5).ld_in_pad(s[0] % 3).ld_out_pad(1)
              .granularity(gran).groups(3).a_zero_point(seed % 3 == 0 ? 0 : 17)
              .b_zero_point(seed % 2 == 0).bias(bias).relu(relu).c_zero_point(seed % 256)
              .seed(seed).TestRequantizeU8(*t);
          ++seed;
        }
}

TEST_P(EpilogueTable, RequantizeF32) {
  const detail::EpilogueTable* t = table();
  if (t == nullptr) GTEST_SKIP() << "the CPU lacks " << missing();
  uint32_t seed = 1;
  for (const auto& s : kShapes)
    for (Q gran : {Q::TENSOR, Q::GROUP, Q::OUT_CHANNEL})
      for (BiasKind bias : {BiasKind::none, BiasKind::float32})
        for (bool relu : {false, true}) {
          EpilogueTester()
              .rows(s[0]).cols(s[1]).col_start(s[1] % 4).ld_in_pad(1).ld_out_pad(s[0] % 2)
              .granularity(gran).groups(3).a_zero_point(seed % 3 == 0 ? 0 : -9)
              .b_zero_point(seed % 2 == 1).bias(bias).relu(relu).seed(seed)
              .TestRequantizeF32(*t);
          ++seed;
        }
}

TEST_P(EpilogueTable, Int32Maps) {
  const detail::EpilogueTable* t = table();
  if (t == nullptr) GTEST_SKIP() << "the CPU lacks " << missing();
  using Op = EpilogueTester::MapOp;
  uint32_t seed = 1;
  for (const auto& s : kShapes)
    for (Op op : {Op::copy, Op::scale, Op::relu})
      for (int32_t value : {-7, 0, 3, 65537}) {
        EpilogueTester()
            .rows(s[0]).cols(s[1]).col_start(s[1] % 3).ld_in_pad(s[1] % 2).ld_out_pad(2)
            .value(value).seed(seed++).TestMapI32(*t, op);
      }
}

// Every row of the traits table: a new path is tested with no edit here.
std::vector<detail::Isa> every_path() {
  std::vector<detail::Isa> paths;
  for (const detail::IsaTraits& t : detail::kIsaTraits) paths.push_back(t.isa);
  return paths;
}

INSTANTIATE_TEST_SUITE_P(AllPaths, EpilogueTable, ::testing::ValuesIn(every_path()),
                         [](const auto& info) {
                           return std::string(detail::traits(info.param).name);
                         });

}  // namespace
}  // namespace quire::test
