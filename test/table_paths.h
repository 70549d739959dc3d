// The paths a table tester runs over: every row of the traits table, so a new path is
// tested with no edit in the tests, and the record of one, or the missing features'
// names when this CPU cannot run it.
#pragma once

#include <string>
#include <vector>

#include "../src/cpu/isa_record.h"
#include "test_util.h"

namespace quire::test {

inline std::vector<detail::Isa> every_path() {
  std::vector<detail::Isa> paths;
  for (const detail::IsaTraits& t : detail::kIsaTraits) paths.push_back(t.isa);
  return paths;
}

inline std::string path_name(const ::testing::TestParamInfo<detail::Isa>& info) {
  return detail::traits(info.param).name;
}

// A fixture over every path: record() is null when the CPU lacks the path (the test
// then skips with missing()).
class PathTest : public ::testing::TestWithParam<detail::Isa> {
 protected:
  const detail::IsaRecord* record() const {
    return detail::cpu_has(GetParam()) ? &detail::isa_record(GetParam()) : nullptr;
  }
  std::string missing() const {
    const detail::Caps lacks = detail::traits(GetParam()).needs & ~cpu::cpu_features().caps();
    std::string names;
    for (const detail::CapName& c : detail::kCapNames)
      if (lacks & c.cap) names += names.empty() ? c.name : std::string(" ") + c.name;
    return names;
  }
};

}  // namespace quire::test
