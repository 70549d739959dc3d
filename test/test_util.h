// Shared helpers for quire's tests: random full-range data, the ISA paths this CPU has,
// forcing one of them for a scope, and EXPECT_INVALID, the check that a bad argument
// throws std::invalid_argument naming the parameter.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "../src/cpu/cpu_features.h"
#include "../src/cpu/isa_traits.h"
#include "quire/Utils.h"
#include "quire/ref/Reference.h"
#include "scoped_isa.h"

namespace quire::test {

template <class T>
std::vector<T> random_vector(size_t n, int lo, int hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(dist(gen));
  return v;
}

// Every instruction-set path quire has under an FBGEMM name (the rows of
// src/cpu/isa_traits.h, lowest first), with whether this CPU can run it.
struct IsaCase {
  inst_set_t isa;
  bool supported;
};

// A row that shares its FBGEMM name with an earlier one (a path only QUIRE_ISA selects)
// is left out: these sweeps force paths by that name (ScopedIsa), so it would run the
// earlier row's path again, under the same test name (which GoogleTest refuses). The
// table testers go by row (test/table_paths.h) and test such a path too.
inline std::vector<IsaCase> all_isas() {
  std::vector<IsaCase> cases;
  for (const detail::IsaTraits& t : detail::kIsaTraits)
    if (detail::find_traits(t.inst_set)->isa == t.isa)
      cases.push_back({t.inst_set, detail::cpu_has(t.isa)});
  return cases;
}

// The capability bits a path needs that this CPU lacks, e.g. "avx_vnni".
inline std::string missing_features(inst_set_t isa) {
  const detail::Caps lacks =
      detail::traits(detail::isa_from_inst_set(isa)).needs & ~cpu::cpu_features().caps();
  std::string names;
  for (const detail::CapName& c : detail::kCapNames)
    if (lacks & c.cap) names += names.empty() ? c.name : std::string(" ") + c.name;
  return names;
}

// For sweeps over all_isas(): true if the CPU lacks the path, which is then reported
// (once per test and path) naming what is missing, instead of being skipped silently.
//   for (const IsaCase& isa : all_isas()) { if (skip_unsupported(isa)) continue; ... }
inline bool skip_unsupported(const IsaCase& c) {
  if (c.supported) return false;
  static std::set<std::string> reported;
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string key = (test ? std::string(test->test_suite_name()) + "." + test->name() : "") +
                          "/" + instSetName(c.isa);
  if (reported.insert(key).second) {
    std::printf("[ SKIPPED  ] %s path: needs %s\n", instSetName(c.isa),
                missing_features(c.isa).c_str());
  }
  return true;
}

// Runs fn once under each path this CPU has (forced for the process meanwhile), the
// others reported by skip_unsupported.
inline void for_each_supported_path(const std::function<void()>& fn) {
  for (const IsaCase& c : all_isas()) {
    if (skip_unsupported(c)) continue;
    ScopedIsa isa(c.isa);
    SCOPED_TRACE(instSetName(c.isa));
    fn();
  }
}

// ---- errors: std::invalid_argument whose message names the parameter -------------------

inline bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Whether `word` occurs in `text` with no identifier character on either side.
inline bool contains_word(const std::string& text, const std::string& word) {
  for (size_t pos = text.find(word); pos != std::string::npos; pos = text.find(word, pos + 1)) {
    const bool left_ok = pos == 0 || !is_word_char(text[pos - 1]) || !is_word_char(word.front());
    const size_t end = pos + word.size();
    const bool right_ok =
        end == text.size() || !is_word_char(text[end]) || !is_word_char(word.back());
    if (left_ok && right_ok) return true;
  }
  return false;
}

// Runs f; passes if it throws std::invalid_argument whose message names every word.
template <class F>
::testing::AssertionResult throws_naming(const F& f, const std::vector<std::string>& words) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    for (const std::string& w : words)
      if (!contains_word(what, w))
        return ::testing::AssertionFailure() << "the message does not name '" << w << "': " << what;
    return ::testing::AssertionSuccess() << what;
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw another exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

// B ((groups * K) x N row-major, groups stacked along K) in the layout PackBMatrix takes
// for `trans` (Transpose: each group's N x K matrix, one after another). Returns the ld.
inline int b_in_layout(matrix_op_t trans, int groups, int K, int N, const std::vector<int8_t>& B,
                       std::vector<int8_t>& out) {
  out = B;
  if (trans == matrix_op_t::NoTranspose) return N;
  for (int g = 0; g < groups; ++g) {
    const size_t off = static_cast<size_t>(g) * K * N;
    ref::transpose(N, K, B.data() + off, N, out.data() + off, K);
  }
  return K;
}

}  // namespace quire::test

// EXPECT_INVALID(({"param", "value"...}), statement...): the statement (commas allowed)
// throws std::invalid_argument, and its message names each of the words. (Test files
// shorten the parenthesized list with a local #define W(...) ({__VA_ARGS__}).)
#define EXPECT_INVALID(words, ...)                                                          \
  do {                                                                                      \
    auto statement_ = [&] { __VA_ARGS__; };                                                 \
    EXPECT_THROW(statement_(), std::invalid_argument) << #__VA_ARGS__;                      \
    EXPECT_TRUE(::quire::test::throws_naming(statement_, std::vector<std::string> words))   \
        << #__VA_ARGS__;                                                                    \
  } while (0)
