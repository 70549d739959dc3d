// FBGEMM compatibility: fbgemm/Assert.h. FBGEMM_CHECK(cond, message parts...) throws
// fbgemm::Error, whose what() is "[file(line)] [function]: message"; the message is the
// parts streamed together, or a default naming the condition.
#pragma once

#include <exception>
#include <sstream>
#include <string>
#include <string_view>

#include "quire/Types.h"
#include "quire/detail/Abi.h"

QUIRE_API_BEGIN
namespace fbgemm {
using namespace ::quire;

// The arguments streamed into one string.
template <typename... Args>
inline std::string str(const Args&... args) {
  std::ostringstream ss;
  (void)(ss << ... << args);
  return ss.str();
}

class Error : public std::exception {
 public:
  Error(std::string_view msg, const char* file, int line, const char* func)
      : what_(str("[", file, "(", line, ")] [", func, "]: ", msg)) {}
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  std::string what_;
};

namespace detail {
template <typename... Args>
auto fbgemmCheckMsg(const char* defaultMsg, const Args&... args) {
  if constexpr (sizeof...(args) == 0) return defaultMsg;
  else return ::fbgemm::str(args...);
}
}  // namespace detail

}  // namespace fbgemm

#define FBGEMM_CHECK(cond, ...)                                                        \
  if (!(cond)) [[unlikely]] {                                                          \
    throw ::fbgemm::Error(::fbgemm::detail::fbgemmCheckMsg(                            \
                              "Expected " #cond " to be true, but got false.  "        \
                              "(Could this error message be improved?  If so, "        \
                              "please report an enhancement request to FBGEMM.)",      \
                              ##__VA_ARGS__),                                          \
                          __FILE__, __LINE__, __func__);                               \
  }
QUIRE_API_END
